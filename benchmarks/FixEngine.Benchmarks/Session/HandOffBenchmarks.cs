using System;
using System.Threading;
using BenchmarkDotNet.Attributes;
using FixEngine.Benchmarks.Collections;
using FixEngine.Codec;
using FixEngine.Session;

namespace FixEngine.Benchmarks.Session;

/// <summary>Cost per message of handing an order to a session from other threads: the multi-producer hand-off behind
/// <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
/// (the producers' lock, then the record encoded into the SPSC ring) against the same record write without the lock (what
/// an opt-in single-producer path would run), uncontended and with two producer threads.</summary>
/// <remarks>
/// <para>Each invocation hands over <see cref="Messages"/> NewOrderSingle bodies (five fields, as in the round-trip
/// benchmarks) and then drains them on the benchmark thread (TryRead, parse, Release: the consumer's own share, the same in
/// every row). The engine's numbering, store and send, which follow in a real session, are not included: this is the
/// hand-off alone. TwoProducersContended: a second thread (parked between invocations, woken at the start of each) hands
/// over as many messages at the same time, under the same lock; reported per message of both threads.</para>
/// <para>Run: <c>dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll --filter '*HandOffBenchmarks*' --job short</c>.
/// Results: docs/benchmarks/hostile-input.md, "One session, several sending threads".</para>
/// </remarks>
[MemoryDiagnoser]
public class HandOffBenchmarks
{
    /// <summary>Messages per producer per invocation (the ring holds all of them, so no producer ever waits for the drain).</summary>
    public const int Messages = 20_000;

    private const int RingBytes = 1 << 24;
    private SendHandOff _handOff = null!;
    private BackgroundWorker _second = null!;
    private int _maxRecord;

    [GlobalSetup]
    public void Setup()
    {
        _handOff = new SendHandOff(RingBytes, initialCapacityBytes: RingBytes);
        _maxRecord = _handOff.MaxRecordLength;
        _second = new BackgroundWorker("second-producer", SecondProducer);
    }

    [GlobalCleanup]
    public void Cleanup() => _second.Dispose();

    [Benchmark(Baseline = true, OperationsPerInvoke = Messages)]
    public long SingleProducerNoLock()
    {
        for (long i = 0; i < Messages; i++)
        {
            if (!_handOff.TryWriteUnsynchronized(MsgTypes.NewOrderSingle, i, in i, Order, _maxRecord)) Fail();
        }
        return Drain(Messages);
    }

    [Benchmark(OperationsPerInvoke = Messages)]
    public long MultiProducerLockUncontended()
    {
        for (long i = 0; i < Messages; i++)
        {
            if (!_handOff.TryHandOver(MsgTypes.NewOrderSingle, i, in i, Order, _maxRecord)) Fail();
        }
        return Drain(Messages);
    }

    [Benchmark(OperationsPerInvoke = 2 * Messages)]
    public long TwoProducersContended()
    {
        _second.Start();
        for (long i = 0; i < Messages; i++)
        {
            if (!_handOff.TryHandOver(MsgTypes.NewOrderSingle, i, in i, Order, _maxRecord)) Fail();
        }
        _second.WaitDone();
        return Drain(2 * Messages);
    }

    private void SecondProducer()
    {
        for (long i = 0; i < Messages; i++)
        {
            if (!_handOff.TryHandOver(MsgTypes.NewOrderSingle, i, in i, Order, _maxRecord)) Fail();
        }
    }

    private long Drain(int expected)
    {
        long sum = 0;
        int read = 0;
        while (_handOff.TryRead(out ReadOnlySpan<byte> record))
        {
            SendHandOff.Parse(record, out _, out long token, out ReadOnlySpan<byte> fields);
            sum += token + fields.Length;
            _handOff.Release();
            read++;
        }
        if (read != expected) Fail();
        return sum;
    }

    private static void Fail() => throw new InvalidOperationException("the hand-off refused or lost a message: the benchmark is not measuring what it says");

    private static void Order(ref FixWriter w, scoped in long id)
    {
        w.Write(FixTags.ClOrdID, id);
        w.Write(FixTags.Symbol, "EURUSD"u8);
        w.Write(FixTags.Side, '1');
        w.Write(FixTags.OrderQty, 100);
        w.Write(FixTags.OrdType, '1');
    }
}
