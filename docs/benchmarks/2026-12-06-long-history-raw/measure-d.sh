#!/usr/bin/env bash
# Issue 35: resend at disk speed (branch resend12). Before: main 2927c51 + the count-receiver harness (7d9cdba) in
# /work/wt/resend12-base; after: the branch. Alternating builds; both receivers; 100,000 and 1,000,000 messages.
set -u
B=/work/wt/resend12-base/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
A=/work/wt/resend12/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
D=/work/tmp/resend12/rs
echo "== window start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3; do
 for n in 100000 1000000; do
  for r in count fix; do
   for side in before after; do
    dll=$B; [ $side = after ] && dll=$A
    echo "== $side Dedicated $r $n run $i $(date -u +%H:%M:%S)"
    dotnet $dll store --resend-stall --dir $D --messages $n --receiver $r --baseline-ms 1000 2>/dev/null
   done
  done
 done
done
for i in 1 2; do
 for n in 100000 1000000; do
   for side in before after; do
    dll=$B; [ $side = after ] && dll=$A
    echo "== $side BusyPoll count $n run $i $(date -u +%H:%M:%S)"
    dotnet $dll store --resend-stall --dir $D --messages $n --receiver count --mode BusyPoll --baseline-ms 1000 2>/dev/null
   done
 done
done
echo "== window end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
