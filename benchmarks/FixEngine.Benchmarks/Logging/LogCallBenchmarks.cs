using System;
using System.Diagnostics;
using System.IO;
using BenchmarkDotNet.Attributes;
using FixEngine.Logging;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.Logging;

/// <summary>
/// Caller-thread cost of one log call: FixLog (header + args written into the ring; after each batch the ring is emptied
/// unread in O(1), so the drain's work is excluded) vs the usual interpolated string written to a TextWriter.
/// <see cref="TscTimestampOnly"/> is the floor of a call with the default (full-resolution) clock; where the TSC is not
/// used it reads Stopwatch, like <see cref="StopwatchTimestampOnly"/>.
/// </summary>
[MemoryDiagnoser]
public class LogCallBenchmarks
{
    private const int Batch = 1000;
    private readonly byte[] _fixMessage = "8=FIX.4.4\u00019=5\u000135=0\u000110=123\u0001"u8.ToArray();
    private FixLog _log = null!;
    private LogProducer _producer = null!;
    private int _event;
    private int _payloadEvent;
    private TextWriter _writer = null!;
    private CachedClock _cachedClock = null!;
    private FixLog _cachedLog = null!;
    private LogProducer _cachedProducer = null!;
    private long _nowNs = HighResTime.NowNs();

    [GlobalSetup]
    public void Setup()
    {
        _log = new FixLog(TextWriter.Null, new FixLogOptions { BackgroundDrain = false });
        _event = _log.RegisterEvent("sent seq={0} len={1}");
        _payloadEvent = _log.RegisterEvent("sent seq={0}: {payload}");
        _producer = _log.CreateProducer("bench");
        Console.WriteLine("// TscClock: " + TscClock.Description);
        _writer = TextWriter.Null;
        _cachedClock = new CachedClock();
        _cachedLog = new FixLog(TextWriter.Null, new FixLogOptions { BackgroundDrain = false, Clock = _cachedClock });
        _cachedLog.RegisterEvent("sent seq={0} len={1}");
        _cachedProducer = _cachedLog.CreateProducer("bench-cached");
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _log.Dispose();
        _cachedLog.Dispose();
        _cachedClock.Dispose();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Batch)]
    public void InterpolatedTextWriter()
    {
        for (int i = 0; i < Batch; i++)
        {
            _writer.WriteLine($"{DateTime.UtcNow:O} INF [bench] sent seq={i} len={_fixMessage.Length}");
        }
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public void StringFormat()
    {
        for (int i = 0; i < Batch; i++)
        {
            _writer.WriteLine(string.Format("{0:O} INF [bench] sent seq={1} len={2}", DateTime.UtcNow, i, _fixMessage.Length));
        }
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public long FixLogTwoArgs()
    {
        for (int i = 0; i < Batch; i++)
        {
            _producer.Log(LogLevel.Information, _event, i, _fixMessage.Length);
        }
        return _log.DiscardPending();
    }

    /// <summary>Same call with the time the caller already has (an agent's nowNs): no clock read.</summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public long FixLogTwoArgsCallerTime()
    {
        long nowNs = _nowNs;
        for (int i = 0; i < Batch; i++)
        {
            _producer.LogAt(nowNs + i, LogLevel.Information, _event, i, _fixMessage.Length);
        }
        return _log.DiscardPending();
    }

    /// <summary>Same call with timestamps from a CachedClock (one load instead of a Stopwatch read).</summary>
    [Benchmark(OperationsPerInvoke = Batch)]
    public long FixLogTwoArgsCachedClock()
    {
        for (int i = 0; i < Batch; i++)
        {
            _cachedProducer.Log(LogLevel.Information, 0, i, _fixMessage.Length);
        }
        return _cachedLog.DiscardPending();
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public long FixLogFixMessagePayload()
    {
        for (int i = 0; i < Batch; i++)
        {
            _producer.Log(LogLevel.Information, _payloadEvent, i, _fixMessage);
        }
        return _log.DiscardPending();
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public long TscTimestampOnly()
    {
        long sum = 0;
        for (int i = 0; i < Batch; i++)
        {
            sum += TscClock.GetTimestamp();
        }
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public long StopwatchTimestampOnly()
    {
        long sum = 0;
        for (int i = 0; i < Batch; i++)
        {
            sum += Stopwatch.GetTimestamp();
        }
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public void FixLogDisabledLevel()
    {
        for (int i = 0; i < Batch; i++)
        {
            _producer.Log(LogLevel.Debug, _event, i, _fixMessage.Length);
        }
    }
}
