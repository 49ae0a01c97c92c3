#!/usr/bin/env bash
# Issue 35 A: resident index, before (main e62bc67) / after (store8), alternating, one journal shared.
set -u
BEFORE=/work/wt/store8-base/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
AFTER=/work/wt/store8/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
D=/work/tmp/store8/lh
echo "== window start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== after (write + reopens)"; dotnet $AFTER store --dir $D --count 10000000 --reopens 3 --keep
for i in 1 2; do
  echo "== before $i $(date -u +%H:%M:%S)"; dotnet $BEFORE store --dir $D --count 10000000 --reopens 3 --keep --skip-write
  echo "== after $i $(date -u +%H:%M:%S)"; dotnet $AFTER store --dir $D --count 10000000 --reopens 3 --keep --skip-write
done
echo "== window end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
ls -l $D
