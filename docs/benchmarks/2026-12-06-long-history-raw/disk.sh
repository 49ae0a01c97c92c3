#!/usr/bin/env bash
# Disk speed on this machine: sequential read of the 10M-message journal (3,120,000,080 B), cold and warm page cache.
J=/work/tmp/resend12/lh/FIX.4.4_SELLSIDE-_BUYSIDE.journal
echo "== window start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3; do
  sync; echo 3 > /proc/sys/vm/drop_caches
  echo "== cold $i (drop_caches=3), dd bs=1M"; dd if=$J of=/dev/null bs=1M 2>&1 | tail -1
  echo "== warm $i, dd bs=1M"; dd if=$J of=/dev/null bs=1M 2>&1 | tail -1
  echo "== warm $i, dd bs=64K (the store's read window)"; dd if=$J of=/dev/null bs=64K 2>&1 | tail -1
done
sync; echo 3 > /proc/sys/vm/drop_caches
echo "== cold, O_DIRECT bs=1M"; dd if=$J of=/dev/null bs=1M iflag=direct 2>&1 | tail -1
echo "== window end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
