#!/usr/bin/env bash
# Issue 35: resend of 1,000,000 messages (tiering settled), before (main 8617d92) / after (store9), alternating.
set -u
BEFORE=/work/wt/store9-base/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
AFTER=/work/wt/store9/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
D=/work/tmp/store9/rs
echo "== window start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2; do
  for mode in BusyPoll Dedicated; do
    echo "== before $mode 1M $i $(date -u +%H:%M:%S)"; dotnet $BEFORE store --resend-stall --dir $D --messages 1000000 --mode $mode 2>/dev/null
    echo "== after $mode 1M $i $(date -u +%H:%M:%S)"; dotnet $AFTER store --resend-stall --dir $D --messages 1000000 --mode $mode 2>/dev/null
  done
done
echo "== window end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
