"""Device memory with torch's names (issue #19's memory you can see, issue #20's budget): allocated follows the
tensors that hold buffers, reserved adds what the GPU pool keeps, the peak and its reset, empty_cache; and a GPU
allocation past VKML_MAX_DEVICE_BYTES, or a CPU one past VKML_MAX_HOST_BYTES, is torch's out-of-memory
RuntimeError, after which the device still works."""

import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import vkml
from helpers import CPUS

MIB = 1 << 20


def test_allocated_reserved_and_peak_follow_the_tensors(device):
    gc.collect()
    vkml.empty_cache(device)
    vkml.reset_peak_memory_stats(device)
    before = vkml.memory_allocated(device)
    assert vkml.max_memory_allocated(device) == before and vkml.memory_reserved(device) >= before
    x = vkml.zeros(MIB, device=device)  # 4 MiB of float32
    vkml.realize(x)
    assert vkml.memory_allocated(device) == before + 4 * MIB
    assert vkml.max_memory_allocated(device) == before + 4 * MIB
    del x
    assert vkml.memory_allocated(device) == before
    assert vkml.max_memory_allocated(device) == before + 4 * MIB
    pooled = 4 * MIB if device not in CPUS else 0  # a GPU keeps the freed buffer for reuse; the host frees it
    assert vkml.memory_reserved(device) == before + pooled
    stats = vkml.memory_stats(device)
    assert stats == {
        "allocated_bytes.all.current": before,
        "allocated_bytes.all.peak": before + 4 * MIB,
        "reserved_bytes.all.current": before + pooled,
    }
    vkml.empty_cache(device)
    assert vkml.memory_reserved(device) == before
    vkml.reset_peak_memory_stats(device)
    assert vkml.max_memory_allocated(device) == before


BUDGET = """
import vkml, numpy as np
dev = vkml.init_vulkan(0)
MIB = 1 << 20
a = vkml.ones(4 * MIB, device=dev)  # 16 MiB
vkml.realize(a)
try:
    vkml.realize(vkml.ones(16 * MIB, device=dev))  # 64 MiB more: past the 32 MiB budget
except RuntimeError as e:
    print("refused:", e)
del a
b = vkml.ones(6 * MIB, device=dev)  # 24 MiB: fits once the pool gives back a's 16 MiB
print("sum:", b.sum().item(), "reserved MiB:", vkml.memory_reserved(dev) // MIB)
"""


def test_an_old_output_does_not_keep_old_parameter_values(device):
    """A tensor of an earlier step (its history recorded) must not hold the parameters' values of that step once
    its backward has run: the record of the weight's transposed view saved the weight's value, and every optimizer
    step then left 1 MiB behind per kept output. torch frees saved values at backward too."""
    lin = vkml.nn.Linear(512, 512).to(device)  # a 1 MiB weight
    opt = vkml.optim.SGD(lin.parameters(), lr=1e-3)
    x = vkml.ones(4, 512, device=device)
    kept = []

    def step():
        opt.zero_grad()
        y = lin(x)
        # Realized, so that y holds its value rather than the recipe for it (a lazy y would rightly need the weight
        # as it was).
        vkml.realize(y)
        y.sum().backward()
        opt.step()
        kept.append(y)

    for _ in range(2):
        step()
    gc.collect()
    before = vkml.memory_allocated(device)
    for _ in range(8):
        step()
    gc.collect()
    grown = vkml.memory_allocated(device) - before
    # Each kept output holds its own 8 KiB and the bias's old 2 KiB at most; eight old weights would be 8 MiB.
    assert grown < MIB, grown


def test_a_kept_loss_does_not_keep_the_activations_after_its_backward(device):
    """torch frees what backward saved once it has run, whoever still holds the loss; vkml's records kept their
    inputs and outputs, so a training step that kept its loss (to print it later, as most loops do) held every
    activation until the next step: 256 MB of a CNN step at batch 256."""
    nn = vkml.nn
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
    model = model.to(device)
    x = vkml.ones(1024, 256, device=device)  # each activation 1 MiB

    def step():
        for p in model.parameters():
            p.grad = None
        loss = model(x).sum()
        loss.item()
        loss.backward()
        vkml.realize(*[p.grad for p in model.parameters()])
        return loss

    step()
    gc.collect()
    before = vkml.memory_allocated(device)
    loss = step()
    gc.collect()
    held = vkml.memory_allocated(device) - before
    # Four activations of 1 MiB were held before; now the loss's own value and no more.
    assert held < MIB, held
    assert loss.item() == step().item()


