#!/usr/bin/env bash
# trace1.sh NAME CONFIG PIN(none|pin)
name=$1; cfg=$2; pin=$3
perf sched record -a -o /work/tmp/mode/tr-$name.data 2>/dev/null &
pp=$!
sleep 0.3
if [ "$pin" = pin ]; then /work/tmp/mode/run3.sh /work/tmp/mode/tr-$name $cfg 1; else /work/tmp/mode/run2.sh /work/tmp/mode/tr-$name $cfg 1 none; fi
kill -INT $pp; wait $pp
