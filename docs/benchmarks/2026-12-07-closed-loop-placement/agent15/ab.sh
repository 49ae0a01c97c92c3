#!/usr/bin/env bash
# ab.sh TREE NAME
cd $1 && dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll roundtrip --configs floor,session-default-mem-2proc,session-default-mem-1proc --rates 10000,max --runs 3 --measured 10000 --seconds 8 --warmup 20000 --out /work/tmp/agent15/$2 > /work/tmp/agent15/$2.txt 2>&1
