"""The network functions (linear, sigmoid, the softmax family, the losses) against torch on every device, input class
and dtype, with their keyword arguments and errors."""

import numpy as np
import pytest
import vkml
from helpers import CPUS, case, check_op, check_pipeline, each, error, matrix

T6 = [0, 4, 2, 2, 1, 3]  # class targets for 6 samples of 5 classes


def F(lib):
    return lib.nn.functional


FUNCS = {
    "linear": ([(4, 5), (3, 5), (3,)], lambda x, w, b, lib: F(lib).linear(x, w, b)),
    "sigmoid": ([(5, 7)], lambda x: x.sigmoid()),
    "softmax": ([(5, 7)], lambda x: x.softmax(1)),
    "log_softmax": ([(5, 7)], lambda x: x.log_softmax(-1)),
    "logsumexp": ([(5, 7)], lambda x: x.logsumexp(1)),
    "cross_entropy": ([(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(x, lib.tensor(T6, device=dev))),
    "nll_loss": ([(6, 5)], lambda x, lib, dev: F(lib).nll_loss(x, lib.tensor(T6, device=dev))),
    "mse_loss": ([(5, 7), (5, 7)], lambda a, b, lib: F(lib).mse_loss(a, b)),
    "conv1d": ([(2, 3, 9), (4, 3, 3), (4,)], lambda x, w, b, lib: F(lib).conv1d(x, w, b, padding=1)),
    "conv2d": ([(2, 3, 6, 5), (4, 3, 3, 3), (4,)], lambda x, w, b, lib: F(lib).conv2d(x, w, b, padding=1)),
    "max_pool2d": ([(2, 3, 6, 6)], lambda x, lib: F(lib).max_pool2d(x, 2)),
    "avg_pool2d": ([(2, 3, 6, 6)], lambda x, lib: F(lib).avg_pool2d(x, 2)),
    "adaptive_avg_pool2d": ([(2, 3, 6, 6)], lambda x, lib: F(lib).adaptive_avg_pool2d(x, 3)),
    "batch_norm": ([(4, 3, 5), (3,), (3,)], lambda x, w, b, lib: F(lib).batch_norm(x, None, None, w, b, training=True)),
    "layer_norm": ([(4, 3, 5), (5,), (5,)], lambda x, w, b, lib: F(lib).layer_norm(x, (5,), w, b)),
    "group_norm": ([(4, 6, 5), (6,), (6,)], lambda x, w, b, lib: F(lib).group_norm(x, 3, w, b)),
}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(FUNCS))
def test_matrix(op, cls, dtype, device):
    shapes, fn = FUNCS[op]
    if isinstance(dtype, tuple):
        dtype = dtype + (dtype[-1],) * (len(shapes) - len(dtype))
    check_op(op, shapes, fn, device, cls, dtype)


def W5(lib, dev, x):
    return lib.tensor([1.0, 2.0, 0.5, 1.0, 3.0], device=dev).to(x.dtype)


CASES = [
    case("linear", [(2, 3, 5), (4, 5)], lambda x, w, lib: F(lib).linear(x, w)),
    case("linear", [(5,), (4, 5), (4,)], lambda x, w, b, lib: F(lib).linear(x, w, b)),
    case("linear", [(64, 100), (33, 100), (33,)], lambda x, w, b, lib: F(lib).linear(x, w, b)),
    case("sigmoid", [np.array([-100.0, -20.0, 0.0, 20.0, 100.0, 1e-30])], lambda x: x.sigmoid()),
    # exp(−x) overflows from x = −88.73 on, where the result (below 2⁻¹²⁶) is 0, as torch's.
    case("sigmoid", [np.array([-88.0, -89.0, -95.0, -103.0, -104.0])], lambda x: x.sigmoid()),
    case("sigmoid", [(4, 4)], lambda x, lib: lib.sigmoid(x)),
    case("softmax", [(3, 4, 5)], lambda x: x.softmax(0)),
    case("softmax", [(3, 300)], lambda x: x.softmax(-1), domain="wide"),
    # Empty along the softmax dim or another: an empty result, as torch (found by test_fuzz.py).
    case("softmax", [(2, 0, 3)], lambda x: x.softmax(1)),
    case("log_softmax", [(2, 0, 3)], lambda x: x.log_softmax(-1)),
    # A 0-d integer tensor with dim 1: torch's IndexError for the dim comes before its dtype error.
    case("softmax", [()], lambda x: x.softmax(1), dtype="int64"),
    case("softmax", [np.array([[1.0, float("-inf"), 2.0], [float("-inf")] * 3])], lambda x: x.softmax(1)),
    case("log_softmax", [(3, 4, 5)], lambda x: x.log_softmax(1)),
    case("log_softmax", [(2, 30)], lambda x: x.log_softmax(1), domain="wide"),
    case("log_softmax", [(4, 6)], lambda x, lib: x.log_softmax(1, dtype=lib.float64)),
    # The row primitive (Op::Softmax): rows of 32 take one invocation each, longer ones a workgroup that reads the
    # row three times; a row past 4,096, 16-bit rows, NaN and +inf in a row, and rows along a non-last dim.
    case("softmax", [(5, 32)], lambda x: x.softmax(1)),
    case("softmax", [(5, 33)], lambda x: x.softmax(1)),
    case("log_softmax", [(3, 4097)], lambda x: x.log_softmax(-1)),
    case("softmax", [(2, 5000)], lambda x: x.softmax(1), dtype="float16"),
    case("log_softmax", [(700, 3)], lambda x: x.log_softmax(0), dtype="bfloat16"),
    case("softmax", [np.array([[1.0, np.nan, 2.0] * 20, [0.5, np.inf, -1.0] * 20])], lambda x: x.softmax(1)),
    case("log_softmax", [np.array([[1.0, float("nan"), 2.0], [0.5, float("inf"), -1.0]])], lambda x: x.log_softmax(1)),
    # Contiguous float32 rows of 36 to 4,096, a multiple of four from an aligned start, read as vec4s on a GPU
    # (shaders/softmax_flat.wgsl): the shortest, a partial last vector round, the longest (its max in the last
    # vector round, large enough that a missed max overflows exp), a view starting a row later, -inf, NaN and +inf
    # in a row, a whole row of -inf; rows it does not take (an odd start, 4,100).
    case("softmax", [(5, 36)], lambda x: x.softmax(1)),
    case("log_softmax", [(4, 1000)], lambda x: x.log_softmax(-1), domain="wide"),
    case("softmax", [(3, 4096)], lambda x: x.softmax(-1), domain="wide"),
    case("log_softmax", [(3, 4096)], lambda x: x.log_softmax(-1)),
    case("softmax", [np.where(np.arange(4096) == 4000, 200.0, np.linspace(-1, 1, 4096))[None]], lambda x: x.softmax(1)),
    case("softmax", [(4, 520)], lambda x: x[1:].softmax(1)),
    case("softmax", [(4, 521)], lambda x: x[:, 1:].softmax(1)),
    case("log_softmax", [(2, 4100)], lambda x: x.log_softmax(1)),
    case("softmax", [np.array([[1.0, np.nan, 2.0, -np.inf] * 20, [0.5, np.inf, -1.0, 3.0] * 20, [-np.inf] * 80])],
         lambda x: x.softmax(1)),
    case("log_softmax", [np.array([[1.0, np.nan, 2.0, -np.inf] * 20, [-np.inf] * 80])], lambda x: x.log_softmax(1)),
    case("logsumexp", [(3, 4, 5)], lambda x: x.logsumexp((0, 2), keepdim=True)),
    case("logsumexp", [np.array([[1e3, 1e3], [-np.inf, -np.inf], [np.inf, 1.0]])], lambda x: x.logsumexp(1)),
    case("logsumexp", [(0, 4)], lambda x: x.logsumexp(0)),
    case("cross_entropy", [(4, 3, 5)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor([[0, 1, 2, 0, 1]] * 4, device=dev))),
    case("cross_entropy", [(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor([0, 4, -100, 2, 1, 3], device=dev), weight=W5(lib, dev, x))),
    case("cross_entropy", [(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor([0, 4, 7, 2, 1, 3], device=dev), ignore_index=7, reduction="sum")),
    case("cross_entropy", [(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor(T6, device=dev), reduction="none", label_smoothing=0.2)),
    case("cross_entropy", [(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor(T6, device=dev), weight=W5(lib, dev, x), label_smoothing=0.1)),
    case("cross_entropy", [(6, 5), (6, 5)], lambda x, p, lib: F(lib).cross_entropy(x, p.softmax(1))),
    case("cross_entropy", [(6, 5), (6, 5)], lambda x, p, lib: F(lib).cross_entropy(
        x, p.softmax(1), label_smoothing=0.3, reduction="sum")),
    case("cross_entropy", [(5,)], lambda x, lib, dev: F(lib).cross_entropy(x, lib.tensor(3, device=dev))),
    case("cross_entropy", [(64, 10)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor(np.arange(64) % 10, device=dev)), domain="wide"),
    case("nll_loss", [(6, 5)], lambda x, lib, dev: F(lib).nll_loss(
        x, lib.tensor(T6, device=dev), weight=W5(lib, dev, x), reduction="sum")),
    case("nll_loss", [(6, 5)], lambda x, lib, dev: F(lib).nll_loss(
        x, lib.tensor([0, -100, 2, 2, 1, 3], device=dev), reduction="none")),
    case("mse_loss", [(5, 7), (5, 7)], lambda a, b, lib: F(lib).mse_loss(a, b, reduction="sum")),
    case("mse_loss", [(5, 7), (5, 7)], lambda a, b, lib: F(lib).mse_loss(a, b, reduction="none")),
    case("mse_loss", [(5, 7)], lambda a, lib: F(lib).mse_loss(a, a > 0)),
    case("conv1d", [(2, 4, 11), (6, 2, 3)], lambda x, w, lib: F(lib).conv1d(x, w, stride=2, groups=2, dilation=2)),
    case("conv1d", [(3, 10), (5, 3, 4), (5,)], lambda x, w, b, lib: F(lib).conv1d(x, w, b, padding="same")),
    case("conv1d", [(2, 3, 8), (4, 3, 8)], lambda x, w, lib: F(lib).conv1d(x, w, padding="valid")),
    case("conv2d", [(2, 4, 9, 8), (6, 2, 3, 2)], lambda x, w, lib: F(lib).conv2d(x, w, stride=2, groups=2)),
    case("conv2d", [(1, 2, 7, 7), (3, 2, 3, 3), (3,)], lambda x, w, b, lib: F(lib).conv2d(
        x, w, b, padding="same", dilation=2)),
    case("conv2d", [(2, 2, 6, 6), (3, 2, 2, 2)], lambda x, w, lib: F(lib).conv2d(x, w, padding="same")),
    case("conv2d", [(8, 16, 14, 14), (32, 16, 3, 3), (32,)], lambda x, w, b, lib: F(lib).conv2d(x, w, b, padding=1)),
    case("conv2d", [(2, 3, 5, 5), (4, 3, 5, 5)], lambda x, w, lib: F(lib).conv2d(x, w, padding="valid")),
    case("max_pool2d", [(2, 3, 7, 7)], lambda x, lib: F(lib).max_pool2d(x, 3, 2, 1, return_indices=True)),
    case("max_pool2d", [(2, 3, 7, 6)], lambda x, lib: F(lib).max_pool2d(x, 2, ceil_mode=True, return_indices=True)),
    case("max_pool2d", [(1, 2, 9, 9)], lambda x, lib: F(lib).max_pool2d(x, (2, 3), (1, 2), dilation=2)),
    case("max_pool2d", [(2, 3, 6, 6)], lambda x, lib: F(lib).max_pool2d(x, 2, return_indices=True), domain="grid"),
    case("avg_pool2d", [(2, 3, 7, 7)], lambda x, lib: F(lib).avg_pool2d(x, 3, 2, 1)),
    case("adaptive_avg_pool2d", [(2, 3, 6, 6)], lambda x, lib: F(lib).adaptive_avg_pool2d(x, 1)),
    case("batch_norm", [(8, 4, 3, 3), (4,), (4,)], lambda x, m, v, lib: F(lib).batch_norm(x, m, v.abs() + 0.5)),
    case("batch_norm", [(8, 4)], lambda x, lib: F(lib).batch_norm(x, None, None, training=True, eps=1e-3)),
    case("layer_norm", [(2, 3, 4, 5)], lambda x, lib: F(lib).layer_norm(x, (4, 5))),
    case("layer_norm", [(64, 96)], lambda x, lib: F(lib).layer_norm(x, (96,)), domain="wide"),
    case("group_norm", [(2, 6, 4, 4)], lambda x, lib: F(lib).group_norm(x, 2)),
]


test_cases = each(CASES)


ERRORS = [
    error(
        "cross_entropy",
        [(6, 5)],
        lambda x, lib, dev: F(lib).cross_entropy(x, lib.tensor([0, 9, 1, 1, 1, 1], device=dev)),
        IndexError,
        "out of bounds",
    ),
    error("cross_entropy", [(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(x, lib.tensor([0, 1], device=dev)),
          ValueError, "batch_size"),
    error("cross_entropy", [(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor(T6, device=dev).int()), RuntimeError, "Long"),
    error("cross_entropy", [(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor(T6, device=dev), label_smoothing=1.5), (ValueError, RuntimeError), "label_smoothing"),
    error("cross_entropy", [(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor(T6, device=dev), weight=lib.ones(3, device=dev)), RuntimeError, "weight"),
    error("cross_entropy", [(6, 5)], lambda x, lib, dev: F(lib).cross_entropy(
        x, lib.tensor(T6, device=dev), reduction="avg"), ValueError, "reduction"),
    error("linear", [(4, 5), (3, 4)], lambda x, w, lib: F(lib).linear(x, w), RuntimeError, "shapes|multiplied"),
    error("softmax", [(4, 5)], lambda x: x.long().softmax(1), (NotImplementedError, RuntimeError), "softmax"),
    error("conv1d", [(2, 3, 6, 6), (4, 3, 3)], lambda x, w, lib: F(lib).conv1d(x, w), RuntimeError, "3D"),
    error("conv1d", [(2, 3, 6), (4, 2, 3)], lambda x, w, lib: F(lib).conv1d(x, w), RuntimeError, "channels"),
    error("conv2d", [(2, 3, 6, 6), (4, 2, 3, 3)], lambda x, w, lib: F(lib).conv2d(x, w), RuntimeError, "channels"),
    error("conv2d", [(2, 3, 2, 2), (4, 3, 3, 3)], lambda x, w, lib: F(lib).conv2d(x, w), RuntimeError, "[Kk]ernel"),
    error("conv2d", [(2, 3, 6, 6), (4, 3, 3, 3)], lambda x, w, lib: F(lib).conv2d(x, w, padding="full"),
          (ValueError, RuntimeError), "padding"),
    error("max_pool2d", [(2, 3, 6, 6)], lambda x, lib: F(lib).max_pool2d(x, 2, padding=2), RuntimeError, "pad"),
    error("layer_norm", [(4, 5)], lambda x, lib: F(lib).layer_norm(x, (4,)), RuntimeError, "normalized_shape"),
    error("group_norm", [(4, 6, 5)], lambda x, lib: F(lib).group_norm(x, 4), RuntimeError, "divisible"),
    error("batch_norm", [(1, 3)], lambda x, lib: F(lib).batch_norm(x, None, None, training=True), ValueError,
          "more than 1 value"),
    error("max_pool2d", [(3, 6, 6)], lambda x, lib: F(lib).max_pool2d(x.unsqueeze(0), 7), RuntimeError, "[Kk]ernel"),
]


@pytest.mark.parametrize("device_cls", ["contiguous", "strided", "empty"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "float64"])
def test_dropout(device, device_cls, dtype):
    """Dropout's kept elements are x·(1/(1−p)) and its dropped ones 0, its keep rate is 1−p within 5σ of the
    binomial, eval mode and p=0 return the input, and the gradient is the same mask and scale."""
    import vkml
    from helpers import check_unsupported, make, record

    if dtype == "float64" and device not in CPUS:
        check_unsupported("dropout", device, dtype, lambda: vkml.nn.functional.dropout(
            vkml.ones(4, dtype=vkml.float64, device="cpu").to(device), 0.5), device_cls)
        return
    shape = (64, 50) if device_cls != "empty" else (0, 50)
    _, x = make(shape, device_cls, dtype, device)
    x = x.abs() + 1  # nonzero, so a zero in the output is a dropped element
    x.requires_grad_(True) if x.is_leaf else None
    p = 0.3
    vkml.manual_seed(5)
    y = vkml.nn.functional.dropout(x, p)
    xs, ys = x.float().numpy(), y.float().numpy()
    kept = ys != 0
    # The scale is a Python scalar: float64 math for float64, float32 math (rounded once) for the others.
    wide = x.double() * (1 / (1 - p)) if dtype == "float64" else x.float() * float(np.float32(1 / (1 - p)))
    expect = wide.to(x.dtype).float().numpy()
    assert np.array_equal(ys[kept], expect[kept]), "kept elements must be x·(1/(1−p)) rounded once"
    n = xs.size
    if n:
        sigma = np.sqrt(n * p * (1 - p))
        assert abs(kept.sum() - n * (1 - p)) < 5 * sigma, f"keep rate {kept.mean()} for p={p}"
    assert np.array_equal(vkml.nn.functional.dropout(x, p, training=False).float().numpy(), xs)
    assert np.array_equal(vkml.nn.functional.dropout(x, 0.0).float().numpy(), xs)
    assert not vkml.nn.functional.dropout(x, 1.0).float().numpy().any()
    leaf = vkml.tensor(np.ones((8, 9), np.float32), device=device, requires_grad=True)
    vkml.manual_seed(6)
    out = vkml.nn.functional.dropout(leaf, 0.5)
    out.sum().backward()
    assert np.array_equal(leaf.grad.numpy(), out.detach().numpy()), "the gradient of dropout is its mask and scale"
    record("dropout", device, device_cls, dtype)


@pytest.mark.parametrize("cls", ["contiguous", "strided", "empty"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_dropout_integers(device, dtype, cls):
    """Integer dropout is refused as torch refuses it, except on an empty tensor, which comes back unchanged."""
    from helpers import check_error

    if cls == "empty":
        check_op("dropout", [(4, 5)], lambda x, lib: lib.nn.functional.dropout(x, 0.5), device, cls, dtype)
        return
    check_error(
        "dropout",
        [(4, 5)],
        lambda x, lib: lib.nn.functional.dropout(x, 0.5),
        device,
        RuntimeError,
        "can't be cast",
        cls=cls,
        dtype=dtype,
    )


@pytest.mark.parametrize(
    ("shape", "view", "pipeline"),
    [
        ((3, 36), lambda x: x, "softmax_flat"),
        ((4, 520), lambda x: x[1:], "softmax_flat"),
        ((4, 521), lambda x: x[:, 1:], "softmax"),
        ((2, 4100), lambda x: x, "softmax"),
        ((3, 32), lambda x: x, "softmax"),
    ],
)
def test_contiguous_float32_rows_take_the_vector_kernel(shape, view, pipeline, device):
    """The softmax cases above reach the kernel they are meant for on a GPU, the floor included; the CPU has one."""
    x = view(vkml.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 100, device=device))
    vkml.realize(x)
    check_pipeline(device, lambda: x.softmax(1).numpy(), "softmax", pipeline)


@pytest.mark.parametrize(
    ("shape", "args", "dtype", "pipeline"),
    [
        ((2, 3, 6, 8), (2,), "float32", "window_tiles"),
        ((2, 3, 6, 6), ((3, 2),), "float32", "window_tiles"),
        ((2, 3, 7, 6), (2,), "float32", "window"),
        ((2, 3, 6, 6), (2, 1), "float32", "window"),
        ((2, 3, 6, 6), (2,), "float16", "window"),
    ],
)
def test_tiling_pool_gradients_take_the_window_kernel(shape, args, dtype, pipeline, device):
    """A float32 max pool whose windows tile the image (stride = kernel) takes its gradient per window on a GPU (the
    cases above check its values against torch); a leftover row, overlapping windows or float16 do not."""
    x = vkml.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) % 7, device=device)
    x = x.to(getattr(vkml, dtype))
    x.requires_grad_(True)
    y = vkml.nn.functional.max_pool2d(x, *args)
    g = vkml.ones_like(y)
    vkml.realize(y, g)
    check_pipeline(device, lambda: (y.backward(g), x.grad.numpy()), "max_pool2d_backward", pipeline)
