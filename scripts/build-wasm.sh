#!/usr/bin/env bash
# Builds both WebAssembly flavours into wasm/dist (SIMD128 and scalar).
set -euo pipefail
cd "$(dirname "$0")/.."
for flavour in simd scalar; do
  cmake --preset "wasm-$flavour" >/dev/null
  cmake --build --preset "wasm-$flavour"
done
