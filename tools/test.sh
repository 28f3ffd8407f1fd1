#!/usr/bin/env bash
# The README's test command: set everything up, then run every check and test, cheapest first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=tools/setup.sh
source "$ROOT/tools/setup.sh"
cd "$ROOT"
export PYO3_PYTHON="$VKML_VENV/bin/python"
step() { printf '\n=== %s (%s)\n' "$*" "$(date +%T)"; }

step "format and lint"
cargo fmt --all --check
ruff check .
ruff format --check .
python tools/tidy.py
python tools/tidy.py --self-test
step "layer check (self-test plants violations, then checks this tree)"
python tools/check_layers.py --self-test
step "clippy"
cargo clippy --workspace --all-targets -- -D warnings
step "wasm32 build of the engine"
cargo check --target wasm32-unknown-unknown -p vkml-core -p vkml-backend-cpu -p vkml-web
step "Rust tests (Vulkan against the CPU oracle, determinism, narrowing)"
cargo test --workspace --exclude vkml-py
step "Python wheel (abi3), installed into .pyinstall"
rm -rf "$ROOT/.pyinstall" "$ROOT/dist"
(cd py && maturin build --profile dev -o "$ROOT/dist" --interpreter "$VKML_VENV/bin/python" -q)
pip install -q --no-deps --target "$ROOT/.pyinstall" "$ROOT"/dist/vkml-*.whl
step "Python suite against torch (cpu, vulkan:0, vulkan:0:floor)"
set +e
PYTHONPATH="$ROOT/.pyinstall:$ROOT/tests/python" VKML_COVERAGE_STRICT=1 python -m pytest tests/python -q -p no:cacheprovider -p known_failures "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$rc"
