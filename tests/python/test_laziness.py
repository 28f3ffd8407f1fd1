"""Laziness and in-place semantics: counters show no work before a value is observed, one submission per realize on
Vulkan, eager mode, and in-place writes that every view sees while earlier lazy results keep the old values."""

import os
import subprocess
import sys

import numpy as np
import pytest
import vkml
from helpers import CPUS, case, check_op, each, matrix, to_numpy

COUNTERS = (
    "nodes realizations submissions dispatches bytes_uploaded bytes_downloaded pool_hits nodes_fused kernels_generated "
    "bind_groups pipelines_compiled"
).split()
HOST_NS = "schedule fuse prepare launch compile bind record scope submit".split()


def _delta(before: dict) -> dict:
    after = vkml.stats()
    return {k: after[k] - before[k] for k in COUNTERS}


def _chain(device):
    x = vkml.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10, device=device)
    return ((x + 1) * 2).exp().sum(dim=0)


@pytest.fixture
def eager():
    before = vkml.is_eager()
    vkml.set_eager(True)
    try:
        yield
    finally:
        vkml.set_eager(before)


def test_stats_has_every_counter():
    stats = vkml.stats()
    assert all(isinstance(stats.get(k), int) for k in COUNTERS + [f"host_ns_{p}" for p in HOST_NS]), stats


def test_host_time_counters_grow_with_the_phases_a_realization_runs(device):
    """The planner's phases on every device; a GPU's launches, bind groups, pass and error scopes, and its
    submission at the next synchronize."""
    x = vkml.ones(64, device=device)
    vkml.synchronize()
    before = vkml.stats()
    vkml.realize((x + 1).relu() * 2)
    vkml.synchronize()
    grew = {p for p in HOST_NS if vkml.stats()[f"host_ns_{p}"] > before[f"host_ns_{p}"]}
    gpu = set() if device in CPUS else {"launch", "bind", "record", "scope", "submit"}
    want = {"schedule", "fuse", "prepare"} | gpu
    assert grew >= want, (grew, want)


def test_a_gpu_counts_and_notes_the_pipelines_it_compiles(device):
    """A fused program gets a kernel of its own on its eighth run: a GPU compiles it then, counts it in
    `pipelines_compiled` and `host_ns_compile`, and the profiler's notes name it with its milliseconds. The CPUs
    compile nothing."""
    x = vkml.tensor(np.linspace(-3, 3, 16, dtype=np.float32), device=device)
    vkml.synchronize()
    before = vkml.stats()
    with vkml.profile() as p:
        for _ in range(8):  # an op chain no other test runs, so its kernel is new to this process
            ((((x * 1.625) - 0.375).abs().sqrt() * 2.875).tanh() - 0.125).exp2().tolist()
    compiled, ns = (vkml.stats()[k] - before[k] for k in ("pipelines_compiled", "host_ns_compile"))
    notes = [n for n in p.notes if n.startswith("compiled pipeline fused program")]
    if device in CPUS:
        assert (compiled, ns, notes) == (0, 0, []), (compiled, ns, p.notes)
    else:
        assert compiled >= 1 and ns > 0 and len(notes) == 1 and notes[0].endswith(" ms"), (compiled, ns, p.notes)


def test_bind_groups_are_made_once_and_reused(device):
    """A GPU keeps the bind group of a family and its buffers, its uniform at a dynamic offset: repeating a step whose
    buffers come back from the pool makes none, and each repetition still reads its own uniform (the scalar that
    changes). Giving the pool back (`empty_cache`) forgets them."""
    x = vkml.tensor(np.arange(8, dtype=np.float32), device=device)

    def step(s):
        return (x * s).exp2().tolist()

    for s in (1.0, 1.5, 2.0, 2.5):  # each of the device's uniform arenas (one per submission in turn) seen once
        step(s)
    before = vkml.stats()
    got = [step(float(s)) for s in range(3, 8)]
    made = _delta(before)["bind_groups"]
    assert got == [np.exp2(np.arange(8, dtype=np.float32) * s).tolist() for s in range(3, 8)]
    if device in CPUS:
        assert made == 0
        return
    assert made == 0, made
    vkml.empty_cache(device)
    before = vkml.stats()
    assert step(9.0) == np.exp2(np.arange(8, dtype=np.float32) * 9).tolist()
    assert _delta(before)["bind_groups"] > 0


