#!/usr/bin/env bash
# run2.sh OUTDIR CONFIGS RUNS PIN(none|all0|split)
out=$1; cfg=$2; runs=$3; pin=$4
mkdir -p $out
python3 /work/tmp/mode/sample.py $out/samples.txt & sp=$!
cd /work/main
pre=""; [ "$pin" = all0 ] && pre="taskset -c 0"; [ "$pin" = split ] && pre="taskset -c 0"
$pre dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll roundtrip --configs $cfg --rates max --runs $runs --measured 30000 --seconds 15 --warmup 20000 --out $out > >(while IFS= read -r l; do echo "$(date +%s.%N) $l"; done > $out/console.log) 2>&1 &
hp=$!
if [ "$pin" = split ]; then
  declare -A done_
  while kill -0 $hp 2>/dev/null; do
    for p in $(pgrep -f FixEngine.Benchmarks.dll); do
      pp=$(awk '{print $4}' /proc/$p/stat 2>/dev/null)
      if [ -n "$pp" ] && [ "$(cat /proc/$pp/comm 2>/dev/null)" = dotnet ] && [ -z "${done_[$p]}" ] && grep -q FixEngine.Benchmarks /proc/$pp/cmdline 2>/dev/null; then
        taskset -a -p -c 1 $p >/dev/null && done_[$p]=1
      fi
    done
    sleep 0.05
  done
fi
wait $hp
kill $sp
