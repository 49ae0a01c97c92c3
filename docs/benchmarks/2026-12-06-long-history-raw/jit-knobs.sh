#!/usr/bin/env bash
# Exploratory: runtime tiering knobs against a resend of 100,000 (count receiver), main's engine + the count harness.
DLL=${DLL:-/work/wt/resend12-base/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll}
D=/work/tmp/resend12/rs
echo "== window start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) dll $DLL"
for i in 1 2; do
  for knob in "" DOTNET_TieredPGO=0 DOTNET_TC_CallCountingDelayMs=0 "DOTNET_TieredPGO=0 DOTNET_TC_CallCountingDelayMs=0" DOTNET_TieredCompilation=0; do
    echo "== knobs [$knob] run $i $(date -u +%H:%M:%S)"
    env $knob dotnet $DLL store --resend-stall --dir $D --messages 100000 --receiver count --baseline-ms 500 2>/dev/null | grep -E "^resend:|during"
  done
done
echo "== window end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
