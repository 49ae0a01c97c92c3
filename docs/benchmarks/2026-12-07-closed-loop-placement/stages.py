import re, sys, collections, statistics
# perf sched timehist -w: per round trip stages in the last second of the run's measured window
sw = re.compile(r'^\s*([\d.]+) \[(\d+)\]\s+(\S+?)(?:\[(\d+)(?:/(\d+))?\])?\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$')
aw = re.compile(r'^\s*([\d.]+) \[(\d+)\]\s+(\S+?)(?:\[(\d+)(?:/(\d+))?\])?\s+awakened: (\S+?)\[(\d+)(?:/(\d+))?\]')
def tid_of(name, a, b): return name if a is None else a
def main(path, acc_pat, ini_pat, sender_comm='dotnet', acc_tid=None, ini_tid=None):
    events = []
    for l in open(path):
        m = aw.match(l)
        if m:
            t, cpu, wk, wt, wp, we, et, ep = m.groups()
            events.append(('w', float(t), int(cpu), wk, wt, we, et)); continue
        m = sw.match(l)
        if m:
            t, cpu, task, tid, pid, wait, sd, run = m.groups()
            events.append(('s', float(t), int(cpu), task, tid, float(wait), float(sd), float(run)))
    # identify threads: acceptor rx = most-woken thread matching acc_pat; initiator rx = most-woken matching ini_pat woken by acceptor
    cnt = collections.Counter((e[5], e[6]) for e in events if e[0] == 'w')
    if acc_tid:
        acc = max((k for k in cnt if k[1]==acc_tid), key=cnt.get); ini = max((k for k in cnt if k[1]==ini_tid), key=cnt.get)
    else:
        acc = max((k for k in cnt if re.match(acc_pat, k[0])), key=cnt.get)
        ini = max((k for k in cnt if re.match(ini_pat, k[0]) and k != acc), key=cnt.get)
    snd_w = [e for e in events if e[0]=='w' and e[6] == acc[1]]
    end = snd_w[-1][1]; start = end - 1.2; end -= 0.2
    # switch-in times of a thread: from switch-out lines t - run
    def swins(th):
        r = []
        for e in events:
            if e[0]=='s' and e[4] == th[1]:
                r.append((e[1]-e[7]/1000, e[1], e[2], e[6]/1000))  # in, out, cpu, sched delay
        return r
    acc_s = swins(acc); ini_s = swins(ini)
    import bisect
    acc_in = [x[0] for x in acc_s]; ini_in = [x[0] for x in ini_s]
    wakes_acc = [e for e in snd_w if start <= e[1] <= end]
    wakes_ini = [e for e in events if e[0]=='w' and e[6] == ini[1] and start <= e[1] <= end+0.01]
    wi_t = [e[1] for e in wakes_ini]
    st = collections.defaultdict(list); place = collections.Counter(); wakers = collections.Counter()
    sender_cpu = collections.Counter()
    for i in range(len(wakes_acc)-1):
        t0 = wakes_acc[i][1]; t4 = wakes_acc[i+1][1]
        wakers[wakes_acc[i][3]] += 1
        j = bisect.bisect_left(acc_in, t0)
        if j >= len(acc_s): break
        t1, _, acpu, _ = acc_s[j]
        k = bisect.bisect_left(wi_t, t1)
        if k >= len(wakes_ini) or wakes_ini[k][1] > t4: continue
        t2 = wakes_ini[k][1]
        m = bisect.bisect_left(ini_in, t2)
        if m >= len(ini_s): continue
        t3, _, icpu, _ = ini_s[m]
        if t3 > t4: continue
        st['acc wake'].append(t1-t0); st['acc work to reply'].append(t2-t1); st['ini wake'].append(t3-t2); st['ini work + next send'].append(t4-t3); st['round'].append(t4-t0)
        place[(wakes_acc[i][2], acpu, icpu)] += 1
    print(path, 'acceptor', acc, 'initiator', ini, 'rounds', len(st['round']))
    for k, v in st.items():
        v = sorted(v); print(f'   {k:22s} p50 {1e6*v[len(v)//2]:7.1f} µs   p90 {1e6*v[int(len(v)*.9)]:7.1f}')
    print('   placement (cpu of the acceptor waker, acceptor, initiator):', place.most_common(4))
    print('   acceptor woken by:', wakers.most_common(3))
if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], sys.argv[3], 'dotnet', *(sys.argv[4:6] if len(sys.argv)>5 else (None,None)))
