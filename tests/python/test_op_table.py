"""The op table and dtype objects: every public op has a row with a tolerance that states its reason; dtypes and
torch.result_type-style promotion."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch
import vkml
from coverage_matrix import DTYPES

OPS = "add sub mul div neg exp log sqrt relu maximum eq ne lt le gt ge matmul where sum mean amax max argmax".split()
KINDS = {"creation", "unary", "binary", "ternary", "reduce", "matmul", "cast", "movement", "loss"}


def test_rows_are_well_formed():
    rows = vkml.op_table()
    assert len({r["name"] for r in rows}) == len(rows), "duplicate op names"
    for r in rows:
        assert r["kind"] in KINDS, r
        assert isinstance(r["primitive"], bool) and isinstance(r["dtype_rule"], str), r
        tol = r["tolerance"]
        assert tol["kind"] in {"exact", "ulp", "absolute", "relative", "backward"}, r
        assert tol.get("reason"), f"{r['name']}: a tolerance must cite its reason"
        if tol["kind"] == "ulp":
            assert tol.get("ulp", 0) > 0 or tol.get("abs", 0) > 0, r
        if tol["kind"] == "absolute":
            assert tol.get("abs", 0) > 0, r
        if tol["kind"] == "relative":
            assert tol.get("rel", 0) > 0, r
        for entry in r["unsupported"]:
            assert entry.get("device") and entry.get("dtype") and entry.get("reason"), (r["name"], entry)


@pytest.mark.parametrize("op", OPS)
def test_public_op_has_a_row(op):
    assert op in {r["name"] for r in vkml.op_table()}


@pytest.mark.parametrize("name", DTYPES)
def test_dtype_objects(name):
    d, t = getattr(vkml, name), getattr(torch, name)
    assert d.name == name and repr(d) == f"vkml.{name}"
    assert d.itemsize == t.itemsize and d.is_floating_point == t.is_floating_point
    assert d == getattr(vkml, name) and d != (vkml.int32 if name != "int32" else vkml.int64)


ALIASES = [("float", "float32"), ("half", "float16"), ("double", "float64"), ("int", "int32"), ("long", "int64")]


@pytest.mark.parametrize(("alias", "name"), ALIASES)
def test_dtype_aliases(alias, name):
    assert getattr(vkml, alias) == getattr(vkml, name)


SCALARS = [2, 2.5, True]


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", [*DTYPES, *SCALARS])
def test_result_type(a, b):
    def operand(lib, x):
        return x if not isinstance(x, str) else lib.ones(2, dtype=getattr(lib, x))

    expect = torch.result_type(operand(torch, a), operand(torch, b))
    assert vkml.result_type(operand(vkml, a), operand(vkml, b)).name == str(expect).removeprefix("torch.")


def test_numerics_doc_is_fresh():
    """docs/numerics.md is generated from the op table (and the committed measurements): it must match."""
    tool = Path(__file__).resolve().parents[2] / "tools" / "numerics.py"
    done = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
