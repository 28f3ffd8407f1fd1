"""Fails when the built docs site (site/, by tools/docs.sh) has no entry for a public name: every name in the public
Python modules' `__all__` must be in mkdocstrings' inventory (site/objects.inv), and every name the npm package's
types export (npm/index.d.ts) must head a section of the JavaScript API pages.

  python tools/docs_check.py [--self-test]
"""

from __future__ import annotations

import importlib
import re
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["vkml", "vkml.nn", "vkml.nn.functional", "vkml.nn.init", "vkml.optim", "vkml.optim.lr_scheduler"]
MODULES += ["vkml.data", "vkml.datasets", "vkml.linalg"]


def inventory(path: Path) -> set[str]:
    """The object names of a Sphinx-format inventory (a four-line header, then zlib-compressed lines)."""
    body = path.read_bytes().split(b"\n", 4)[4]
    return {line.split(" ", 1)[0] for line in zlib.decompress(body).decode().splitlines() if line}


def python_missing(names: set[str]) -> list[str]:
    out = []
    for mod in MODULES:
        m = importlib.import_module(mod)
        # Without __all__: the functions and classes the module defines (not what it imports).
        own = [n for n, v in vars(m).items() if not n.startswith("_") and getattr(v, "__module__", None) == mod]
        public = getattr(m, "__all__", None) or own
        out += [f"{mod}.{n}" for n in public if f"{mod}.{n}" not in names]
    return out


def typescript_exports(dts: str) -> list[str]:
    names = re.findall(r"^export declare (?:function|const|class|let) (\w+)", dts, re.M)
    for block in re.findall(r"^export \{([^}]*)\}", dts, re.M):
        names += [n.split(" as ")[-1].strip() for n in block.split(",") if n.strip()]
    return sorted(set(names))


def javascript_missing(dts: str, page: str) -> list[str]:
    # Markdown headings escape underscores (`### manual\\_seed()`).
    headed = set(re.findall(r"^#+ (\w+)", page.replace("\\_", "_"), re.M))
    return [n for n in typescript_exports(dts) if n not in headed]


def self_test() -> None:
    dts = "export declare function zeros(): T;\nexport { Tensor, load as load_file } from './x.js';\n"
    assert typescript_exports(dts) == ["Tensor", "load_file", "zeros"]
    assert javascript_missing(dts, "## Functions\n### zeros()\n### Tensor\n") == ["load_file"]
    assert javascript_missing(dts, "### zeros()\n### Tensor\n### load\\_file()\n") == []
    print("docs_check self-test: a missing JavaScript entry is caught")


def main() -> None:
    if "--self-test" in sys.argv:
        self_test()
        return
    site = ROOT / "site"
    missing = python_missing(inventory(site / "objects.inv"))
    page = "\n".join(p.read_text() for p in sorted((ROOT / ".site-src" / "reference" / "javascript").rglob("*.md")))
    missing += [f"JavaScript {n}" for n in javascript_missing((ROOT / "npm" / "index.d.ts").read_text(), page)]
    if missing:
        sys.exit(f"docs_check: {len(missing)} public names have no entry in the site: {', '.join(missing)}")
    print(f"docs_check: every public name of {len(MODULES)} Python modules and of npm/index.d.ts has an entry")


if __name__ == "__main__":
    main()
