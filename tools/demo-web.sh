#!/usr/bin/env bash
# The web demo's one command: builds the npm package if it is not built yet (tools/npm.sh), then serves the demo
# (examples/web/ at /, npm/ at /vkml/) on http://127.0.0.1:8080/ until Ctrl-C. Open that address in a browser
# with WebGPU (Chrome, Edge; elsewhere the demo trains on the CPU, in WebAssembly).
# Usage: bash tools/demo-web.sh [--port N]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ ! -f npm/pkg/vkml_web_bg.wasm ]; then
  bash tools/npm.sh
fi
exec node tools/serve.mjs --port 8080 "$@" /=examples/web /vkml/=npm
