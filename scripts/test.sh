#!/usr/bin/env bash
# Every test: installs what is missing, builds the native core, its sanitizer build and both WebAssembly
# flavours, then runs CTest: the Catch2 suites (native and sanitizer builds), the wasm API under Node, the
# TypeScript declarations, the Python notebooks (and every step's script run by PyTorch), then the site built
# by Vite and tried in Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cmake --workflow --preset sanitize
scripts/build-wasm.sh
cmake --workflow --preset native
