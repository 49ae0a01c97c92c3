#!/usr/bin/env bash
# A/B: main (resend15-base) against the branch (resend15), alternating, count receiver x3 and fix receiver x1 per cell;
# then the disk: a 1 GiB file read with O_DIRECT (bypasses the page cache: the disk as a cold read sees it, without
# dropping the shared machine's caches) and through the page cache.
declare -A D=([before]=/work/wt/resend15-base/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll [after]=/work/wt/resend15/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll)
echo "window start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # build n mode receiver
  echo "== $1 n=$2 mode=$3 receiver=$4 $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  timeout 120 dotnet ${D[$1]} store --resend-stall --dir /work/tmp/resend15/rs --messages $2 --receiver $4 --mode $3 2>&1 | grep -E "^resend:|^probe B|count reader"
}
for n in 1000000 100000; do for mode in Dedicated BusyPoll; do
  for rep in 1 2 3; do
    if [ $rep = 2 ]; then run after $n $mode count; run before $n $mode count; else run before $n $mode count; run after $n $mode count; fi
  done
  run before $n $mode fix; run after $n $mode fix
done; done
echo "== disk $(date -u +%T)"
f=/work/tmp/resend15/blob
dd if=/dev/urandom of=$f bs=1M count=1024 status=none; sync
for r in 1 2; do dd if=$f of=/dev/null bs=1M iflag=direct 2>&1 | tail -1; done
for r in 1 2; do dd if=$f of=/dev/null bs=64K 2>&1 | tail -1; done
rm -f $f
echo "window end $(date -u +%T)"
