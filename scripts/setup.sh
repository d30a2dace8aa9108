#!/usr/bin/env bash
# Installs what the build and the tests need, from Debian's packages. Safe to run again: it only
# installs what is missing. Run as root (or with sudo available) on Debian 12.
set -euo pipefail

packages=(cmake ninja-build g++ libxsimd-dev catch2 nlohmann-json3-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
