#!/usr/bin/env bash
# The main job: installs what is missing, builds the WebAssembly module and the site (dist/site and the
# single file dist/attention-lab.html), then serves dist/site. The address is printed ("Local:"); PORT sets
# the port (default 8080).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
exec npm start --silent
