#!/usr/bin/env bash
# Every test: installs what is missing, builds, and runs CTest for the native build and the
# AddressSanitizer + UndefinedBehaviorSanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cmake --workflow --preset sanitize
cmake --workflow --preset native