def test_uniforms_of_one_submission_stay_apart(device):
    """Kernels recorded into one submission each read their own uniform from the arena, beyond its first size too
    (binding.rs doubles it): 600 products by different scalars, realized together."""
    x = vkml.tensor(np.arange(4, dtype=np.float32), device=device)
    outs = [x * float(s) - 1.0 for s in range(600)]
    vkml.realize(*outs)
    assert [o.tolist() for o in outs] == [(np.arange(4, dtype=np.float32) * s - 1).tolist() for s in range(600)]


def test_building_a_graph_does_no_work(device):
    vkml.synchronize()
    before = vkml.stats()
    y = _chain(device)
    d = _delta(before)
    assert d["nodes"] >= 4, d
    assert d["realizations"] == 0 and d["submissions"] == 0 and d["dispatches"] == 0, f"work before observing: {d}"
    y.numpy()
    d = _delta(before)
    assert d["realizations"] == 1, d
    if device not in CPUS:
        assert d["submissions"] == 1, f"one observation of a chain must be one submission: {d}"
        assert d["dispatches"] >= 1 and d["bytes_downloaded"] >= y.numel() * 4, d


@pytest.mark.parametrize("observe", ["numpy", "tolist", "item", "repr", "bool", "asarray", "float"])
def test_observing_realizes(observe, device):
    y = _chain(device).sum()
    before = vkml.stats()
    {"numpy": y.numpy, "tolist": y.tolist, "item": y.item, "repr": lambda: repr(y), "bool": lambda: bool(y),
     "asarray": lambda: np.asarray(y), "float": lambda: float(y)}[observe]()
    assert _delta(before)["realizations"] == 1


def test_realize_runs_once(device):
    y = _chain(device)
    before = vkml.stats()
    vkml.realize(y)
    d = _delta(before)
    assert d["realizations"] == 1 and (device in CPUS or d["submissions"] == 1), d
    before = vkml.stats()
    vkml.realize(y)
    y.numpy()
    d = _delta(before)
    assert d["dispatches"] == 0, f"a realized tensor must not be computed again: {d}"


def test_realize_several_tensors_in_one_submission(device):
    a, b = _chain(device), _chain(device) * 3
    before = vkml.stats()
    vkml.realize(a, b)
    d = _delta(before)
    assert d["realizations"] == 1 and (device in CPUS or d["submissions"] == 1), d


@pytest.mark.parametrize("dtype", ["float32", "float16", "bool"])
def test_host_values_go_up_from_the_host(dtype, device):
    """`from_numpy(a).to(device)` uploads a's bytes from where they are: one realization, nothing computed or read back
    on the CPU first (which cost a realization there and two more copies of each input batch); an odd count of
    float16 values and bool bytes are padded or widened to words on a GPU."""
    a = (np.arange(7) % 3 == 1) if dtype == "bool" else np.linspace(-2, 2, 7).astype(dtype)
    target = "cpu:reference" if device == "cpu" else device
    before = vkml.stats()
    t = vkml.from_numpy(a).to(target)
    vkml.realize(t)
    d = _delta(before)
    assert d["realizations"] == 1 and d["bytes_downloaded"] == 0 and d["bytes_uploaded"] == a.nbytes, d
    assert t.device == target and t.numpy().tolist() == a.tolist()


