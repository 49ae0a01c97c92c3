#!/usr/bin/env bash
# run3.sh OUTDIR CONFIGS RUNS : sender (harness main thread) alone on CPU1, every other thread of every harness process on CPU0
out=$1; cfg=$2; runs=$3
mkdir -p $out
cd /work/main
dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll roundtrip --configs $cfg --rates max --runs $runs --measured 30000 --seconds 15 --warmup 20000 --out $out > >(while IFS= read -r l; do echo "$(date +%s.%N) $l"; done > $out/console.log) 2>&1 &
hp=$!
sleep 0.05
parent=$(pgrep -P $hp -f FixEngine.Benchmarks.dll || echo $hp)
declare -A done_
while kill -0 $hp 2>/dev/null; do
  for p in $(pgrep -f FixEngine.Benchmarks.dll); do
    for d in /proc/$p/task/*; do
      t=${d##*/}
      [ -n "${done_[$t]}" ] && continue
      if [ "$t" = "$p" ] && [ "$(grep -c roundtrip /proc/$p/cmdline 2>/dev/null)" != 0 ] && ! grep -q -- --acceptor-only /proc/$p/cmdline 2>/dev/null; then c=1; else c=0; fi
      taskset -p -c $c $t >/dev/null 2>&1 && done_[$t]=1
    done
  done
  sleep 0.02
done
wait $hp
