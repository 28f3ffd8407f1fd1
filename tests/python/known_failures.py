"""Known failures as data: tests matching a pattern in KNOWN are marked strict xfail with the stated reason.

Strict means a listed test that starts passing fails the run, so this list cannot go stale. Loaded with
`-p known_failures` by tools/test.sh; every entry is listed in the closing note of the issue that found it.
"""

import re

import pytest

DEVICES = ("cpu", "cpu:reference", "vulkan:0", "vulkan:0:floor")
CPUS = ("cpu", "cpu:reference")
MAX_ZERO = (
    "torch's own sign of maximum/minimum(-0., +0.) differs between its vectorized CPU path (second argument) and "
    "its scalar path (first argument); vkml returns the first argument everywhere"
)
CONV_INF = (
    "torch's float32/16-bit CPU convolution (oneDNN) returns ±inf in windows where its own float64 path and vkml "
    "give nan (inf·0 and inf − inf inside one window), on some hosts: the float16 case gives nan, as vkml, on an AMD "
    "EPYC with AVX-512 (2026-12-03)"
)
NORM_OVERFLOW = (
    "inputs near the float32 maximum overflow the variance (x² > 3.4e38): torch's float32 kernel returns nan and "
    "vkml's two-pass variance collapses the normalised value; only a float64 computation is right there"
)
EMPTY_DIM_CHECK = (
    "torch returns early for an empty roll and skips the dim check of cat on legacy empty (0,) tensors, so an "
    "out-of-range dim passes there; vkml raises torch's IndexError for it, as torch does for every other tensor"
)
FMOD_INF = (
    "torch's vectorized float CPU fmod and remainder compute a − b·trunc(a/b) (floor for remainder): NaN for an "
    "infinite divisor (inf·0) and for subnormal operands, where its scalar path and C's exact fmod give a finite "
    "value (or ±inf); vkml computes fmod exactly"
)
ADDCMUL_FMA = (
    "torch's vectorized addcmul fuses x + (v·t1)·t2 into one fmadd, so a product that overflows float32 stays finite "
    "inside it (inf + (−5e75) = inf); vkml rounds the product first, as the formula reads, and gets inf − inf = nan"
)
STD_OVERFLOW = (
    "torch's CPU var/std accumulate float32 in float64 (acc_type), so squared deviations of ±1e38 stay finite and "
    "std is ~5e37; vkml squares in float32 (GPUs have no float64) and overflows to inf"
)
FLUSH_MIX = (
    "on a GPU that flushes subnormals (NVIDIA), a composite mixes ops that read subnormal bits exactly (division, "
    "fmod, comparisons) with arithmetic that flushes them (products, sums), so its result matches neither torch on "
    "the inputs nor torch on the flushed inputs; lavapipe keeps subnormals and passes"
)
HARDSWISH_OVERFLOW = (
    "torch computes hardswish above 3 as x·6/6, which overflows to inf for |x| > 3e307 in float64 (its reference "
    "here); vkml returns x (in float32 the float64 reference is finite, so torch's own float32 inf is the outlier)"
)
NORM_SCALED = (
    "torch squares without scaling, so the float64 2-norm of values near 1e308 overflows to inf; vkml scales by the "
    "largest magnitude first and returns the finite norm"
)
SDPA_INF = (
    "with ±inf among q and k, score products meet inf·0: torch's BLAS and vkml's matmul put nan or -inf in different "
    "places, and torch's safe softmax zeroes the rows that are all -inf, so the two disagree on which outputs are nan"
)
CONVT_SPREAD = (
    "vkml computes a transposed convolution as a convolution over the input spread out with zeros, so an infinite or "
    "nan weight meets those zeros (0·inf = nan); torch scatters each input element and never multiplies them"
)
BOOL_MATMUL = "vkml refuses bool matmul before looking at sizes; torch accepts it when a dim is empty"
ADDMM_HOST = (
    "torch's float64 addmm overflows to ±inf on some hosts (an AMD EPYC with AVX-512, 2026-12-03) where the result, "
    "vkml's and torch's on other hosts, is finite near ±1.7e308: its CPU BLAS kernel depends on the processor"
)

