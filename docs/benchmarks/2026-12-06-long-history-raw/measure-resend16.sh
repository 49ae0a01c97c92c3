#!/usr/bin/env bash
echo "sitting start $(date -u +%T); before = main $(git -C /work/wt/resend16-base rev-parse --short HEAD), after = resend16 $(git -C /work/wt/resend16 rev-parse --short HEAD)"
for n in 1000000 100000; do for mode in Dedicated BusyPoll; do
  /work/bin/quiet.sh /work/tmp/r16/pair.sh before after $n $mode
  /work/bin/quiet.sh /work/tmp/r16/pair.sh after before $n $mode
  /work/bin/quiet.sh /work/tmp/r16/pair.sh before after $n $mode
done; done
/work/bin/quiet.sh bash -c 'echo "== disk $(date -u +%T)"; f=/work/tmp/resend-resend16/blob; dd if=/dev/urandom of=$f bs=1M count=1024 status=none; sync; for r in 1 2; do dd if=$f of=/dev/null bs=1M iflag=direct 2>&1 | tail -1; done; for r in 1 2; do dd if=$f of=/dev/null bs=64K 2>&1 | tail -1; done; rm -f $f'
echo "sitting end $(date -u +%T)"
