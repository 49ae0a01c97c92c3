#!/usr/bin/env bash
# Window 2: one perf profile per build (1,000,000, BusyPoll, count receiver), then ReplayStepBenchmarks alternating.
declare -A W=([before]=/work/wt/resend15-base [after]=/work/wt/resend15)
dll=benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
echo "window start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for b in before after; do
  echo "== perf $b $(date -u +%T)"
  DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 perf record -a -g -F 1999 -o /work/tmp/resend15/perf-$b.data -- \
    timeout 120 dotnet ${W[$b]}/$dll store --resend-stall --dir /work/tmp/resend15/rs --messages 1000000 --receiver count --mode BusyPoll 2>&1 | grep -E "^resend:|^probe B|count reader"
done
for b in before after before after; do
  echo "== bdn $b $(date -u +%T)"
  (cd ${W[$b]} && timeout 400 dotnet $dll --filter '*ReplayStepBenchmarks*' --job short --inProcess 2>&1 | grep -E "^\| *(Method|Resend|[A-Z][a-zA-Z]+ *\|)" | tail -3)
done
echo "window end $(date -u +%T)"
