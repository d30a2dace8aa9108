#!/usr/bin/env bash
# Builds the WebAssembly flavours into wasm/dist: SIMD128, SIMD128 on pthreads, and scalar.
# The three are independent: they build side by side, so that one flavour's long serial link (emcc and
# wasm-opt use one core) overlaps the others' compiles. Each flavour's output goes to build/wasm-<flavour>.log
# and is printed if it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
flavours=(simd simd-threads scalar)
mkdir -p build

build_flavour() {
  cmake --preset "wasm-$1" >/dev/null && cmake --build --preset "wasm-$1"
}

pids=()
for flavour in "${flavours[@]}"; do
  build_flavour "$flavour" >"build/wasm-$flavour.log" 2>&1 &
  pids+=($!)
done

failed=()
for i in "${!flavours[@]}"; do
  wait "${pids[$i]}" || failed+=("${flavours[$i]}")
done
for flavour in "${flavours[@]}"; do
  if [[ " ${failed[*]} " == *" $flavour "* ]]; then
    echo "build-wasm: the $flavour flavour failed:" >&2
    cat "build/wasm-$flavour.log" >&2
  else
    linked=$(grep -o '[^ ]*\.mjs$' "build/wasm-$flavour.log" | tail -n 1 || true)
    if [[ -n $linked ]]; then echo "build-wasm: $flavour built: $linked"; else echo "build-wasm: $flavour up to date"; fi
  fi
done
((${#failed[@]} == 0))
