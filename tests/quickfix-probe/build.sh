#!/usr/bin/env bash
# Builds qfvalidate against Debian's libquickfix-dev (installing it and g++ when missing). Output: build/qfvalidate (printed) and build/qfat.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
need=()
[ -f /usr/include/quickfix/DataDictionary.h ] || need+=(libquickfix-dev)
command -v g++ >/dev/null 2>&1 || need+=(g++)
if [ ${#need[@]} -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y "${need[@]}"
fi
mkdir -p "$here/build"
# C++14: QuickFIX 1.15's headers use dynamic exception specifications, removed in C++17.
g++ -std=c++14 -O1 -Wall -Wextra -Werror -Wno-deprecated -o "$here/build/qfvalidate" "$here/qfvalidate.cpp" -lquickfix -lpthread
g++ -std=c++14 -O1 -Wall -Wextra -Werror -Wno-deprecated -o "$here/build/qfat" "$here/qfat.cpp" -lquickfix -lpthread
echo "$here/build/qfvalidate"
