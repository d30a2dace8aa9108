#!/usr/bin/env bash
# Every test: installs what is missing, builds the native core, its sanitizer build and both WebAssembly
# flavours, then runs CTest (Catch2 suites, the wasm API under Node, the TypeScript declarations).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cmake --workflow --preset sanitize
scripts/build-wasm.sh
cmake --workflow --preset native
