#!/usr/bin/env bash
# The main job: installs what is missing, builds the WebAssembly module and serves the teaching page.
# The URL is printed on a line of its own; PORT sets the port (default 8080).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build-wasm.sh
exec node scripts/serve.mjs
