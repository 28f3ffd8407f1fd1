#!/usr/bin/env bash
# The README's main command: set everything up, build the module and train MNIST on the best device
# (arguments go to examples/mnist.py, e.g. --model cnn, --epochs 3, --device vulkan:0, --compare-torch).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# torch is installed only for --compare-torch (the main job itself does not use it).
for arg in "$@"; do
  if [ "$arg" = --compare-torch ]; then
    export VKML_WITH_TORCH=1
  fi
done
# shellcheck source=tools/setup.sh
source "$ROOT/tools/setup.sh"
cd "$ROOT"
export PYO3_PYTHON="$VKML_VENV/bin/python"
rm -rf "$ROOT/.pyinstall" "$ROOT/.whl"
(cd py && maturin build --profile dev -o "$ROOT/.whl" --interpreter "$VKML_VENV/bin/python" -q)
pip install -q --no-deps --target "$ROOT/.pyinstall" "$ROOT"/.whl/pyvkml-*.whl
PYTHONPATH="$ROOT/.pyinstall" python examples/mnist.py "$@"
