#!/usr/bin/env bash
# Issue 35: resend of 100,000 messages, before (main 8617d92) / after (store9), alternating.
set -u
BEFORE=/work/wt/store9-base/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
AFTER=/work/wt/store9/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
D=/work/tmp/store9/rs
echo "== window start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3; do
  for mode in Dedicated BusyPoll; do
    echo "== before $mode $i $(date -u +%H:%M:%S)"; dotnet $BEFORE store --resend-stall --dir $D --messages 100000 --mode $mode 2>/dev/null
    echo "== after $mode $i $(date -u +%H:%M:%S)"; dotnet $AFTER store --resend-stall --dir $D --messages 100000 --mode $mode 2>/dev/null
  done
done
for i in 1 2; do
  echo "== before BusyPoll 1M $i $(date -u +%H:%M:%S)"; dotnet $BEFORE store --resend-stall --dir $D --messages 1000000 --mode BusyPoll 2>/dev/null
  echo "== after BusyPoll 1M $i $(date -u +%H:%M:%S)"; dotnet $AFTER store --resend-stall --dir $D --messages 1000000 --mode BusyPoll 2>/dev/null
done
echo "== window end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
