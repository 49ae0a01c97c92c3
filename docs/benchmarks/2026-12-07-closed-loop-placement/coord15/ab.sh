#!/bin/bash
# Alternating A/B of the issue-32 side-by-side: base = 53bc423 (session start), main = this session's main.
out=/work/tmp/ab15
for i in 1 2 3; do
  if [ $((i % 2)) = 1 ]; then order="base main"; else order="main base"; fi
  for b in $order; do
    if [ $b = base ]; then dir=/work/wt/agent15-base; else dir=/work/main; fi
    echo "== $b run $i start $(date -u +%H:%M:%S)"
    (cd $dir && dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll roundtrip --configs qfcpp-qfcpp,qfcpp-fixengine,fixengine-qfcpp,session-default-mem-2proc --rates 2000,10000,max --runs 1 --measured 10000 --seconds 8 --warmup 20000 --out $out/$b-$i) > $out/$b-$i.log 2>&1
    echo "== $b run $i end $(date -u +%H:%M:%S) rc $?"
  done
done
