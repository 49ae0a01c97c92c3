#!/bin/bash
out=/work/tmp/ab15
for i in 1 2; do
  if [ $((i % 2)) = 1 ]; then order="main base"; else order="base main"; fi
  for b in $order; do
    if [ $b = base ]; then dir=/work/wt/agent15-base; else dir=/work/main; fi
    echo "== $b r2c$i start $(date -u +%H:%M:%S)"
    (cd $dir && dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll roundtrip --configs qfcpp-fixengine,session-default-mem-2proc --rates 2000 --runs 1 --measured 10000 --seconds 8 --warmup 20000 --out $out/r2c-$b-$i) > $out/r2c-$b-$i.log 2>&1
  done
done
