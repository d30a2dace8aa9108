#!/usr/bin/env bash
# Installs what the build and the tests need: Debian's packages (when missing) and the npm packages of
# package-lock.json. Safe to run again. Run as root (or with sudo available) on Debian 12.
set -euo pipefail
cd "$(dirname "$0")/.."

# python3-torch is PyTorch itself: the test that runs each step's "Copy as PyTorch" script with it, and the
# scripts that generate the golden fixtures (tests/golden/).
packages=(cmake ninja-build g++ libxsimd-dev catch2 nlohmann-json3-dev emscripten nodejs npm chromium python3-torch)

missing=()
for p in "${packages[@]}"; do
  # A Node.js that is already on PATH (of any origin) will do.
  if [[ $p == nodejs || $p == npm ]] && command -v "${p/nodejs/node}" >/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm packages, exactly as the lockfile says.
npm ci --no-audit --no-fund --loglevel=error
