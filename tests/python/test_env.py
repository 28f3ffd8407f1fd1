"""The environment switches, each in a fresh process: VKML_MIN_SPEC=1 makes vulkan:0 the floor device, VKML_EAGER=1
evaluates every op at once (one submission per op instead of one per observation)."""

import json
import os
import subprocess
import sys

import pytest
from helpers import DEVICES

VULKAN = "vulkan:0" in DEVICES

PROBE = """
import json, vkml
d = vkml.init_vulkan(0)
before = vkml.stats()["submissions"]
x = vkml.ones(4, 4, device=d)
y = ((x + 1) * 2).exp()
built = vkml.stats()["submissions"] - before
y.numpy()
total = vkml.stats()["submissions"] - before
print(json.dumps({"name": str(d), "min_spec": d.min_spec, "eager": vkml.is_eager(), "built": built, "total": total}))
"""


def probe(**env) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env={**os.environ, **env}, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not VULKAN, reason="needs vulkan:0 in VKML_TEST_DEVICES")
def test_min_spec_env_makes_vulkan0_the_floor():
    plain, floor = probe(VKML_MIN_SPEC="0"), probe(VKML_MIN_SPEC="1")
    assert plain["name"] == "vulkan:0" and not plain["min_spec"]
    assert floor["name"] == "vulkan:0" and floor["min_spec"]


@pytest.mark.skipif(not VULKAN, reason="needs vulkan:0 in VKML_TEST_DEVICES")
def test_eager_env_submits_every_op():
    lazy, eager = probe(VKML_EAGER="0"), probe(VKML_EAGER="1")
    assert not lazy["eager"] and lazy["built"] == 0 and lazy["total"] == 1, lazy
    assert eager["eager"] and eager["built"] >= 3, eager
