"""The largest error each op showed against torch, per device kind: (op, "cpu" | "vulkan" | "floor") ->
{"ulp": units in the last place of the output dtype, "share": the fraction of the contract's bound used}. The
helpers record into it; conftest writes it to tests/out/numerics.json; tools/numerics.py turns it into
docs/numerics.md."""

MEASURED: dict[tuple[str, str], dict[str, float]] = {}


def record(op: str, device: str, err_ulp: float, share: float) -> None:
    """Keep the largest error of `op` per device kind (cpu, vulkan, floor)."""
    kind = "cpu" if device.split(":")[0] == "cpu" else ("floor" if device.endswith(":floor") else "vulkan")
    seen = MEASURED.setdefault((op, kind), {"ulp": 0.0, "share": 0.0})
    seen["ulp"] = max(seen["ulp"], err_ulp)
    seen["share"] = max(seen["share"], share)