def test_scalar_constants_of_one_value_run_once_per_realization(device):
    """Each `where(mask, x, 0)` reads its 0 as a 0-d constant; a realization computes one of them, not one per select
    (plan/twins.rs), and each select still gets its own values, also after the realization. Integers: a float32
    select is fused, its 0 a constant of the program."""
    rng = np.random.default_rng(0)
    xs = [rng.integers(-9, 9, (5, 7)).astype(np.int32) for _ in range(3)]
    ts = [vkml.tensor(x, device=device) for x in xs]
    vkml.realize(*ts)
    before = vkml.stats()
    outs = [vkml.where(t > 0, t, 0) for t in ts]
    vkml.realize(*outs)
    d = _delta(before)
    if device not in CPUS:  # the CPU backend counts no dispatches
        assert d["dispatches"] == 7, d  # three comparisons, three selects, one zero
    for x, o in zip(xs, outs):
        np.testing.assert_array_equal(o.numpy(), np.where(x > 0, x, 0))
    zero = vkml.where(ts[0] > 100, ts[0], 0).sum()  # a later realization's zero, after the shared one
    assert zero.item() == 0.0


def test_the_optimizer_step_computes_the_loss_too(device):
    """A training step's loss is computed by the realization `opt.step()` asks for (its backward's one-element root
    goes with the next realization), so reading it afterwards costs none of its own; a loss nobody holds any more
    is not computed, and the values are the ones a realization of their own gives."""
    rng = np.random.default_rng(3)
    x = vkml.tensor(rng.standard_normal((8, 5)).astype(np.float32), device=device)
    model = vkml.nn.Linear(5, 3).to(device)
    opt = vkml.optim.SGD(model.parameters(), lr=0.1)
    losses, counts = [], []
    for _ in range(3):
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        want = float(np.mean(np.square(x.numpy() @ model.weight.numpy().T + model.bias.numpy())))
        loss.backward()
        before = vkml.stats()
        opt.step()
        loss.item()
        counts.append(_delta(before)["realizations"])
        losses.append((loss.item(), want))
    assert counts == [1, 1, 1], counts
    for got, want in losses:
        assert abs(got - want) <= 1e-5 * abs(want), losses
    if device in CPUS:
        return  # the CPU backend counts no dispatches
    work = []
    for keep in (True, False):
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        if not keep:
            del loss  # dropped before the step: the step computes the parameters' updates alone
        before = vkml.stats()
        opt.step()
        work.append(_delta(before)["dispatches"])
    assert work[0] > work[1], work


def test_eager_mode(eager, device):
    assert vkml.is_eager()
    x = vkml.ones(3, 4, device=device)
    before = vkml.stats()
    y = x + 1
    d = _delta(before)
    assert d["realizations"] >= 1, f"eager mode must evaluate at once: {d}"
    assert device in CPUS or d["dispatches"] >= 1, d
    assert (to_numpy(y) == 2).all()


def test_set_eager_restores():
    before = vkml.is_eager()
    vkml.set_eager(not before)
    assert vkml.is_eager() is (not before)
    vkml.set_eager(before)
    assert vkml.is_eager() is before


@pytest.mark.parametrize(("env", "expect"), [("1", "True"), ("0", "False")])
def test_eager_environment_variable(env, expect):
    code = "import vkml; print(vkml.is_eager())"
    environ = {**os.environ, "VKML_EAGER": env, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expect


# --- in place: written through check_op, so torch's semantics are the reference --------------------------------------

def _set_rows(x, y):
    x[::2] = y[::2]
    return x


INPLACE = {
    "add_": lambda a, b: a.add_(b),
    "sub_": lambda a, b: a.sub_(b),
    "mul_": lambda a, b: a.mul_(b),
    "div_": lambda a, b: a.div_(b),
    "copy_": lambda a, b: a.copy_(b),
    "setitem": _set_rows,
}
FILL = {"zero_": lambda x: x.zero_(), "fill_": lambda x: x.fill_(2.5)}


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(INPLACE))
def test_inplace_matrix(op, cls, dtype, device):
    # torch rejects some of these (a broadcast destination, int32.add_(float32)); vkml must reject them too.
    check_op(op, [(5, 7), (5, 7)], INPLACE[op], device, cls, dtype)


