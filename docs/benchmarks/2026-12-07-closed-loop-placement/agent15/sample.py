#!/usr/bin/env python3
# sample.py OUT: every 1 s, per thread of every FixEngine.Benchmarks process: time tid comm run_ns vol nonvol
import os, sys, time
out = open(sys.argv[1], 'w')
while True:
    t = time.time()
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        try:
            cmd = open(f'/proc/{pid}/cmdline','rb').read()
        except Exception: continue
        if b'FixEngine.Benchmarks' not in cmd: continue
        try: tasks = os.listdir(f'/proc/{pid}/task')
        except Exception: continue
        for tid in tasks:
            try:
                comm = open(f'/proc/{pid}/task/{tid}/comm').read().strip().replace(' ','_')
                run = open(f'/proc/{pid}/task/{tid}/schedstat').read().split()[0]
                vol = nv = 0
                for l in open(f'/proc/{pid}/task/{tid}/status'):
                    if l.startswith('voluntary_ctxt_switches'): vol = int(l.split()[1])
                    elif l.startswith('nonvoluntary_ctxt_switches'): nv = int(l.split()[1])
                out.write(f'{t:.3f} {pid} {tid} {comm} {run} {vol} {nv}\n')
            except Exception: pass
    out.flush()
    time.sleep(0.5)
