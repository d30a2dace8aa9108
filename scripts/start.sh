#!/usr/bin/env bash
# The main job: installs what is missing and builds everything (the native core and both WebAssembly
# flavours).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cmake --preset native
cmake --build --preset native
scripts/build-wasm.sh
echo "built: build/native (native core and tests), wasm/dist (the WebAssembly module)"
