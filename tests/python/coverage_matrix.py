"""The coverage matrix: op × device × input class × dtype, filled by the helpers, printed and enforced by conftest.

A cell holds the number of cases that passed for it, or a stated reason why it has none: a reason the op table
declares (`unsupported`), a reason a test recorded (`check_unsupported`), or one of the static rules below. An op of
the op table with an empty cell and no reason fails a full run (see conftest).
"""

from __future__ import annotations

from collections import Counter

import pytest

DTYPES = ("float32", "float16", "bfloat16", "float64", "int32", "int64", "bool")
FLOATS = ("float32", "float16", "bfloat16", "float64")
INTS = ("int32", "int64")
CLASSES = ("contiguous", "strided", "broadcast", "empty", "extreme", "mixed")

# The family each tested op belongs to, for the static rules; an op the tests do not know falls back to its table kind.
FAMILY = {
    **dict.fromkeys(("neg", "exp", "log", "sqrt", "relu"), "unary"),
    **dict.fromkeys(("add", "sub", "mul", "div", "maximum"), "binary"),
    **dict.fromkeys(("add_", "sub_", "mul_", "div_"), "binary"),
    **dict.fromkeys(("eq", "ne", "lt", "le", "gt", "ge"), "binary"),
    "where": "ternary",
    **dict.fromkeys(("sum", "mean", "amax", "max", "argmax"), "reduce"),
    **dict.fromkeys(("sigmoid",), "unary"),
    # Losses over class scores take one tensor input here: the class targets are fixed by each test.
    **dict.fromkeys(("softmax", "log_softmax", "logsumexp", "cross_entropy", "nll_loss"), "reduce"),
    **dict.fromkeys(("max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"), "reduce"),
    "dropout": "random_like",
    "matmul": "matmul",
    **dict.fromkeys(("to", "cast"), "cast"),
    **dict.fromkeys(("copy", "to_device"), "copy"),
    **dict.fromkeys(
        ("reshape", "view", "permute", "transpose", "t", "expand", "squeeze", "unsqueeze", "flatten", "getitem"),
        "movement",
    ),
    **dict.fromkeys(("contiguous", "clone"), "movement"),
    **dict.fromkeys(("setitem", "copy_"), "binary"),
    **dict.fromkeys(("zero_", "fill_"), "fill"),
    **dict.fromkeys(("zeros", "ones"), "constant"),
    "full": "full",
    "linspace": "sized",
    "eye": "pattern",
    **dict.fromkeys(("masked_fill", "roll", "diagonal", "diag", "one_hot"), "movement"),
    # The index tables are fixed by each test; the one tensor input is the indexed one.
    **dict.fromkeys(("gather", "scatter", "scatter_add", "index_select", "take_along_dim", "embedding"), "movement"),
    **dict.fromkeys(("sort", "argsort", "topk"), "movement"),
    **dict.fromkeys(("prod", "cumsum", "cumprod"), "reduce"),
    "div_trunc": "binary",
    "norm": "reduce",
    # Whole modules, compared with torch after loading its state_dict into them.
    **dict.fromkeys(("multi_head_attention", "transformer_encoder_layer", "rnn", "lstm", "gru"), "module"),
    "arange": "arange",
    "tensor": "tensor",
    "from_numpy": "numpy",
    **dict.fromkeys(("rand", "randn", "randint", "normal", "randperm", "empty"), "random"),
    **dict.fromkeys(("bernoulli", "multinomial"), "random_like"),
    **dict.fromkeys(("zeros_like", "ones_like", "full_like"), "like"),
    **dict.fromkeys(("rand_like", "randn_like"), "random_like"),
}
SINGLE_INPUT = {"unary", "reduce", "cast", "copy", "movement", "like", "random_like", "fill"}
# Ops whose integer results overflow on INT_MIN/INT_MAX inputs.
INT_OVERFLOW = {
    "neg",
    "add",
    "sub",
    "mul",
    "add_",
    "sub_",
    "mul_",
    "sum",
    "matmul",
    "softsign",
    "scatter_add",
    "prod",
    "cumsum",
    "cumprod",
}


def cells(ops, classes=CLASSES):
    """pytest params (op, cls, dtype) of the matrix cells of `ops` that must have cases (no static reason)."""
    return [
        pytest.param(op, cls, dt, id=f"{op}-{cls}-{dt}")
        for op in ops
        for cls in classes
        for dt in DTYPES
        if static_reason(op, None, cls, dt) is None
    ]


