#!/usr/bin/env bash
# The main job: installs what is missing and builds everything.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cmake --preset native
cmake --build --preset native
echo "built: build/native"
