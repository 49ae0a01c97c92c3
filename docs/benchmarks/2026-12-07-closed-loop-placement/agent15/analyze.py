#!/usr/bin/env python3
# analyze.py SAMPLES T0 T1: per-thread wake-ups/s (voluntary switches) and CPU % between the samples nearest T0 and T1 (offsets in s from first sample)
import sys, collections
rows = [l.split() for l in open(sys.argv[1])]
times = sorted(set(float(r[0]) for r in rows))
t0 = times[0] + float(sys.argv[2]); t1 = times[0] + float(sys.argv[3])
a = min(times, key=lambda t: abs(t - t0)); b = min(times, key=lambda t: abs(t - t1))
snap = collections.defaultdict(dict)
for r in rows:
    snap[float(r[0])][(r[1], r[2])] = (r[3], int(r[4]), int(r[5]), int(r[6]))
dt = b - a
print(f'window {dt:.1f} s')
res = []
for k, (comm, run, vol, nv) in snap[b].items():
    if k not in snap[a]: continue
    _, run0, vol0, nv0 = snap[a][k]
    res.append((k[0], k[1], comm, (vol - vol0) / dt, (nv - nv0) / dt, (run - run0) / dt / 1e7))
for pid, tid, comm, w, n, cpu in sorted(res, key=lambda x: (x[0], -x[3])):
    if w < 0.5 and cpu < 0.05: continue
    print(f'{pid:>8} {tid:>8} {comm:<20} wake/s {w:9.0f}  invol/s {n:7.0f}  cpu% {cpu:6.1f}')
