#!/usr/bin/env bash
# The README's test command: set everything up, then run every check and test, cheapest first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=tools/setup.sh
VKML_SETUP_FOR=test source "$ROOT/tools/setup.sh"
cd "$ROOT"
export PYO3_PYTHON="$VKML_VENV/bin/python"
step() { printf '\n=== %s (%s)\n' "$*" "$(date +%T)"; }
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT

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
step "clippy for wasm32 (the engine, WebGPU backend and JavaScript bindings as the browser gets them)"
cargo clippy --target wasm32-unknown-unknown -p vkml-core -p vkml-backend-cpu -p vkml-backend-vulkan -p vkml-web \
  -- -D warnings
step "cargo check for macOS (aarch64-apple-darwin: the engine, both backends and the Python module; docs/platforms.md)"
rustup target list --installed | grep -qx aarch64-apple-darwin || rustup target add aarch64-apple-darwin
cargo check -q --target aarch64-apple-darwin -p vkml-core -p vkml-backend-cpu -p vkml-backend-vulkan -p vkml-py
step "Rust tests (the fast CPU and Vulkan against the oracle, cpu:reference; determinism, narrowing)"
cargo test --workspace --exclude vkml-py
step "mutation sample (shader mutants the last campaign killed stay killed; full campaign: docs/mutation.md)"
# --clean-known: the step above has just run these tests clean, so no baseline run per mutant.
python tools/mutate.py --sample 6 --clean-known
step "Python wheel (abi3), installed into .pyinstall"
rm -rf "$ROOT/.pyinstall" "$ROOT/.whl"
(cd py && maturin build --profile dev -o "$ROOT/.whl" --interpreter "$VKML_VENV/bin/python" -q)
pip install -q --no-deps --target "$ROOT/.pyinstall" "$ROOT"/.whl/pyvkml-*.whl
step "the wheel in a fresh virtual environment outside the clone (numpy offline): the README's Python examples"
python -m venv "$SCRATCH/venv"
"$SCRATCH/venv/bin/pip" install -q --no-index --find-links "$VKML_WHEELS" "$ROOT"/.whl/pyvkml-*.whl
(cd "$SCRATCH" && "$SCRATCH/venv/bin/python" "$ROOT/tools/readme_examples.py")
step "type stubs: current (tools/stubs.py --check) and true to the module (mypy's stubtest)"
PYTHONPATH="$ROOT/.pyinstall" python tools/stubs.py --check
PYTHONPATH="$ROOT/.pyinstall" python -m mypy.stubtest vkml
step "Python suite against torch (cpu, cpu:reference, vulkan:0, vulkan:0:floor)"
set +e
PYTHONPATH="$ROOT/.pyinstall:$ROOT/tests/python" VKML_COVERAGE_STRICT=1 python -m pytest tests/python -q -p no:cacheprovider -p known_failures "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi

step "benchmark suite, sampled (small sizes on lavapipe: it runs and writes tests/out/bench; its timings mean nothing here)"
PYTHONPATH="$ROOT/.pyinstall" python bench/suite.py --size small --device vulkan:0
step "npm package (wasm-bindgen, wasm-opt, npm pack), installed offline into a fresh folder"
bash tools/npm.sh
NPM_HOME="$SCRATCH/npm"
mkdir -p "$NPM_HOME"
(cd "$NPM_HOME" && npm init -y >/dev/null && npm install -q --offline --no-audit --no-fund "$ROOT"/.whl/vkml-*.tgz)
export VKML_NPM_PKG="$NPM_HOME/node_modules/vkml"
step "JavaScript fixtures from torch (inputs, results, the op table's contracts)"
PYTHONPATH="$ROOT/.pyinstall:$ROOT/tests/python" python tests/web/make_fixtures.py tests/out/web/fixtures.json
step "Node suite: the installed package on the CPU"
node --test tests/web/node.test.mjs
step "TypeScript: tsc --strict checks an example against the installed index.d.ts, then Node runs it"
cp tests/web/typed.mts "$NPM_HOME/"
"$VKML_NODE_TOOLS/node_modules/.bin/tsc" --strict --module nodenext --moduleResolution nodenext --target es2022 \
  --lib es2022,dom,esnext.disposable --outDir "$NPM_HOME/out" "$NPM_HOME/typed.mts"
node "$NPM_HOME/out/typed.mjs"
step "docs site (tools/docs.sh: MkDocs in strict mode fails on a broken internal link; every public name has an entry)"
python tools/docs_check.py --self-test
bash tools/docs.sh
step "Chromium suite: WebGPU (SwiftShader) and its floor against torch and the CPU oracle"
node --test tests/web/browser.test.mjs
step "the web demo end to end in Chromium (screenshot in tests/out/web/demo.png)"
node tests/web/demo.e2e.mjs
exit "$rc"
