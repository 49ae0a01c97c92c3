#!/usr/bin/env bash
# A/B: main (resend14-base) against the branch (resend14), alternating, count receiver x3 and fix receiver x1 per cell.
declare -A D=([before]=/work/wt/resend14-base/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll [after]=/work/wt/resend14/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll)
echo "window start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # build n mode receiver
  echo "== $1 n=$2 mode=$3 receiver=$4 $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  dotnet ${D[$1]} store --resend-stall --dir /work/tmp/resend14/rs --messages $2 --receiver $4 --mode $3 2>&1 | grep -E "^resend:|^probe B|count reader"
}
for n in 1000000 100000; do for mode in Dedicated BusyPoll; do
  for rep in 1 2 3; do
    if [ $rep = 2 ]; then run after $n $mode count; run before $n $mode count; else run before $n $mode count; run after $n $mode count; fi
  done
  run before $n $mode fix; run after $n $mode fix
done; done
echo "window end $(date -u +%T)"
