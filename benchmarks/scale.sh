#!/usr/bin/env bash
# Launcher of the scale benchmark: raises the open-files limit (each of the N sessions holds a descriptor in the
# acceptor process and another in the initiators' process; the limit is per process and inherited by the acceptor
# child), builds the harness and runs `scale` with the arguments given (benchmarks/FixEngine.Benchmarks/Scale/README.md).
#   bash benchmarks/scale.sh --sessions 1,10,100,1000,10000 --acceptors fixengine-mem,fixengine-file
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hard="$(ulimit -Hn)"
want=65536
if [ "$hard" != "unlimited" ] && [ "$hard" -lt "$want" ]; then want="$hard"; fi
ulimit -n "$want" || echo "scale.sh: could not raise ulimit -n to $want (now $(ulimit -n))" >&2
# --pool-spin-limit N sets the thread pool's spin in the acceptor child; the initiators' process (the harness) reads the
# same runtime setting from its environment when its pool starts, so it is exported here.
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; i++)); do
  if [ "${args[i]}" = "--pool-spin-limit" ]; then export DOTNET_ThreadPool_UnfairSemaphoreSpinLimit="${args[i+1]}"; fi
done
dotnet build -c Release --nologo -v q "$root/benchmarks/FixEngine.Benchmarks" >/dev/null
exec dotnet "$root/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll" scale "$@"
