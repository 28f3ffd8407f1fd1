"""The package's identity: one version number (the Cargo workspace's) reaches Python's `vkml.__version__` and the npm
package, and the licenses the manifests declare are in the repository."""

import json
import re
from pathlib import Path

import vkml

ROOT = Path(__file__).resolve().parents[2]


def _cargo_version() -> str:
    text = (ROOT / "Cargo.toml").read_text()
    section = text[text.index("[workspace.package]") :]
    m = re.search(r'^version\s*=\s*"([^"]+)"', section, re.M)
    assert m, "Cargo.toml's [workspace.package] has no version"
    return m[1]


def test_one_version_everywhere():
    version = _cargo_version()
    assert vkml.__version__ == version, f"vkml.__version__ {vkml.__version__!r}, Cargo.toml {version!r}"
    npm = json.loads((ROOT / "npm" / "package.json").read_text())["version"]
    assert npm == version, f"npm/package.json says {npm!r}, Cargo.toml {version!r}"
    pyproject = (ROOT / "py" / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and not re.search(r"^version\s*=", pyproject, re.M), (
        "py/pyproject.toml must take its version from Cargo (dynamic), not state one"
    )


def test_declared_licenses_are_present():
    declared = re.search(r'^license\s*=\s*"([^"]+)"', (ROOT / "Cargo.toml").read_text(), re.M)
    assert declared and declared[1] == "MIT OR Apache-2.0", declared
    assert "Permission is hereby granted" in (ROOT / "LICENSE-MIT").read_text()
    assert "Apache License" in (ROOT / "LICENSE-APACHE").read_text()


def test_artifacts_carry_the_licenses():
    # maturin takes license files only from beside pyproject.toml: py/ links to the repository's (wheel and sdist).
    for name in ("LICENSE-MIT", "LICENSE-APACHE"):
        link = ROOT / "py" / name
        assert link.resolve() == (ROOT / name).resolve(), f"py/{name} must link to the repository's {name}"
    # npm packs a root LICENSE by itself, not these: tools/npm.sh copies them into pkg/ and the manifest lists them.
    files = json.loads((ROOT / "npm" / "package.json").read_text())["files"]
    assert {"pkg/LICENSE-MIT", "pkg/LICENSE-APACHE"} <= set(files), files
    assert "cp LICENSE-MIT LICENSE-APACHE" in (ROOT / "tools" / "npm.sh").read_text()
