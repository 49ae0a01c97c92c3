#!/usr/bin/env bash
# Window 3: the CRC alone (serial chain vs three runs, same process), then ReplayStepBenchmarks with longer warm-up
# (15 warm-up and 15 measured iterations, so every method has reached its last tier) alternating.
declare -A W=([before]=/work/wt/resend15-base [after]=/work/wt/resend15)
dll=benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
echo "window start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
dotnet /work/tmp/resend15/crcbench/bin/Release/net10.0/crcbench.dll
for b in before after before after; do
  echo "== bdn $b $(date -u +%T)"
  (cd ${W[$b]} && timeout 400 dotnet $dll --filter '*ReplayStepBenchmarks*' --job short --inProcess --warmupCount 15 --iterationCount 15 2>&1 | grep -E "^\| *(Method|Resend)" | tail -2)
done
echo "window end $(date -u +%T)"
