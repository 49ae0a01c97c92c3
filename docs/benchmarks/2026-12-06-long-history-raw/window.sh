#!/usr/bin/env bash
# One quiet window (hist4): long history (FixEngine warm + cold, disk speed, QuickFIX C++), resend stall, 35=W codec,
# and issue 33's two benchmarks run in 4 separate processes of one build.
set -x
out=/work/tmp/hist4/results; mkdir -p $out/codec $out/md
bin=/work/wt/hist4/benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll
{ date -u; nproc; free -g | head -2; lscpu | grep "Model name"; uptime; } > $out/machine.txt
d=/work/tmp/hist4/lh; rm -rf $d; mkdir -p $d
timeout 300 dotnet $bin store --dir $d --count 10000000 --reopens 5 --keep > $out/fe-warm.txt 2> $out/fe-warm.err
ls -la $d >> $out/fe-warm.txt
j=$(ls $d/*.journal)
timeout 60 dd if="$j" of=/dev/null bs=1M count=2000 iflag=direct 2> $out/dd.txt
timeout 200 dotnet $bin store --dir $d --count 10000000 --reopens 2 --keep --skip-write --cold > $out/fe-cold.txt 2> $out/fe-cold.err
rm -rf $d
timeout 120 dotnet $bin store --resend-stall --dir /work/tmp/hist4/rs --messages 100000 > $out/resend-dedicated.txt 2> $out/resend-dedicated.err
timeout 120 dotnet $bin store --resend-stall --dir /work/tmp/hist4/rs --messages 100000 --mode BusyPoll > $out/resend-busypoll.txt 2> $out/resend-busypoll.err
rm -rf /work/tmp/hist4/rs
cd /work/tmp/hist4
timeout 200 dotnet $bin --filter '*MarketDataBenchmarks*' --inProcess --warmupCount 3 --iterationCount 10 --artifacts $out/md/fe > $out/md/fe.log 2>&1
for r in 1 2 3 4; do
  timeout 150 dotnet $bin --filter '*FixReadBenchmarks.FrameAndIndex*' '*FixWriterBenchmarks.EncodeHeartbeat*' \
    --inProcess --warmupCount 3 --iterationCount 10 --artifacts $out/codec/run-$r > $out/codec/run-$r.log 2>&1
done
q=/work/tmp/hist4/qf; rm -rf $q; mkdir -p $q
timeout 300 /work/wt/hist4/benchmarks/Peers/QuickFixCppStore/build/qfstore $q 10000000 230 3 100000 > $out/qf.txt 2> $out/qf.err
ls -la $q >> $out/qf.txt
rm -rf $q
date -u >> $out/machine.txt
