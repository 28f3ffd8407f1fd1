"""NumPy and Python interop: numpy()/np.asarray dtypes and values, bfloat16 refused as torch does, tolist, item,
the Python number protocols, len, and repr showing values, dtype and device."""

import numpy as np
import pytest
import torch
import vkml
from coverage_matrix import DTYPES
from helpers import CPUS, NP, exact_ok, make

NUMPY_DTYPES = [d for d in DTYPES if d != "bfloat16"]


def _refused(dtype, device) -> bool:
    """float64 cannot live on a Vulkan device: there the case checks the refusal instead (details in test_errors)."""
    if dtype != "float64" or device in CPUS:
        return False
    with pytest.raises(NotImplementedError):
        make((2, 2), "contiguous", dtype, device)[1].numpy()
    return True


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("cls", ["contiguous", "strided", "empty", "extreme"])
def test_numpy_and_asarray(cls, dtype, device):
    if _refused(dtype, device):
        return
    expect, x = make((4, 5), "contiguous" if cls == "extreme" and dtype == "bool" else cls, dtype, device)
    want = expect.numpy()
    for got in (x.numpy(), np.asarray(x), np.array(x)):
        assert got.dtype == NP[dtype] and got.shape == want.shape
        assert (exact_ok(got, want) if expect.is_floating_point() else got == want).all()
    assert np.asarray(x, dtype=np.float64).dtype == np.float64


def test_bfloat16_numpy_raises_like_torch(device):
    """NumPy has no bfloat16: torch's .numpy() raises TypeError, and so does vkml (convert with .float() first)."""
    with pytest.raises(TypeError):
        torch.ones(2, dtype=torch.bfloat16).numpy()
    x = vkml.ones(2, dtype=vkml.bfloat16, device=device)
    with pytest.raises(TypeError, match="(?i)bfloat16"):
        x.numpy()
    with pytest.raises(TypeError):
        np.asarray(x)
    assert x.float().numpy().dtype == np.float32


def test_torch_bfloat16_tensors_load_bit_for_bit(device):
    """vkml.tensor takes a torch bfloat16 tensor (NumPy cannot carry one) with its bits, strided or not, and into
    another dtype as torch's .to would; a bfloat16 state_dict loads into bfloat16 parameters unchanged."""
    bits = torch.randint(-32768, 32767, (3, 4), dtype=torch.int16)
    bits[0, :3] = torch.tensor([0x7F80, -128, 0x0001], dtype=torch.int16)  # inf, -0.0, the smallest subnormal
    src = bits.view(torch.bfloat16)
    for t in (src, src.t(), src[:, ::2]):
        x = vkml.tensor(t, device=device)
        assert x.dtype == vkml.bfloat16 and x.shape == tuple(t.shape)
        np.testing.assert_array_equal(x.float().numpy(), t.float().numpy())
    y = vkml.tensor(src, dtype=vkml.float32, device=device)
    np.testing.assert_array_equal(y.numpy(), src.float().numpy())
    ref = torch.nn.Linear(4, 3).to(torch.bfloat16)
    ours = vkml.nn.Linear(4, 3).to(device).to(dtype=vkml.bfloat16)
    ours.load_state_dict(ref.state_dict())
    np.testing.assert_array_equal(ours.weight.float().numpy(), ref.weight.float().detach().numpy())


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32", "int64", "bool"])
def test_dlpack_both_ways(dtype, device):
    """vkml.from_dlpack takes torch and NumPy tensors (copies, on the CPU device; strided ones too), and
    torch.from_dlpack and numpy.from_dlpack take vkml tensors from any device, bfloat16 refused as by .numpy()."""
    src = (torch.arange(12).reshape(3, 4) * 3 - 7).to(getattr(torch, dtype))
    for t in (src, src.t()):
        x = vkml.from_dlpack(t)
        assert x.dtype == getattr(vkml, dtype) and x.shape == tuple(t.shape) and str(x.device) == "cpu"
        assert x.float().tolist() == t.float().tolist()
    if dtype != "bfloat16":
        assert vkml.from_dlpack(src.numpy()).tolist() == src.tolist()
    v = vkml.tensor(src, device=device)
    if dtype == "bfloat16":
        with pytest.raises(TypeError):
            torch.from_dlpack(v)
        return
    back = torch.from_dlpack(v)
    assert back.dtype == src.dtype and torch.equal(back, src)
    assert (np.from_dlpack(v) == src.numpy()).all()


def test_dlpack_refuses_device_tensors_with_the_reason():
    class OnGpu:
        def __dlpack_device__(self):
            return (2, 0)  # kDLCUDA

        def __dlpack__(self, **kw):
            raise AssertionError("refused before the capsule is asked for")

    with pytest.raises(RuntimeError, match="host tensors.*device type 2"):
        vkml.from_dlpack(OnGpu())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 2), (1, 2, 2)])
def test_tolist(shape, dtype, device):
    if _refused(dtype, device):
        return
    expect, x = make(shape, "contiguous", dtype, device, domain="grid")
    assert x.tolist() == expect.tolist()
    assert type(x.tolist()) is type(expect.tolist())


@pytest.mark.parametrize("dtype", DTYPES)
def test_item_and_number_protocols(dtype, device):
    if _refused(dtype, device):
        return
    expect, x = make((1, 1), "contiguous", dtype, device)
    assert type(x.item()) is type(expect.item()) and x.item() == expect.item()
    assert float(x) == float(expect) and int(x) == int(expect) and bool(x) == bool(expect)


def test_item_of_special_values(device):
    x = vkml.tensor([float("nan"), float("-inf"), -0.0], device=device)
    assert np.isnan(x[0].item()) and x[1].item() == float("-inf")
    assert str(x[2].item()) == "-0.0"


def test_len(device):
    assert len(vkml.zeros(4, 2, device=device)) == 4
    assert len(vkml.zeros(0, 2, device=device)) == 0


@pytest.mark.parametrize(
    ("values", "dtype", "shown"),
    [
        ([1.5, -2.25], "float16", ["1.5", "-2.25", "float16"]),
        ([1.5, -2.25], "bfloat16", ["1.5", "-2.25", "bfloat16"]),
        ([3, -7], "int32", ["3", "-7", "int32"]),
        ([1.5, -2.25], "float32", ["1.5", "-2.25"]),  # the default dtype is not printed, as in torch
        ([True, False], "bool", ["True", "False"]),
        ([float("nan"), float("inf")], "float32", ["nan", "inf"]),
    ],
)
def test_repr(values, dtype, shown, device):
    text = repr(vkml.tensor(values, dtype=getattr(vkml, dtype), device=device))
    for s in shown:
        assert s in text, f"{s!r} not in {text!r}"
    if device not in CPUS:
        assert device in text, f"repr of a tensor on {device} must say so: {text!r}"
