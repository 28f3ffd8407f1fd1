"""vkml.profile(): every kernel a realization runs is recorded with its op, pipeline, shapes, bytes and arithmetic;
device times come from timestamp queries where the device has them (lavapipe does; the floor asks for no optional
feature, so it says it has none), and add up inside the realization that waited for them; the table and the Chrome
trace show the same kernels; profiling never changes a result."""

import json

import numpy as np
import pytest
import vkml


def _work(device):
    rng = np.random.default_rng(0)
    a = vkml.tensor(rng.standard_normal((64, 48)).astype(np.float32), device=device)
    b = vkml.tensor(rng.standard_normal((48, 32)).astype(np.float32), device=device)
    vkml.realize(a, b)
    return a, b


def _run(a, b):
    return ((a @ b).relu() + 1).sum(dim=1).numpy()


def test_records_every_kernel_with_its_shapes_bytes_and_arithmetic(device):
    a, b = _work(device)
    with vkml.profile() as p:
        got = _run(a, b)
    ops = [k["op"] for k in p.kernels]
    assert "matmul" in ops and "sum" in ops, ops
    assert all(k["device"] == device and k["pipeline"] and k["bytes"] > 0 for k in p.kernels)
    mm = next(k for k in p.kernels if k["op"] == "matmul")
    assert mm["shape"] == [64, 32] and mm["flops"] == 2 * 64 * 32 * 48 and mm["dtype"] == "float32"
    assert mm["inputs"] == [([64, 48], "float32"), ([48, 32], "float32")]
    assert mm["bytes"] == 4 * (64 * 48 + 48 * 32 + 64 * 32)
    assert len(p.realizations) >= 1 and p.host_ms > 0
    # The same kernels outside a profile give the same bytes (a pass per kernel changes nothing).
    assert np.array_equal(got, _run(a, b))


def test_device_times_add_up_within_the_realization(device):
    a, b = _work(device)
    with vkml.profile() as p:
        _run(a, b)
    if device.endswith(":floor"):
        assert all(k["device_ms"] is None for k in p.kernels)
        assert p.notes == [f"{device} has no timestamp queries: its kernels are listed without device time"]
        assert p.device_ms == 0
        return
    assert p.notes == []
    assert all(k["device_ms"] is not None and k["device_ms"] >= 0 for k in p.kernels) and p.device_ms > 0
    assert p.device_ms == pytest.approx(sum(k["device_ms"] for k in p.kernels))
    # One realization ran them in order: each kernel starts after the one before ends, and the span from the first
    # start to the last end fits inside the host time the realization spent waiting for them.
    kernels = sorted(p.kernels, key=lambda k: k["start_ms"])
    assert [k["batch"] for k in kernels] == [k["batch"] for k in p.kernels]
    for before, after in zip(kernels, kernels[1:]):
        assert after["start_ms"] >= before["start_ms"] + before["device_ms"] - 1e-6
    span = kernels[-1]["start_ms"] + kernels[-1]["device_ms"] - kernels[0]["start_ms"]
    assert p.device_ms <= span + 1e-6 and span <= sum(p.realizations)


def test_table_and_chrome_trace_show_the_kernels(tmp_path, device):
    a, b = _work(device)
    with vkml.profile() as p:
        _run(a, b)
    table = p.table()
    assert "matmul" in table and "share" in table
    assert f"{len(p.kernels)} kernels in" in table
    path = tmp_path / "trace.json"
    p.export_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    timed = [k for k in p.kernels if k["device_ms"] is not None]
    assert len([e for e in events if e["pid"] == 1]) == len(timed)
    assert len([e for e in events if e["name"] == "realize"]) == len(p.realizations)
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)


def test_one_recording_at_a_time_and_read_after_it():
    p = vkml.profile()
    with p:
        with pytest.raises(RuntimeError, match="already recording"):
            vkml.profile().__enter__()
        with pytest.raises(RuntimeError, match="still recording"):
            p.table()
    assert p.kernels == []  # nothing was realized inside
    with vkml.profile() as q:
        vkml.ones(3).sum().item()
    assert "sum" in [k["op"] for k in q.kernels]
