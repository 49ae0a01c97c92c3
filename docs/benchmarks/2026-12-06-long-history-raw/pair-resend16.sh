#!/usr/bin/env bash
# pair.sh FIRST SECOND N MODE : two resend-stall runs (count receiver) in one window
for b in $1 $2; do
  w=/work/wt/resend16; [ $b = before ] && w=/work/wt/resend16-base
  echo "== $b n=$3 mode=$4 $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  timeout 120 dotnet $w/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll store --resend-stall --dir /work/tmp/resend-resend16 --messages $3 --receiver count --mode $4 2>&1 | grep -E "^resend:|^probe B|^store:"
done
