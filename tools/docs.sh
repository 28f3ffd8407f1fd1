#!/usr/bin/env bash
# The docs site, into site/: docs/ and the generated pages assembled in .site-src/ (the Python API from the module's
# docstrings and type stubs, by mkdocstrings; the JavaScript API from the package's TypeScript types and the engine's
# generated ones, by TypeDoc; torch compatibility from both libraries, by tools/torch_compat.py), built by MkDocs
# with the Material theme in strict mode, so a broken internal link or anchor fails the build; then
# tools/docs_check.py fails if a public name has no entry. Messages come from the set-up's `log`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=tools/setup.sh
VKML_SETUP_FOR=web VKML_WITH_TORCH=1 source "$ROOT/tools/setup.sh"
cd "$ROOT"

DOCS_VENV="$(tool_venv docs)"
# The module (for the generated pages and the check) and the engine's TypeScript types, where no build left them.
if [ ! -d .pyinstall/vkml ]; then
  log "building the wheel into .whl/ and .pyinstall/"
  (cd py && maturin build --profile dev -o "$ROOT/.whl" --interpreter "$VKML_VENV/bin/python" -q)
  pip install -q --no-deps --target .pyinstall .whl/pyvkml-*.whl
fi
[ -f npm/pkg/vkml_web.d.ts ] || bash tools/npm.sh

rm -rf .site-src site
mkdir -p .site-src
cp -r docs/. .site-src/
PYTHONPATH="$ROOT/.pyinstall" python tools/torch_compat.py .site-src/torch-compat.md
JS_OUT="$(mktemp -d)"
trap 'rm -rf "$JS_OUT"' EXIT
"$VKML_NODE_TOOLS/node_modules/.bin/typedoc" --plugin "$VKML_NODE_TOOLS/node_modules/typedoc-plugin-markdown/dist/index.js" \
  --entryPoints npm/index.d.ts npm/pkg/vkml_web.d.ts --out "$JS_OUT" --readme none --outputFileStrategy modules \
  --entryFileName javascript --hidePageHeader --hideBreadcrumbs --useHTMLAnchors --skipErrorChecking --logLevel Error
cp -r "$JS_OUT" .site-src/reference/javascript
NO_MKDOCS_2_WARNING=1 "$DOCS_VENV/bin/mkdocs" build --strict
PYTHONPATH="$ROOT/.pyinstall" python tools/docs_check.py
log "wrote site/ ($(find site -name '*.html' | wc -l) pages)"