@pytest.mark.parametrize(("op", "cls", "dtype"), matrix(FILL))
def test_fill_matrix(op, cls, dtype, device):
    check_op(op, [(5, 7)], FILL[op], device, cls, dtype)


def iadd_slice(x):
    v = x[1:, ::2]
    v += 1  # through the view: the base changes, as in torch
    return x, v


def isub_mul_div(x):
    x -= 0.5
    x *= 3
    x /= 2
    return x


def view_sees_new_version(x):
    v = x.t()
    w = x[1]
    x.mul_(2)
    return v, w


def lazy_result_keeps_old_value(x):
    y = x * 2  # built before the write: must use the old x, as torch computed it then
    x.add_(1)
    return y, x


def write_then_read(x):
    x.add_(1)
    # amax, not sum: this case is compared under add_'s exact contract, and a sum's order is free.
    return x.amax(dim=0), x


def setitem_scalar(x):
    x[1:3, ::2] = 5.0
    return x


def setitem_int_index(x):
    x[0] = -1.0
    x[-1, 2] = 7.0
    return x


def setitem_tensor(x, y):
    x[0] = y  # y has shape (6,) and is broadcast into the row
    return x


def setitem_from_itself(x):
    x[..., 0] = x[..., 1]
    return x


def setitem_broadcast(x, y):
    x[:, 1:4] = y  # y (4, 1) broadcasts over the 3 columns
    return x


def zero_slice(x):
    x[1:].zero_()
    return x


def fill_all(x):
    x.fill_(2.5)
    return x


def copy_into(x, y):
    x.copy_(y)  # broadcasts (1, 6) into (4, 6)
    return x


def copy_converts(x, y):
    x.copy_(y)  # int32 into float32
    return x


def chained(x):
    x.add_(1).mul_(2)
    return x


def twice_through_views(x):
    a, b = x[:2], x[1:]
    a.add_(1)
    b.mul_(2)  # row 1 belongs to both views: it sees a's write, then b's
    return x, a, b


CASES = [
    case("add_", [(4, 6)], iadd_slice),
    case("sub_", [(4, 6)], isub_mul_div),
    case("mul_", [(4, 6)], view_sees_new_version),
    case("add_", [(4, 6)], lazy_result_keeps_old_value),
    case("add_", [(4, 6)], write_then_read),
    case("add_", [(4, 6)], chained),
    case("add_", [(4, 6)], twice_through_views),
    case("add_", [(4, 6)], iadd_slice, "strided"),
    case("mul_", [(4, 6)], view_sees_new_version, dtype="float16"),
    case("add_", [(4, 6)], lazy_result_keeps_old_value, dtype="int64"),
    case("setitem", [(4, 6)], setitem_scalar),
    case("setitem", [(4, 6)], setitem_scalar, dtype="bfloat16"),
    case("setitem", [(4, 6)], setitem_scalar, dtype="int32"),
    case("setitem", [(4, 6)], setitem_int_index),
    case("setitem", [(4, 6), (6,)], setitem_tensor),
    case("setitem", [(4, 6), (6,)], setitem_tensor, dtype=("float16", "float32")),  # converted to the destination
    case("setitem", [(4, 6)], setitem_from_itself),
    case("setitem", [(4, 6), (4, 1)], setitem_broadcast),
    case("setitem", [(4, 6)], setitem_scalar, "strided"),
    case("zero_", [(4, 6)], zero_slice),
    case("fill_", [(4, 6)], fill_all),
    case("fill_", [(4, 6)], fill_all, dtype="int64"),
    case("copy_", [(4, 6), (1, 6)], copy_into),
    case("copy_", [(4, 6), (4, 6)], copy_converts, dtype=("float32", "int32")),
]


test_inplace_case = each(CASES)
