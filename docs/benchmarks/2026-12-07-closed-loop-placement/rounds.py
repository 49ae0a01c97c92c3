import re, sys, collections, bisect
# rounds delimited by wake-ups of the initiator's receive thread; per round: did the acceptor's receive thread sleep
# (was it woken), and how long the round took; over the last second of the measured window.
aw = re.compile(r'^\s*([\d.]+) \[(\d+)\]\s+(\S+?)(?:\[(\d+)(?:/(\d+))?\])?\s+awakened: (\S+?)\[(\d+)(?:/(\d+))?\]')
path, acc, ini = sys.argv[1:4]
wa, wi = [], []
idle_wakes = 0
for l in open(path):
    m = aw.match(l)
    if not m: continue
    t = float(m.group(1)); et = m.group(7)
    if et == acc: wa.append(t)
    elif et == ini: wi.append(t)
end = wi[-1] - 0.2; start = end - 1.0
r = [t for t in wi if start <= t <= end]
rounds = []; slept = 0
for a, b in zip(r, r[1:]):
    rounds.append(b - a)
    i = bisect.bisect_left(wa, a)
    if i < len(wa) and wa[i] < b: slept += 1
rounds.sort()
print(f'{path}: rounds {len(rounds)}, p50 {1e6*rounds[len(rounds)//2]:.1f} µs, acceptor receive thread woken in {100*slept/len(rounds):.0f} % of rounds')
