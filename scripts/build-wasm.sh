#!/usr/bin/env bash
# Builds the WebAssembly flavours into wasm/dist: SIMD128, SIMD128 on pthreads, and scalar.
set -euo pipefail
cd "$(dirname "$0")/.."
for flavour in simd simd-threads scalar; do
  cmake --preset "wasm-$flavour" >/dev/null
  cmake --build --preset "wasm-$flavour"
done
