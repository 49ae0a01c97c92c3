#!/usr/bin/env bash
# Window 4: ReplayStepBenchmarks (15 warm-up, 15 measured) rotating main, the branch, the branch without the inlining
# commit (v1), the branch with the three-run CRC switched off (v2).
declare -A W=([before]=/work/wt/resend15-base [after]=/work/wt/resend15 [v1-no-inline]=/work/wt/resend15-v1 [v2-serial-crc]=/work/wt/resend15-v2)
dll=benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
echo "window start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for b in before after v1-no-inline v2-serial-crc after before v2-serial-crc v1-no-inline; do
  echo "== bdn $b $(date -u +%T)"
  (cd ${W[$b]} && timeout 400 dotnet $dll --filter '*ReplayStepBenchmarks*' --job short --inProcess --warmupCount 15 --iterationCount 15 2>&1 | grep -E "^\| *(Resend)" | tail -1)
done
echo "window end $(date -u +%T)"