def static_reason(op: str, kind: str | None, cls: str, dtype: str) -> str | None:
    """Why the cell (op, cls, dtype) has no cases on any device, or None when it must have some."""
    fam = FAMILY.get(op, kind)
    if fam == "module" and (cls, dtype) != ("contiguous", "float32"):
        return (
            f"{cls} {dtype}: a whole module is compared with torch on contiguous float32 inputs (with its state_dict "
            "loaded); the input classes and dtypes of its parts are covered by their own ops' cells"
        )
    if cls == "mixed" and fam in SINGLE_INPUT:
        return "mixed: one tensor input, nothing to promote"
    if cls == "mixed" and dtype == "bool":
        return "mixed: two different dtypes never promote to bool"
    if cls == "extreme" and dtype == "bool":
        return "extreme: bool has only False and True"
    if cls == "extreme" and dtype in INTS and op in INT_OVERFLOW:
        return "extreme: INT_MIN/INT_MAX overflow here; signed overflow is undefined behaviour in torch's C++ kernels"
    if fam in ("constant", "full", "arange", "random") and cls in ("strided", "broadcast"):
        return f"{cls}: {op} is built from sizes and scalars, it has no tensor input to stride or broadcast"
    if fam in ("constant", "random") and cls == "mixed":
        return f"mixed: {op} takes no values whose types could mix"
    if fam in ("sized", "pattern") and cls in ("strided", "broadcast", "mixed"):
        return f"{cls}: {op} is built from sizes and scalars, it has no tensor input"
    if fam == "pattern" and cls == "extreme":
        return f"extreme: {op} writes only zeros and ones"
    if fam == "constant" and cls == "extreme":
        return f"extreme: {op} writes one constant"
    if fam in ("random", "random_like") and cls == "extreme":
        return f"extreme: {op} generates its values; there are no input values to make extreme"
    if fam == "like" and cls == "extreme":
        return f"extreme: {op} ignores the input's values"
    if fam == "arange" and cls == "extreme" and dtype in FLOATS:
        return "extreme: a float arange over ±1e38/inf has no finite length within the test size limit"
    if fam == "numpy" and cls == "mixed":
        return "mixed: a NumPy array has one dtype"
    if fam == "numpy" and dtype == "bfloat16":
        return "bfloat16: NumPy has no bfloat16 arrays to convert"
    if fam in ("random", "random_like") and cls == "broadcast":
        return f"broadcast: {op} writes a fresh tensor; its input only gives the shape"
    return None


class Registry:
    """Per cell: cases that compared values, cases that checked an error as torch raises it, unsupported, failed."""

    def __init__(self) -> None:
        self.passed: Counter = Counter()
        self.errors: Counter = Counter()
        self.unsupported: Counter = Counter()
        self.failed: Counter = Counter()
        self.reasons: dict[tuple, str] = {}

    def add(self, key: tuple, outcome: str, reason: str | None = None) -> None:
        {"pass": self.passed, "error": self.errors, "unsupported": self.unsupported, "fail": self.failed}[outcome][
            key
        ] += 1
        if reason:
            self.reasons[key] = reason


REG = Registry()


def _declared(row: dict, device: str, dtype: str) -> str | None:
    for entry in row.get("unsupported") or []:
        if device_matches(entry.get("device"), device) and entry.get("dtype") in (dtype, None, "*"):
            return entry.get("reason") or "declared unsupported in the op table (no reason given)"
    return None


def device_matches(entry: str | None, device: str) -> bool:
    """Whether an op-table `unsupported` entry's device ("vulkan", "vulkan:0", "vulkan:floor", "*") covers `device`."""
    if entry in (None, "*", device, device.split(":")[0]):
        return True
    return entry in ("floor", "vulkan:floor", "min_spec") and device.endswith(":floor")


def cell(key: tuple, row: dict | None) -> tuple[str, str | None]:
    """(state, text) of one cell: state is 'ok', 'reason' or 'empty'; text is the count or the reason."""
    op, device, cls, dtype = key
    p, e, f = REG.passed[key], REG.errors[key], REG.failed[key]
    fail = f"!{f}" if f else ""
    if p:
        return "ok", f"{p + e}{fail}"
    if e:
        return "ok", f"{e}e{fail}"
    reason = REG.reasons.get(key) or (row and _declared(row, device, dtype))
    if not reason:
        reason = static_reason(op, row and row.get("kind"), cls, dtype)
    if reason:
        return "reason", reason + (f" ({fail} failed)" if f else "")
    return "empty", fail or None