# (device, dtype) pairs: the 32-bit-range floats on every device; with float16; each with float64 on the CPUs (GPUs
# have none).
RANGE32 = [(d, t) for d in DEVICES for t in ("float32", "bfloat16")]
SMALL_FLOATS = [(d, t) for d in DEVICES for t in ("float32", "float16", "bfloat16")]
FLOATS = SMALL_FLOATS + [(c, "float64") for c in CPUS]
WIDE_FLOATS = RANGE32 + [(c, "float64") for c in CPUS]


def matrix(test: str, reason: str, ops, pairs, cls: str = "extreme", *condition: str) -> dict:
    """The entries of a coverage-matrix test (`test[device-op-class-dtype]`) for each op and (device, dtype) pair."""
    return {
        f"{test}[{dev}-{op}-{cls}-{dt}]": (reason, (op, dev, cls, dt), *condition) for op in ops for dev, dt in pairs
    }


def _on(devices, dtype: str):
    return [(d, dtype) for d in devices]


# test id pattern -> (reason, the coverage cell (op, device, input class, dtype) it leaves without a passing case
# [, "flushes" | "keeps_subnormals": only on a device that does or does not flush subnormals; "host": torch's own
# result depends on the host processor (its CPU kernels), so the case may pass: a non-strict xfail])
KNOWN = {
    **matrix("tests/python/test_binary.py::test_matrix", MAX_ZERO, ("maximum", "minimum"), FLOATS),
    **matrix("tests/python/test_matmul.py::test_matrix", BOOL_MATMUL, ("matmul",), _on(DEVICES, "bool"), "empty"),
    **matrix(
        "tests/python/test_nn_functional.py::test_matrix",
        CONV_INF,
        ("conv1d", "conv2d"),
        SMALL_FLOATS,
        "extreme",
        "host",
    ),
    **matrix(
        "tests/python/test_linalg.py::test_matrix", ADDMM_HOST, ("addmm",), _on(CPUS, "float64"), "extreme", "host"
    ),
    **matrix(
        "tests/python/test_nn_functional.py::test_matrix", NORM_OVERFLOW, ("layer_norm", "group_norm"), WIDE_FLOATS
    ),
    **matrix(
        "tests/python/test_pointwise.py::test_binary_matrix",
        FMOD_INF,
        ("fmod", "remainder"),
        WIDE_FLOATS,
        "extreme",
        "keeps_subnormals",
    ),
    # Seen on the H200 (run of 2026-12-03): these flush-mixing composites fail there and pass on lavapipe.
    **matrix(
        "tests/python/test_pointwise.py::test_binary_matrix",
        FLUSH_MIX,
        ("floor_divide",),
        RANGE32,
        "extreme",
        "flushes",
    ),
    **matrix(
        "tests/python/test_pointwise.py::test_ternary_matrix", FLUSH_MIX, ("addcdiv",), RANGE32, "extreme", "flushes"
    ),
    **{
        f"tests/python/test_pointwise.py::test_case[{dev}-floor_divide:a // b0]": (
            FLUSH_MIX,
            ("floor_divide", dev, "contiguous", "float32"),
            "flushes",
        )
        for dev in DEVICES
    },
    **matrix("tests/python/test_pointwise.py::test_ternary_matrix", ADDCMUL_FMA, ("addcmul",), WIDE_FLOATS),
    **matrix("tests/python/test_linalg.py::test_moments_matrix", STD_OVERFLOW, ("std",), RANGE32),
    **matrix("tests/python/test_linalg.py::test_matrix", BOOL_MATMUL, ("mm", "bmm"), _on(CPUS, "bool"), "empty"),
    **matrix("tests/python/test_activation.py::test_matrix", HARDSWISH_OVERFLOW, ("hardswish",), _on(CPUS, "float64")),
    **matrix("tests/python/test_attention.py::test_matrix", SDPA_INF, ("scaled_dot_product_attention",), FLOATS),
    **{
        f"tests/python/test_conv_transpose.py::test_matrix[{dev}-conv_transpose2d-extreme-{dt}]": (
            CONVT_SPREAD,
            ("conv_transpose2d", dev, "extreme", dt),
            # On the H200 the bfloat16 cell agreed with torch (strict xfail passed): only lavapipe shows it there.
            *(("keeps_subnormals",) if dt == "bfloat16" and dev not in CPUS else ()),
        )
        for dev, dt in FLOATS
    },
    **matrix("tests/python/test_norm.py::test_matrix", NORM_SCALED, ("norm",), _on(CPUS, "float64")),
    **matrix("tests/python/test_nn_functional.py::test_matrix", BOOL_MATMUL, ("linear",), _on(CPUS, "bool"), "empty"),
    # Found by the fuzz's long form (VKML_FUZZ_EXAMPLES=3000): torch skips the dim check of roll on an empty tensor
    # and of cat on legacy empty (0,) tensors; vkml checks every dim.
    **{
        f"tests/python/test_fuzz.py::test_views_and_inplace[{dev}-{i}]": (EMPTY_DIM_CHECK, (op, dev, cls, dt))
        for dev in DEVICES
        for i, op, cls, dt in ((1249, "roll", "contiguous", "int32"), (1487, "cat", "empty", "float64"))
        if not (dev not in CPUS and dt == "float64")
    },
    # Found by the fuzz (examples 479 and 724 of test_fuzz.py): the two divergences the matrices above already list.
    **{
        f"tests/python/test_fuzz.py::test_ops[{dev}-479]": (MAX_ZERO, ("min", dev, "extreme", "float16"))
        for dev in DEVICES
    },
    **{
        f"tests/python/test_fuzz.py::test_ops[{dev}-724]": (
            FMOD_INF,
            ("remainder", dev, "extreme", "float32"),
            "keeps_subnormals",
        )
        for dev in DEVICES
    },
}


