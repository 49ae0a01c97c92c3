#!/usr/bin/env bash
# Issue 35, branch resend12 final state (replay back on tiered compilation, 256 messages / 128 KiB per step, short
# header values scanned byte by byte) against main + count harness; alternating; count receiver.
set -u
B=/work/wt/resend12-base/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
A=/work/wt/resend12/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
D=/work/tmp/resend12/rs
echo "== window start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3; do
 for mode in BusyPoll Dedicated; do
 for n in 100000 1000000; do
   for side in before after; do
    dll=$B; [ $side = after ] && dll=$A
    echo "== $side $mode count $n run $i $(date -u +%H:%M:%S)"
    dotnet $dll store --resend-stall --dir $D --messages $n --receiver count --mode $mode --baseline-ms 700 2>/dev/null
   done
 done
 done
done
echo "== window end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
