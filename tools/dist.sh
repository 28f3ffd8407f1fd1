#!/usr/bin/env bash
# The release artifacts, into dist/ (only this script writes or deletes there):
# - the Linux abi3 wheel: release profile, manylinux_2_28 (zig links it against glibc 2.28's symbols, and maturin's
#   auditwheel check confirms it);
# - the Windows x86-64 abi3 wheel, cross-built here: Debian's mingw-w64 links it (zig's linker lost the module's init
#   symbol from the export list maturin gives it), and PyO3 generates python3.dll's import library;
# - the sdist, and the npm tarball.
# Then it installs the Linux wheel into a fresh virtual environment outside the clone and runs the README's Python
# examples there, and builds a wheel from the sdist in another fresh environment (pip's isolated build: maturin from
# the registry; an empty cargo target directory).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=tools/setup.sh
VKML_SETUP_FOR=web source "$ROOT/tools/setup.sh"
cd "$ROOT"
log() { printf '[dist %s] %s\n' "$(date +%T)" "$*"; }

# The release tools, in a venv of their own keyed by their pins: maturin (the test venv's) and zig (ziglang's wheel).
DVENV="$(tool_venv dist)"
(rustup target list --installed | grep -qx x86_64-pc-windows-gnu) || rustup target add x86_64-pc-windows-gnu
if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  log "installing Debian's mingw-w64 (the Windows wheel's linker)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64 >/dev/null
fi
MATURIN="$DVENV/bin/maturin"
export PATH="$DVENV/bin:$PATH"

rm -rf "$ROOT/dist"
mkdir -p "$ROOT/dist"
log "Linux wheel (release, manylinux_2_28)"
(cd py && "$MATURIN" build --release --zig --compatibility manylinux_2_28 -i python3 -o "$ROOT/dist" -q)
log "Windows x86-64 wheel (release, cross-built)"
# -i names a Python version for maturin's cross-build configuration; the wheel is cp39-abi3 whichever it names.
(cd py && "$MATURIN" build --release --target x86_64-pc-windows-gnu -i python3.11 -o "$ROOT/dist" -q)
log "sdist"
(cd py && "$MATURIN" sdist -o "$ROOT/dist")
log "npm tarball"
bash tools/npm.sh "$ROOT/dist"

SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
log "the Linux wheel in a fresh virtual environment outside the clone: the README's Python examples"
python3 -m venv "$SCRATCH/wheel"
"$SCRATCH/wheel/bin/pip" install -q "$ROOT"/dist/pyvkml-*manylinux*.whl
(cd "$SCRATCH" && "$SCRATCH/wheel/bin/python" "$ROOT/tools/readme_examples.py")
log "a wheel from the sdist in a fresh environment"
python3 -m venv "$SCRATCH/sdist"
# An empty target directory: cached artifacts (cargo names a path dependency's by its place in the workspace) could
# stand in for a file the sdist lacks. This makes the step a cold release build, about 2 minutes here.
CARGO_TARGET_DIR="$SCRATCH/target" \
  "$SCRATCH/sdist/bin/pip" wheel -q --no-deps -w "$SCRATCH/built" "$ROOT"/dist/pyvkml-*.tar.gz
ls "$SCRATCH"/built/pyvkml-*.whl >/dev/null
log "artifacts:"
ls -l "$ROOT/dist"
