using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Timing;
using HdrHistogram;

namespace FixEngine.Benchmarks.Scale;

/// <summary>The counterparties of the scale mode: one FixEngine host in the harness process with N initiator sessions
/// CLIENT00001..N → BROKER01 (completion receive mode, so the harness itself needs no thread per session), and the
/// busy sessions' open-loop order sender.</summary>
/// <remarks>
/// Each order's ClOrdID is its intended send time (monotonic ns); a reply's latency is its arrival minus that time, so
/// a stall is charged to every order it delays. Replies arrive on the engine's completion threads: the histogram is
/// written under a lock (a few thousand replies a second). Counters are read by the harness thread.
/// </remarks>
internal sealed class ScaleInitiators : IApplication, IDisposable
{
    private readonly object _histogramLock = new();
    private readonly LongHistogram _histogram = new(1, 60_000_000_000L, 3);
    private readonly FixEngineHost _host;
    private readonly int _sessions;
    private long _recordFromNs = long.MaxValue;
    private long _recordToNs = long.MinValue;
    private long _loggedOn;
    private long _logons;
    private long _lastLogonNs;
    private long _logouts;
    private long _testRequestsReceived;
    private long _testRequestsSent;
    private long _replies;
    private long _replyErrors;
    private long _sent;
    private long _sendStartNs;
    private double _sendIntervalNs;
    private long[]? _timelineIntended;
    private long[]? _timelineLatency;
    private int _timelineCount;

    public ScaleInitiators(int sessions, int heartbeat, int acceptorPort, int sourceAddresses)
    {
        _sessions = sessions;
        SourceAddresses = sourceAddresses;
        // No prewarmed send queues (1 MiB each): the harness's footprint at 10,000 sessions is not what is measured.
        _host = new FixEngineHost(SettingsFile.Parse(Settings(sessions, heartbeat, acceptorPort, sourceAddresses), "<scale initiators>"), this,
            new EngineOptions { PrewarmConnections = false });
    }

    /// <summary>CompID of initiator <paramref name="i"/> (1-based).</summary>
    public static string CompId(int i) => "CLIENT" + i.ToString("D5", CultureInfo.InvariantCulture);

    /// <summary>k: the sessions connect from 127.0.0.1 .. 127.0.0.k (SocketLocalHost), dealt round robin.</summary>
    public int SourceAddresses { get; }

    public long LoggedOn => Volatile.Read(ref _loggedOn);

    /// <summary>Logons so far (never decremented: a session that logs on again counts again).</summary>
    public long Logons => Volatile.Read(ref _logons);

    public long LastLogonNs => Volatile.Read(ref _lastLogonNs);

    public long Logouts => Volatile.Read(ref _logouts);

    /// <summary>TestRequests the acceptor sent us (it missed a heartbeat of ours).</summary>
    public long TestRequestsReceived => Volatile.Read(ref _testRequestsReceived);

    /// <summary>TestRequests we sent (we missed a heartbeat of the acceptor's).</summary>
    public long TestRequestsSent => Volatile.Read(ref _testRequestsSent);

    public long Replies => Volatile.Read(ref _replies);

    public long ReplyErrors => Volatile.Read(ref _replyErrors);

    public long Sent => Volatile.Read(ref _sent);

    /// <summary>Orders whose intended send time has passed at <paramref name="nowNs"/> (0 before the busy window):
    /// against <see cref="Sent"/>, how far the sender is behind.</summary>
    public long Due(long nowNs)
    {
        long start = Volatile.Read(ref _sendStartNs);
        return start == 0 || nowNs < start ? 0 : 1 + (long)((nowNs - start) / Volatile.Read(ref _sendIntervalNs));
    }

    public void Start() => _host.Start();

    /// <summary>The initiators' engine agent's full sweeps and hot-list visits so far (read racily: a trace figure).</summary>
    public (long Sweeps, long HotVisits) AgentCounters() => (Volatile.Read(ref _host.Runtime.Agent.FullSweeps), Volatile.Read(ref _host.Runtime.Agent.HotVisits));

