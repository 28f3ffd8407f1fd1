#!/usr/bin/env bash
# The README's main command: set everything up, build the module and run the demo on the best device.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=tools/setup.sh
source "$ROOT/tools/setup.sh"
cd "$ROOT"
export PYO3_PYTHON="$VKML_VENV/bin/python"
rm -rf "$ROOT/.pyinstall" "$ROOT/dist"
(cd py && maturin build --profile dev -o "$ROOT/dist" --interpreter "$VKML_VENV/bin/python" -q)
pip install -q --no-deps --target "$ROOT/.pyinstall" "$ROOT"/dist/vkml-*.whl
PYTHONPATH="$ROOT/.pyinstall" python examples/demo.py "$@"