def test_a_realization_reuses_the_buffers_of_values_it_no_longer_needs(device):
    """A chain of products realized at once holds the value being read and the one being written, not every step's:
    sixteen 256 KiB intermediates held 4 MiB at the peak before."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 256)).astype(np.float32)
    shift = np.roll(np.eye(256, dtype=np.float32), 1, axis=1)  # a permutation: every product is exact
    x, w = vkml.tensor(a, device=device), vkml.tensor(shift, device=device)
    vkml.realize(x, w)
    gc.collect()
    vkml.reset_peak_memory_stats(device)
    base = vkml.memory_allocated(device)
    y = x
    for _ in range(16):
        y = y @ w
    vkml.realize(y)
    peak = vkml.max_memory_allocated(device) - base
    assert peak < 4 * 256 * 1024, peak
    np.testing.assert_array_equal(y.numpy(), np.roll(a, 16, axis=1))


def test_a_training_step_frees_each_layers_values_before_the_next_layers_gradients(device):
    """An Adam step of a two-convolution network, realized at once by `opt.step()`: its kernels run the last layer's
    gradients first, as backward produces them, so the second convolution's unfolded input (3.6 MB at batch 16) is
    freed before its gradient takes the same buffer. Run first-parameter-first, the step held both: a peak of 20.1 MB
    on cpu and 21.9 on lavapipe, against 16.3 and 18.1 (GPU buffers hold booleans as words); since the unfold reads
    its padding as zeros, with no padded copy of each convolution's input, 15.1 and 16.9."""
    model = vkml.nn.Sequential(
        vkml.nn.Conv2d(1, 32, 3, padding=1), vkml.nn.ReLU(), vkml.nn.MaxPool2d(2),
        vkml.nn.Conv2d(32, 64, 3, padding=1), vkml.nn.ReLU(), vkml.nn.MaxPool2d(2),
        vkml.nn.Flatten(), vkml.nn.Linear(64 * 7 * 7, 10),
    ).to(device)  # fmt: skip
    opt = vkml.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(1)
    x = vkml.tensor(rng.standard_normal((16, 1, 28, 28)).astype(np.float32), device=device)
    y = vkml.tensor(rng.integers(0, 10, 16), device=device)
    vkml.realize(x, y)
    gc.collect()
    vkml.reset_peak_memory_stats(device)
    base = vkml.memory_allocated(device)
    for _ in range(2):  # the second step also holds Adam's states
        opt.zero_grad()
        vkml.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    peak = vkml.max_memory_allocated(device) - base
    assert peak < (15.7e6 if device in CPUS else 17.5e6), peak


def test_a_gpu_allocation_past_the_budget_is_out_of_memory_and_the_device_stays_usable():
    env = dict(os.environ, VKML_MAX_DEVICE_BYTES=str(32 * MIB), PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("VKML_MIN_SPEC", None)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(BUDGET)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    refused = "refused: vulkan:0 out of memory: tried to allocate 0.06 GiB; 0.02 GiB allocated"
    assert lines[0].startswith(refused), r.stdout
    assert "VKML_MAX_DEVICE_BYTES" in lines[0]
    assert lines[1] == f"sum: {float(6 * MIB)} reserved MiB: 24", r.stdout


HOST = """
import vkml
MIB = 1 << 20
a = vkml.ones(8 * MIB)  # 32 MiB
vkml.realize(a)
try:
    vkml.realize(vkml.ones(16 * MIB))  # 64 MiB more: past the 64 MiB cap
except RuntimeError as e:
    print("refused:", e)
del a
print("sum:", vkml.ones(12 * MIB).sum().item())  # 48 MiB fits once a is freed
"""


def test_a_cpu_allocation_past_the_host_cap_is_torchs_allocator_error():
    env = dict(os.environ, VKML_MAX_HOST_BYTES=str(64 * MIB), PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(HOST)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "refused: DefaultCPUAllocator: can't allocate memory: you tried to allocate 67108864 bytes "
        "(VKML_MAX_HOST_BYTES is 67108864; 33554432 bytes are held)",
        f"sum: {float(12 * MIB)}",
    ], r.stdout


@pytest.mark.parametrize("name", ["memory_allocated", "max_memory_allocated", "memory_reserved", "memory_stats"])
def test_an_unknown_device_is_an_error(name):
    with pytest.raises(RuntimeError, match="unknown or unopened device 'vulkan:9'"):
        getattr(vkml, name)("vulkan:9")
    assert np.isscalar(vkml.memory_allocated("cpu"))


LOSS = """
import vkml
dev = vkml.init_vulkan(0)
x = vkml.ones(4, device=dev)
print("before:", x.sum().item())
vkml._vkml._lose_device("vulkan:0")
for what, f in [("new", lambda: vkml.ones(4, device=dev).sum().item()), ("old", lambda: x.sum().item())]:
    try:
        f()
    except RuntimeError as e:
        print(what, "refused:", str(e)[:110])
dev = vkml.init_vulkan(0)  # opened again, under the same name
print("after:", vkml.ones(4, device=dev).sum().item(), str(dev))
try:
    x.sum().item()  # a tensor of the lost device stays lost
except RuntimeError as e:
    print("old still refused:", type(e).__name__)
"""


def test_a_lost_device_refuses_every_call_and_opens_again():
    """A driver's device loss (injected: wgpu destroys the device) is torch's RuntimeError for every call, never a
    crash; vkml.init_vulkan opens the device again under its name, while the lost device's tensors stay lost."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("VKML_MIN_SPEC", None)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(LOSS)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "before: 4.0", r.stdout
    assert lines[1].startswith("new refused: GPU device lost"), r.stdout
    assert lines[2].startswith("old refused: GPU device lost"), r.stdout
    assert lines[3:] == ["after: 4.0 vulkan:0", "old still refused: RuntimeError"], r.stdout
