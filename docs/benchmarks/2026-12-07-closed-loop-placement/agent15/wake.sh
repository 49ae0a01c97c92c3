#!/usr/bin/env bash
# wake.sh TREE NAME: one closed-loop run of session-default-mem-2proc with per-thread sampling
tree=$1; name=$2; out=/work/tmp/agent15/$name; mkdir -p $out
python3 /work/tmp/agent15/sample.py $out/samples.txt & sp=$!
cd $tree
dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll roundtrip --configs session-default-mem-2proc --rates max --runs 1 --measured ${3:-120000} --seconds 15 --warmup 20000 --out $out > >(while IFS= read -r l; do echo "$(date +%s.%N) $l"; done > $out/console.log) 2>&1
kill $sp
