#!/usr/bin/env bash
# Builds qfstore (QuickFIX C++'s FileStore under the long-history store harness) against Debian's libquickfix-dev,
# installing the library and a C++ compiler first when they are missing. Output: build/qfstore (gitignored).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
need=()
[ -f /usr/include/quickfix/FileStore.h ] || need+=(libquickfix-dev)
command -v g++ >/dev/null 2>&1 || need+=(g++)
if [ ${#need[@]} -gt 0 ]; then
  echo "qfstore: installing ${need[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y "${need[@]}"
fi
mkdir -p "$here/build"
out="$here/build/qfstore"
# C++14: QuickFIX 1.15's headers use dynamic exception specifications, removed in C++17.
g++ -std=c++14 -O2 -Wall -Wextra -Werror -Wno-deprecated -o "$out.tmp" "$here/qfstore.cpp" -lquickfix -lpthread
mv "$out.tmp" "$out"
echo "$out"
