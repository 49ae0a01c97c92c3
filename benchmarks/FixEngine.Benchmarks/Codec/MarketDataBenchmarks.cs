using System;
using BenchmarkDotNet.Attributes;
using FixEngine.Codec;

namespace FixEngine.Benchmarks.Codec;

/// <summary>Large messages: encoding and parsing a MarketDataSnapshotFullRefresh (35=W) with 100 and 1,000 book entries
/// in its NoMDEntries group (<see cref="MarketDataSnapshot"/>). Parse frames, indexes and reads every entry's type,
/// price and size through the group view. Both allocate nothing once the index exists (its capacity is the message's
/// field count: 4,011 for 1,000 entries, above the 1,024-field default).</summary>
[MemoryDiagnoser]
public class MarketDataBenchmarks
{
    private readonly UtcTimestampCache _cache = new();
    private readonly long _nowNs = CodecBenchmarkMessages.TransactTimeNs + 5_000_000;
    private byte[] _buffer = [];
    private byte[] _message = [];
    private FixMessageIndex _index = null!;

    [Params(100, 1000)]
    public int Entries { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _buffer = new byte[MarketDataSnapshot.MaxLength(Entries)];
        int length = MarketDataSnapshot.Encode(_buffer, Entries, 4711, _nowNs, _cache);
        if (length == 0) throw new InvalidOperationException("the snapshot does not fit its buffer");
        _message = _buffer.AsSpan(0, length).ToArray();
        _index = new FixMessageIndex(MarketDataSnapshot.FieldCount(Entries));
        long sum = MarketDataSnapshot.Parse(_message, _index);
        if (sum != MarketDataSnapshot.ExpectedParseSum(Entries) || _index.Count != MarketDataSnapshot.FieldCount(Entries))
        {
            throw new InvalidOperationException($"the snapshot parses to {sum} over {_index.Count} fields; expected {MarketDataSnapshot.ExpectedParseSum(Entries)} over {MarketDataSnapshot.FieldCount(Entries)}");
        }
    }

    [Benchmark]
    public int EncodeSnapshot() => MarketDataSnapshot.Encode(_buffer, Entries, 4711, _nowNs, _cache);

    [Benchmark]
    public long ParseSnapshot() => MarketDataSnapshot.Parse(_message, _index);
}