def _regex(pattern: str) -> "re.Pattern[str]":
    """`*` is the only wildcard; brackets in test ids are literal."""
    return re.compile(".*".join(re.escape(p) for p in pattern.split("*")) + "$")


def _flushes(device: str) -> bool:
    """Whether `device` flushes subnormals: GPUs do, except lavapipe (llvmpipe), which keeps them like the CPU. By
    name rather than by a probe: on the H200 a probe product flushed in a bare process but not inside a pytest run
    (unexplained; noted in the closing note of issue #3)."""
    import vkml

    name = next((d.name for d in vkml.devices() if str(d) == device), None)
    if name is None:
        raise LookupError(f"{device} is not open")
    return device not in CPUS and "llvmpipe" not in name


def _applies(condition: str | None, device: str, seen: dict) -> bool:
    if condition is None:
        return True
    if device not in seen:
        try:
            seen[device] = _flushes(device)
        except Exception:  # noqa: BLE001 - a device this run did not open: the entry cannot apply
            return False
    return seen[device] == (condition == "flushes")


def pytest_collection_modifyitems(config, items):
    import coverage_matrix  # on sys.path via conftest; imported late so this plugin loads first

    patterns = [(_regex(p), v[0], v[1], v[2] if len(v) > 2 else None) for p, v in KNOWN.items()]
    for item in items:
        for pattern, reason, key, condition in patterns:
            if not pattern.match(item.nodeid):
                continue
            if condition in (None, "host"):
                item.add_marker(pytest.mark.xfail(strict=condition is None, reason=reason))
                coverage_matrix.REG.reasons[key] = f"known failure: {reason}"
            else:
                # Decided when the test runs: the devices are open by then.
                item.stash.setdefault(_CONDITIONAL, []).append((reason, key, condition))


_CONDITIONAL = pytest.StashKey[list]()
_SEEN: dict = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    import coverage_matrix

    for reason, key, condition in item.stash.get(_CONDITIONAL, []):
        if _applies(condition, key[1], _SEEN):
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
            coverage_matrix.REG.reasons[key] = f"known failure: {reason}"