    private static string Settings(int sessions, int heartbeat, int port, int sourceAddresses)
    {
        var s = new StringBuilder(64 * sessions + 512);
        // Small stores and messages: the harness's own footprint is not what is measured, and 10,000 sessions must fit.
        // PersistMessages=N: the initiators keep no copy of their orders (nothing here resends them), so the harness
        // allocates nothing per order and its collections (blocking, over a heap of 10,000 sessions) do not stall the
        // replies whose latency is measured.
        s.Append(CultureInfo.InvariantCulture, $"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            HeartBtInt={heartbeat}
            ReconnectInterval=1
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=N
            ResetOnLogon=Y
            ReceiveMode=Completion
            StoreIndexCapacity=64
            MemoryStoreCapacityBytes=0
            PersistMessages=N
            MaxMessageSize=8192
            BeginString=FIX.4.4
            TargetCompID=BROKER01

            """);
        for (int i = 1; i <= sessions; i++)
        {
            s.Append("[SESSION]\nSenderCompID=").Append(CompId(i)).Append('\n');
            if (sourceAddresses > 1) s.Append("SocketLocalHost=127.0.0.").Append(1 + (i - 1) % sourceAddresses).Append('\n');
        }
        return s.ToString();
    }

    /// <summary>Sends orders open loop from the calling thread: <paramref name="busy"/> sessions spread over the N,
    /// <paramref name="ratePerSession"/> each, round robin, until <paramref name="endNs"/>. Between orders it sleeps
    /// (<paramref name="spin"/> false: nanosleep with a 1 µs timer slack, so the sender takes no core from the engines
    /// however short the interval) or waits as the round-trip harness does (<see cref="RoundTrip.PreciseWait.Until"/>:
    /// sleep, then yield and spin for the last 120 µs, which holds a core once the interval is shorter than that, e.g.
    /// 100 µs at 10,000 orders/s). Recording starts at
    /// <paramref name="recordFromNs"/> (orders intended before it are warm-up). Returns the orders sent.</summary>
    public long SendOrders(int busy, int ratePerSession, long recordFromNs, long endNs, bool spin, Action<long>? progress)
    {
        if (!spin) RoundTrip.PreciseWait.UseFineTimerSlack();
        var sessions = new List<FixSession>(busy);
        IReadOnlyList<FixSession> all = _host.Sessions;
        for (int k = 0; k < busy; k++) sessions.Add(all[(int)((long)k * _sessions / busy)]);
        double intervalNs = 1e9 / ((double)busy * ratePerSession);
        long startNs = HighResTime.NowNs();
        Volatile.Write(ref _sendIntervalNs, intervalNs);
        Volatile.Write(ref _sendStartNs, startNs);
        long nextProgressNs = startNs + 5_000_000_000L;
        long sent = 0;
        Volatile.Write(ref _recordToNs, endNs);
        Volatile.Write(ref _recordFromNs, recordFromNs);
        for (long n = 0; ; n++)
        {
            long dueNs = startNs + (long)(n * intervalNs);
            if (dueNs >= endNs) break;
            if (spin) RoundTrip.PreciseWait.Until(dueNs);
            else RoundTrip.PreciseWait.SleepUntil(dueNs);
            FixSession session = sessions[(int)(n % busy)];
            while (!session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, dueNs, static (ref FixWriter w, scoped in long intended) =>
            {
                w.Write(FixTags.ClOrdID, intended);
                w.Write(FixTags.Account, "ACCT0001"u8);
                w.Write(FixTags.HandlInst, '1');
                w.Write(FixTags.Symbol, "MSFT"u8);
                w.Write(FixTags.Side, '1');
                w.WriteTimestamp(FixTags.TransactTime, EpochClock.Shared.EpochNs, TimestampPrecision.Micros);
                w.Write(FixTags.OrderQty, 100L);
                w.Write(FixTags.OrdType, '2');
                w.Write(FixTags.Price, new FixDecimal(12345, 2));
                w.Write(FixTags.TimeInForce, '0');
            }))
            {
                if (!session.IsLoggedOn) break;
                Thread.Yield();
            }
            sent++;
            Volatile.Write(ref _sent, sent);
            long now = HighResTime.NowNs();
            if (now >= nextProgressNs)
            {
                nextProgressNs += 5_000_000_000L;
                progress?.Invoke(sent);
            }
        }
        return sent;
    }

    /// <summary>Keeps each measured reply's intended send time and latency (up to <paramref name="capacity"/>, allocated
    /// here, before the busy window) for <see cref="TailPlacement"/>: <c>--trace</c> only.</summary>
    public void KeepTimeline(int capacity)
    {
        lock (_histogramLock)
        {
            _timelineIntended = new long[capacity];
            _timelineLatency = new long[capacity];
            _timelineCount = 0;
        }
    }

    /// <summary>Where the slow replies were: the measured orders over <paramref name="thresholdNs"/> grouped by
    /// the <paramref name="bucketMs"/> ms of their intended send time (the monotonic clock of the trace lines' t=),
    /// one line per bucket that had any: its start in ms, how many, the largest latency, and the fastest reply in
    /// the bucket (a stall delays every order of its bucket; queueing in general delays some).</summary>
    public List<string> TailPlacement(long thresholdNs, int bucketMs, int maxLines)
    {
        var lines = new List<string>();
        lock (_histogramLock)
        {
            if (_timelineIntended is null) return lines;
            var buckets = new SortedDictionary<long, (int Slow, int All, long Max, long Min)>();
            for (int i = 0; i < _timelineCount; i++)
            {
                long b = _timelineIntended[i] / 1_000_000 / bucketMs * bucketMs;
                long l = _timelineLatency![i];
                (int slow, int all, long max, long min) = buckets.GetValueOrDefault(b, (0, 0, 0, long.MaxValue));
                buckets[b] = (slow + (l > thresholdNs ? 1 : 0), all + 1, Math.Max(max, l), Math.Min(min, l));
            }
            int slowTotal = 0;
            foreach ((long b, (int slow, int all, long max, long min)) in buckets)
            {
                if (slow == 0) continue;
                slowTotal += slow;
                if (lines.Count < maxLines)
                    lines.Add(string.Create(CultureInfo.InvariantCulture, $"t={b} slow={slow}/{all} max={max / 1000} µs min={min / 1000} µs"));
            }
            lines.Insert(0, string.Create(CultureInfo.InvariantCulture, $"{slowTotal} of {_timelineCount} measured replies over {thresholdNs / 1000} µs, in {buckets.Count(kv => kv.Value.Slow > 0)} of {buckets.Count} buckets of {bucketMs} ms"));
        }
        return lines;
    }

    /// <summary>A copy of the measured replies' histogram (orders intended inside the measured window).</summary>
    public LongHistogram Histogram()
    {
        lock (_histogramLock) return (LongHistogram)_histogram.Copy();
    }

    /// <summary>p50/p99/max so far in µs (progress lines).</summary>
    public (double P50, double P99, double Max, long Count) Snapshot()
    {
        lock (_histogramLock)
        {
            return (_histogram.GetValueAtPercentile(50) / 1000.0, _histogram.GetValueAtPercentile(99) / 1000.0, _histogram.GetMaxValue() / 1000.0, _histogram.TotalCount);
        }
    }

    public void OnLogon(FixSession session)
    {
        Volatile.Write(ref _lastLogonNs, HighResTime.NowNs());
        Interlocked.Increment(ref _loggedOn);
        Interlocked.Increment(ref _logons);
    }

    public void OnLogout(FixSession session)
    {
        Interlocked.Increment(ref _logouts);
        Interlocked.Decrement(ref _loggedOn);
    }

    public void ToAdmin(FixSession session, ReadOnlySpan<byte> msgType, ref FixWriter body)
    {
        if (msgType.SequenceEqual(MsgTypes.TestRequest)) Interlocked.Increment(ref _testRequestsSent);
    }

    public void FromAdmin(FixSession session, FixMessage message)
    {
        if (message.MsgType.SequenceEqual(MsgTypes.TestRequest)) Interlocked.Increment(ref _testRequestsReceived);
    }

    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        long now = HighResTime.NowNs();
        if (message.MsgType.SequenceEqual(MsgTypes.ExecutionReport)
            && message.TryGetLong(FixTags.ClOrdID, out long intendedNs) == FixValueStatus.Ok)
        {
            Interlocked.Increment(ref _replies);
            if (intendedNs >= Volatile.Read(ref _recordFromNs) && intendedNs < Volatile.Read(ref _recordToNs))
            {
                long latency = Math.Clamp(now - intendedNs, 1, 60_000_000_000L);
                lock (_histogramLock)
                {
                    _histogram.RecordValue(latency);
                    if (_timelineIntended is not null && _timelineCount < _timelineIntended.Length)
                    {
                        _timelineIntended[_timelineCount] = intendedNs;
                        _timelineLatency![_timelineCount++] = latency;
                    }
                }
            }
        }
        else
        {
            Interlocked.Increment(ref _replyErrors);
        }
        return FromAppResult.Accepted;
    }

    public void Dispose()
    {
        _host.Stop(TimeSpan.FromSeconds(10));
        _host.Dispose();
    }
}
