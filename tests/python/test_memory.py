"""Device memory with torch's names (issue #19's memory you can see, issue #20's budget): allocated follows the
tensors that hold buffers, reserved adds what the GPU pool keeps, the peak and its reset, empty_cache; and a GPU
allocation past VKML_MAX_DEVICE_BYTES is torch's out-of-memory RuntimeError, after which the device still works."""

import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import vkml

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
    pooled = 4 * MIB if device != "cpu" else 0  # a GPU keeps the freed buffer for reuse; the host frees it
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


@pytest.mark.parametrize("name", ["memory_allocated", "max_memory_allocated", "memory_reserved", "memory_stats"])
def test_an_unknown_device_is_an_error(name):
    with pytest.raises(RuntimeError, match="unknown or unopened device 'vulkan:9'"):
        getattr(vkml, name)("vulkan:9")
    assert np.isscalar(vkml.memory_allocated("cpu"))
