"""pytest set-up: import the vkml built from this checkout, open the devices once, print and enforce coverage.

Environment:
- VKML_ALLOW_ANY_MODULE=1: accept a vkml installed anywhere (a remote GPU machine runs a carried wheel).
- VKML_TEST_DEVICES=cpu,cpu:reference,vulkan:0,vulkan:0:floor: the devices to test (default: all four). Without it,
  a Vulkan device that cannot be opened fails the session; nothing is skipped silently.
- VKML_COVERAGE_STRICT=1/0: force/disable failing the session on an empty coverage cell without a reason. Unset, the
  check runs when the whole suite ran (no -k, -m, node ids or deselection, every test file collected).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(HERE) not in sys.path:  # helpers and coverage_matrix import by name under any import mode
    sys.path.insert(0, str(HERE))

try:
    import vkml
except ImportError as exc:
    raise ImportError(
        f"cannot import vkml ({exc}). Build it and install it into {ROOT / '.pyinstall'} "
        "(pip install --target .pyinstall <wheel>) with that folder on PYTHONPATH, as the README's test command does."
    ) from exc

import coverage_matrix as cm  # noqa: E402 - needs the path set above
import helpers  # noqa: E402
import measured as measured_errors  # noqa: E402

OUT = ROOT / "tests" / "out"
_STATE = {"deselected": 0, "strict": False, "report": None}


def _check_origin() -> None:
    if os.environ.get("VKML_ALLOW_ANY_MODULE") == "1":
        return
    where = Path(vkml.__file__).resolve()
    install = (ROOT / ".pyinstall").resolve()
    if not where.is_relative_to(install):
        raise pytest.UsageError(
            f"imported vkml from {where}, not from this checkout's {install}: a stale module would be tested. "
            "Install the freshly built wheel with pip install --target .pyinstall and put .pyinstall first on "
            "PYTHONPATH (or set VKML_ALLOW_ANY_MODULE=1 on a machine that runs a carried wheel)."
        )


def _open_devices() -> list[str]:
    env = os.environ.get("VKML_TEST_DEVICES")
    if env:
        wanted = [d.strip() for d in env.split(",") if d.strip()]
    elif os.environ.get("VKML_MIN_SPEC") == "1":  # then "vulkan:0" itself is the floor device
        wanted = ["cpu", "cpu:reference", "vulkan:0"]
    else:
        wanted = ["cpu", "cpu:reference", "vulkan:0", "vulkan:0:floor"]
    for name in wanted:
        if name in ("cpu", "cpu:reference"):
            continue
        m = re.fullmatch(r"vulkan:(\d+)(:floor)?", name)
        if not m:
            raise pytest.UsageError(
                f"VKML_TEST_DEVICES: unknown device {name!r} (cpu, cpu:reference, vulkan:N, vulkan:N:floor)"
            )
        try:
            dev = vkml.init_vulkan(int(m[1]), min_spec=bool(m[2]))
        except Exception as exc:
            raise pytest.UsageError(
                f"could not open {name}: {type(exc).__name__}: {exc}\n"
                "The suite never skips a device silently. Install a Vulkan driver (lavapipe: apt-get install "
                "mesa-vulkan-drivers libvulkan1), or choose devices explicitly, e.g. VKML_TEST_DEVICES=cpu."
            ) from exc
        if str(dev) != name:
            raise pytest.UsageError(f"init_vulkan({m[1]}, min_spec={bool(m[2])}) gave {str(dev)!r}, expected {name!r}")
    return wanted


def pytest_configure(config: pytest.Config) -> None:
    _check_origin()
    helpers.DEVICES[:] = _open_devices()


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [f"vkml: {vkml.__file__}", f"vkml devices under test: {', '.join(helpers.DEVICES)}"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that takes `device` runs once per device under test: the CPU devices first."""
    if "device" not in metafunc.fixturenames:
        return
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        if "device" in ([n.strip() for n in names.split(",")] if isinstance(names, str) else names):
            return  # the test chose its devices itself (e.g. Vulkan only)
    metafunc.parametrize("device", helpers.DEVICES, ids=str)


def pytest_deselected(items) -> None:
    _STATE["deselected"] += len(items)


def _full_run(session: pytest.Session) -> bool:
    env = os.environ.get("VKML_COVERAGE_STRICT")
    if env is not None:
        return env == "1"
    opt = session.config.option
    if opt.keyword or opt.markexpr or _STATE["deselected"] or getattr(opt, "lf", False):
        return False
    if any("::" in a for a in session.config.args):
        return False
    collected = {Path(str(item.fspath)).name for item in session.items}
    return collected >= {p.name for p in HERE.glob("test_*.py")}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if session.config.option.collectonly or not helpers.DEVICES:
        return
    try:
        rows = helpers.op_table()
    except Exception as exc:  # noqa: BLE001 - the tests report a broken op table themselves
        rows = {}
        sys.stderr.write(f"vkml.op_table() failed: {exc}\n")
    report = cm.Report(rows, helpers.DEVICES)
    _STATE["report"], _STATE["strict"] = report, _full_run(session)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "coverage.md").write_text(report.markdown())
    measured = {}
    for (op, kind), m in sorted(measured_errors.MEASURED.items()):
        measured.setdefault(op, {})[kind] = {k: float(f"{v:.4g}") for k, v in m.items()}
    (OUT / "numerics.json").write_text(json.dumps(measured, indent=1, sort_keys=True) + "\n")
    if _STATE["strict"] and report.empty and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    report = _STATE["report"]
    if report is None:
        return
    tr = terminalreporter
    strict = _STATE["strict"]
    tr.section("vkml coverage matrix (op × input class × dtype; devices per cell)")
    if not strict:
        tr.write_line("partial run: only the ops it touched are shown; the full matrix is checked on a full run")
    for line in report.terminal(only_recorded=not strict):
        tr.write_line(line)
    tr.write_line(f"written to {OUT / 'coverage.md'}")
    if not report.empty:
        tr.write_line("every cell of the op table has cases or a stated reason", green=True)
    elif not strict:
        tr.write_line(f"{len(report.empty)} cells empty in this partial run (VKML_COVERAGE_STRICT=1 enforces them)")
    else:
        tr.write_line(f"{len(report.empty)} empty cells without a reason: this FAILS the session", red=True)
        for key in report.empty[:200]:
            tr.write_line("  " + " × ".join(key), red=True)
        if len(report.empty) > 200:
            tr.write_line(f"  ... and {len(report.empty) - 200} more (see {OUT / 'coverage.md'})", red=True)