class Report:
    """The matrix over the op table's rows (plus any op the tests recorded that the table lacks)."""

    def __init__(self, rows: dict[str, dict], devices: list[str]) -> None:
        self.rows, self.devices = rows, devices
        recorded = {k[0] for c in (REG.passed, REG.errors, REG.unsupported, REG.failed) for k in c} | {
            k[0] for k in REG.reasons
        }
        self.ops = list(rows) + sorted(recorded - set(rows))
        self.cells = {
            (op, dev, cls, dt): cell((op, dev, cls, dt), rows.get(op))
            for op in self.ops
            for dev in devices
            for cls in CLASSES
            for dt in DTYPES
        }
        self.reasons = sorted({t for s, t in self.cells.values() if s == "reason"})
        self.empty = [k for k, (s, _) in self.cells.items() if s == "empty" and k[0] in rows]

    def _short(self, key: tuple) -> str:
        state, text = self.cells[key]
        if state == "ok":
            return text
        if state == "reason":
            return f"r{self.reasons.index(text) + 1}"
        return "??" + (text or "")

    def recorded(self, op: str) -> bool:
        return any(state != "empty" and key[0] == op and self._ran(key) for key, (state, _) in self.cells.items())

    @staticmethod
    def _ran(key: tuple) -> bool:
        return bool(REG.passed[key] or REG.errors[key] or REG.unsupported[key] or REG.failed[key] or key in REG.reasons)

    def terminal(self, only_recorded: bool = False) -> list[str]:
        """One block per op: rows are input classes, columns dtypes, each cell 'cpu/vulkan/floor'."""
        lines = [
            f"devices per cell: {' / '.join(self.devices)}; a number counts passing cases ('e': error cases as "
            "torch raises them, '!n': n failed), rN is reason N below, ?? is empty without a reason"
        ]
        head = f"  {'class':<11}" + "".join(f"{dt:>15}" for dt in DTYPES)
        for op in self.ops:
            if only_recorded and not self.recorded(op):
                continue
            row = self.rows.get(op)
            tol = (row or {}).get("tolerance") or {}
            note = f"{row.get('kind')}, {tol.get('kind')}" if row else "NOT IN vkml.op_table()"
            lines += [f"{op} ({note})", head]
            for cls in CLASSES:
                cells = ["/".join(self._short((op, d, cls, dt)) for d in self.devices) for dt in DTYPES]
                lines.append(f"  {cls:<11}" + "".join(f"{c:>15}" for c in cells))
        lines += ["reasons:"] + [f"  r{i + 1}: {r}" for i, r in enumerate(self.reasons)]
        return lines

    def markdown(self) -> str:
        out = [
            "# vkml coverage matrix",
            "",
            "Generated by `tests/python/conftest.py` from `vkml.op_table()` and the cases that ran. A number counts "
            "passing cases (`e`: cases that check the error torch raises; `!n`: n failed); `rN` is reason N at the "
            "end; `??` is an empty cell without a reason.",
            "",
        ]
        for op in self.ops:
            row = self.rows.get(op)
            tol = (row or {}).get("tolerance") or {}
            out += [f"## {op}", ""]
            out.append(
                f"kind `{row.get('kind')}`, dtype rule `{row.get('dtype_rule')}`, tolerance `{tol.get('kind')}`"
                f" ({tol.get('reason', '')})"
                if row
                else "not in `vkml.op_table()`"
            )
            out += ["", "| device | class | " + " | ".join(DTYPES) + " |", "|---|---|" + "---|" * len(DTYPES)]
            for dev in self.devices:
                for cls in CLASSES:
                    out.append(f"| {dev} | {cls} | " + " | ".join(self._short((op, dev, cls, dt)) for dt in DTYPES))
            out.append("")
        out += ["## Reasons", ""] + [f"- r{i + 1}: {r}" for i, r in enumerate(self.reasons)]
        if self.empty:
            out += ["", "## Empty cells without a reason", ""] + [f"- {' × '.join(k)}" for k in self.empty]
        return "\n".join(out) + "\n"
