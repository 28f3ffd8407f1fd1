"""Runs every Python block of the README (each in a fresh namespace), from wherever `vkml` is installed: the test
command calls it in a fresh virtual environment outside the clone, so the examples run against the built wheel."""

import re
import sys
import traceback
from pathlib import Path

import vkml

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    where = Path(vkml.__file__).resolve()
    if ROOT in where.parents:
        print(f"vkml was imported from the clone ({where}), not from an installed wheel", file=sys.stderr)
        return 1
    blocks = re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(), re.M | re.S)
    if not blocks:
        print("README.md has no Python block", file=sys.stderr)
        return 1
    failed = 0
    for i, code in enumerate(blocks, 1):
        try:
            exec(compile(code, f"README.md python block {i}", "exec"), {"__name__": "__main__"})
            print(f"README python block {i}: ran")
        except Exception:
            failed += 1
            traceback.print_exc()
            print(f"README python block {i}: failed", file=sys.stderr)
    ran = len(blocks) - failed
    print(f"{ran} of {len(blocks)} README Python blocks ran against vkml {vkml.__version__} at {where}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
