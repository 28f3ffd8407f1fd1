"""Devices: copies between every pair bit-exact, device strings and objects, best_device, and mixing devices fails."""

import numpy as np
import pytest
import vkml
from coverage_matrix import DTYPES
from helpers import CPUS, DEVICES, check_unsupported, exact_ok, make, names_device, record, to_numpy

VULKAN = [d for d in DEVICES if d not in CPUS]
PAIRS = [(a, b) for a in DEVICES for b in DEVICES if a != b]


@pytest.mark.parametrize("dst", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cls", ["contiguous", "strided", "broadcast", "empty", "extreme"])
def test_copy_round_trip(cls, dtype, dst, device):
    """x on `device` -> dst -> back: the same bits every way (nan payloads aside), views copied as their values."""
    if dtype == "float64" and device not in CPUS:
        check_unsupported("copy", device, dtype, lambda: make((5, 7), cls, dtype, device)[1])
        return
    if dtype == "float64" and dst not in CPUS:
        check_unsupported("copy", dst, dtype, lambda: make((5, 7), cls, dtype, device)[1].to(dst), also=("to",))
        return
    if cls == "extreme" and dtype == "bool":
        cls = "contiguous"  # bool has no special values
    expect, x = make((5, 7), cls, dtype, device)
    want = to_numpy(expect)
    there = x.to(dst)
    assert str(there.device) == dst and there.dtype == x.dtype and tuple(there.shape) == tuple(expect.shape)
    back = there.to(device)
    assert str(back.device) == device
    for t in (there, back, there.cpu()):
        got = to_numpy(t)
        ok = exact_ok(got, want) if expect.is_floating_point() else got == want
        assert np.all(ok), f"{dtype} {cls}: {device} -> {dst} changed values"
    record("copy", device, cls, dtype)


@pytest.mark.parametrize(("a", "b"), PAIRS)
@pytest.mark.parametrize("op", ["add", "mul", "matmul", "where", "maximum"])
def test_mixing_devices_raises(op, a, b):
    """An op over tensors on two devices raises RuntimeError naming both, never copies silently."""
    x, y = vkml.ones(3, 3, device=a), vkml.ones(3, 3, device=b)
    fn = {
        "add": lambda: x + y,
        "mul": lambda: y * x,
        "matmul": lambda: x @ y,
        "where": lambda: vkml.where(x > 0, x, y),
        "maximum": lambda: vkml.maximum(x, y),
    }[op]
    with pytest.raises(RuntimeError) as info:
        fn().numpy()
    msg = str(info.value)
    assert names_device(msg, a) and names_device(msg, b), f"the message must name {a} and {b}: {msg!r}"


def test_device_strings_and_objects(device):
    t = vkml.zeros(2, device=device)
    assert str(t.device) == device
    d = t.device
    assert d.type == device.split(":")[0]
    assert d == t.device and str(d) == device
    assert vkml.zeros(2, device=d).device == d  # a Device works wherever a string does
    if d.type == "vulkan":
        assert d.index == int(device.split(":")[1])
        assert d.min_spec == device.endswith(":floor")
        assert isinstance(d.name, str) and d.name
    assert str(t.to("cpu").device) == "cpu" and str(t.cpu().device) == "cpu"


def test_devices_lists_every_opened_device():
    names = [str(d) for d in vkml.devices()]
    assert "cpu" in names and set(DEVICES) <= set(names), names
    assert len(names) == len(set(names)), f"duplicates in {names}"


def test_best_device_says_why():
    dev, why = vkml.best_device()
    assert str(dev) in [str(d) for d in vkml.devices()]
    assert isinstance(why, str) and len(why.split()) >= 4, f"not a sentence: {why!r}"
    named = [str(dev), dev.name if dev.type != "cpu" else "CPU"]
    assert any(n.lower() in why.lower() for n in named), f"{why!r} does not name {named}"
    vulkan = [d for d in vkml.devices() if d.type == "vulkan"]
    if vulkan and all("llvmpipe" in d.name.lower() or "lavapipe" in d.name.lower() for d in vulkan):
        assert dev.type == "cpu", "with only a software Vulkan device the CPU backend is the better choice"


@pytest.mark.parametrize("name", ["cuda", "vulkan:7", "vulkan:0:ceiling", "gpu", ""])
def test_unknown_device_is_an_error(name):
    with pytest.raises((RuntimeError, ValueError)):
        vkml.zeros(2, device=name).numpy()


@pytest.mark.skipif(not VULKAN, reason="no Vulkan device under test (VKML_TEST_DEVICES)")
def test_init_vulkan_bad_index():
    with pytest.raises((RuntimeError, ValueError, IndexError)):
        vkml.init_vulkan(99)
