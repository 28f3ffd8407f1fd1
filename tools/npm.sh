#!/usr/bin/env bash
# Builds the npm package `vkml` from the web/ crate: cargo (wasm32, release) → wasm-bindgen-cli (the pinned version,
# ES module for browsers and Node) → wasm-opt from npm's binaryen → `npm pack`. Prints the .wasm size.
# Usage: bash tools/npm.sh [FOLDER]   (the tarball's folder, default .whl/; after sourcing tools/setup.sh, or
# standalone: it sources it)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${VKML_WASM_BINDGEN:-}" ]; then
  # shellcheck source=tools/setup.sh
  VKML_SETUP_FOR="${VKML_SETUP_FOR:-web}" source "$ROOT/tools/setup.sh"
fi
cd "$ROOT"
cargo build -q --release --target wasm32-unknown-unknown -p vkml-web
PKG="$ROOT/npm/pkg"
rm -rf "$PKG"
"$VKML_WASM_BINDGEN" --target web --weak-refs --out-dir "$PKG" --out-name vkml_web \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/vkml_web.wasm"
WASM_OPT="$VKML_NODE_TOOLS/node_modules/.bin/wasm-opt"
if [ -x "$WASM_OPT" ]; then
  "$WASM_OPT" -O2 --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$PKG/vkml_web_bg.wasm" -o "$PKG/vkml_web_bg.opt.wasm"
  mv "$PKG/vkml_web_bg.opt.wasm" "$PKG/vkml_web_bg.wasm"
fi
rm -f "$PKG/.gitignore" "$PKG/package.json"
# The licenses travel in the package (npm includes only a root LICENSE by itself; the manifest lists these).
cp LICENSE-MIT LICENSE-APACHE "$PKG/"
OUTDIR="$(mkdir -p "${1:-$ROOT/.whl}" && cd "${1:-$ROOT/.whl}" && pwd)"
rm -f "$OUTDIR"/vkml-*.tgz
(cd npm && npm pack -q --pack-destination "$OUTDIR" >/dev/null)
printf 'npm package: %s (vkml_web_bg.wasm %s bytes)\n' "$(ls "$OUTDIR"/vkml-*.tgz)" "$(stat -c %s "$PKG/vkml_web_bg.wasm")"
