#!/usr/bin/env bash
# Every test: installs what is missing, builds the native core, its sanitizer build and both WebAssembly
# flavours, then runs CTest: the Catch2 suites (native and sanitizer builds), the wasm API under Node, the
# TypeScript declarations, the Python notebooks (and every step's script run by PyTorch), then the site built
# by Vite and tried in Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
phase() { echo "test.sh: $1 ($((SECONDS - started)) s in)"; }

scripts/setup.sh
phase "set up"

# The builds are independent of each other: they run side by side, so that one build's serial stretches
# (configuring, linking, wasm-opt, the sanitizer build's tests) overlap the others' compiles. Two jobs each:
# together they keep both cores busy without a dozen compilers at once. Each writes build/<name>.log,
# printed if it fails.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
mkdir -p build
sanitize() { cmake --workflow --preset sanitize; }
wasm() { scripts/build-wasm.sh; }
native() { cmake --preset native && cmake --build --preset native; }
# Runs one of them into its log and says how long it took.
logged() {
  local since=$SECONDS status=0
  "$1" >"build/$1.log" 2>&1 || status=$?
  echo "test.sh: $1 took $((SECONDS - since)) s"
  return "$status"
}
names=(sanitize wasm native)
pids=()
for name in "${names[@]}"; do
  logged "$name" &
  pids+=($!)
done
failed=0
for i in "${!names[@]}"; do
  if ! wait "${pids[$i]}"; then
    failed=1
    echo "test.sh: ${names[$i]} failed; its output (build/${names[$i]}.log):" >&2
    cat "build/${names[$i]}.log" >&2
  fi
done
phase "built"
# The sanitizer build's test summary.
grep -E 'tests passed|tests failed|Total Test time' build/sanitize.log || true
((failed == 0))

ctest --preset native
phase "all tests passed"
