"""What tools/tidy.py and tools/check_layers.py share: writing a synthetic tree (and one planted problem into it),
the self-test that every plant is reported with its expected text, and the command line."""

from __future__ import annotations

import argparse
from pathlib import Path


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def plant(root: Path, planted) -> None:
    """Append a plant's text to its file (new or clean)."""
    _, rel, text, _ = planted
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(old + text, encoding="utf-8")


def check_plants(tmp: str, plants, write, check) -> int:
    """Write each plant into a fresh tree (`write(root, plant)`) and count those `check` misses."""
    failures = 0
    for index, planted in enumerate(plants):
        root = Path(tmp) / f"plant{index}"
        write(root, planted)
        _, problems = check(root)
        what, rel, _, expected = planted
        hit = next((p for p in problems if expected in p), None)
        if hit is None:
            failures += 1
            print(f"self-test FAILED: {what} ({rel}): no report contains {expected!r}:", *problems, sep="\n  ")
        else:
            print(f"self-test: caught {what}: {hit}")
    return failures


def arguments(doc: str, argv, plants: str):
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent, help="repository root")
    parser.add_argument("--self-test", action="store_true", help=f"check planted {plants} in a synthetic tree")
    return parser.parse_args(argv)


def report(name: str, files: int, problems: list[str], what: str) -> int:
    for problem in problems:
        print(problem)
    print(f"{name}: {files} files, {len(problems)} {what}")
    return 1 if problems else 0
