#!/usr/bin/env bash
# Builds the QuickFIX C++ round-trip peer (qfpeer) against Debian's libquickfix-dev, installing the library and a
# C++ compiler first when they are missing. Output: benchmarks/Peers/QuickFixCpp/build/qfpeer (gitignored).
# Not part of `dotnet build`: the .NET solution builds on machines without libquickfix-dev.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
need=()
[ -f /usr/include/quickfix/ThreadedSocketInitiator.h ] || need+=(libquickfix-dev)
command -v g++ >/dev/null 2>&1 || need+=(g++)
if [ ${#need[@]} -gt 0 ]; then
  echo "qfpeer: installing ${need[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y "${need[@]}"
fi
mkdir -p "$here/build"
out="$here/build/qfpeer"
if [ -x "$out" ] && [ "$out" -nt "$here/qfpeer.cpp" ] && [ "$out" -nt "$here/build.sh" ]; then
  echo "$out (up to date)"
  exit 0
fi
# C++14: QuickFIX 1.15's Application interface uses dynamic exception specifications, removed in C++17.
g++ -std=c++14 -O2 -Wall -Wextra -Werror -Wno-deprecated -o "$out.tmp" "$here/qfpeer.cpp" -lquickfix -lpthread
mv "$out.tmp" "$out"
echo "$out"
