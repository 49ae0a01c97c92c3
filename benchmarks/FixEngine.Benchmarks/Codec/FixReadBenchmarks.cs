using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using BenchmarkDotNet.Attributes;
using FixEngine.Codec;

namespace FixEngine.Benchmarks.Codec;

/// <summary>Inbound path: framing, then framing + indexing + reading 10 fields, against a naive string parse.</summary>
[MemoryDiagnoser]
public class FixReadBenchmarks
{
    private byte[] _message = [];
    private readonly FixMessageIndex _index = new();

    [Params("Heartbeat", "NewOrderSingle", "ExecutionReport")]
    public string Message { get; set; } = "";

    [GlobalSetup]
    public void Setup()
    {
        _message = CodecBenchmarkMessages.Get(Message);
        if (!FixFramer.Frame(_message, 4096).IsComplete) throw new InvalidOperationException("bad sample");
    }

    /// <summary>BCL baseline: ASCII string, Split on SOH into Dictionary&lt;int,string&gt;, then the same 10 reads.</summary>
    [Benchmark(Baseline = true)]
    public long NaiveStringParseRead10()
    {
        string text = Encoding.ASCII.GetString(_message);
        var fields = new Dictionary<int, string>();
        foreach (string field in text.Split('\u0001', StringSplitOptions.RemoveEmptyEntries))
        {
            int eq = field.IndexOf('=');
            fields[int.Parse(field.AsSpan(0, eq), CultureInfo.InvariantCulture)] = field.Substring(eq + 1);
        }
        long acc = 0;
        if (fields.TryGetValue(FixTags.MsgSeqNum, out string? s)) acc += int.Parse(s, CultureInfo.InvariantCulture);
        if (fields.TryGetValue(FixTags.SenderCompID, out s)) acc += s.Length;
        if (fields.TryGetValue(FixTags.TargetCompID, out s)) acc += s.Length;
        if (fields.TryGetValue(FixTags.SendingTime, out s)) acc += DateTime.ParseExact(s, "yyyyMMdd-HH:mm:ss.fff", CultureInfo.InvariantCulture).Ticks;
        if (fields.TryGetValue(FixTags.ClOrdID, out s)) acc += s.Length;
        if (fields.TryGetValue(FixTags.Symbol, out s)) acc += s.Length;
        if (fields.TryGetValue(FixTags.Side, out s)) acc += s[0];
        if (fields.TryGetValue(FixTags.OrderQty, out s)) acc += (long)decimal.Parse(s, CultureInfo.InvariantCulture);
        if (fields.TryGetValue(FixTags.Price, out s)) acc += (long)decimal.Parse(s, CultureInfo.InvariantCulture);
        if (fields.TryGetValue(FixTags.OrdType, out s)) acc += s[0];
        return acc;
    }

    [Benchmark]
    public int Frame() => FixFramer.Frame(_message, 4096).Length;

    [Benchmark]
    public int FrameAndIndex()
    {
        FrameResult frame = FixFramer.Frame(_message, 4096);
        _index.Parse(_message.AsSpan(0, frame.Length));
        return _index.Count;
    }

    [Benchmark]
    public long FrameIndexRead10()
    {
        FrameResult frame = FixFramer.Frame(_message, 4096);
        ReadOnlySpan<byte> bytes = _message.AsSpan(0, frame.Length);
        _index.Parse(bytes);
        FixMessage m = _index.Bind(bytes);
        long acc = 0;
        if (m.TryGetInt(FixTags.MsgSeqNum, out int seq) == FixValueStatus.Ok) acc += seq;
        if (m.TryGetSpan(FixTags.SenderCompID, out ReadOnlySpan<byte> span)) acc += span.Length;
        if (m.TryGetSpan(FixTags.TargetCompID, out span)) acc += span.Length;
        if (m.TryGetTimestamp(FixTags.SendingTime, out long ns) == FixValueStatus.Ok) acc += ns;
        if (m.TryGetSpan(FixTags.ClOrdID, out span)) acc += span.Length;
        if (m.TryGetSpan(FixTags.Symbol, out span)) acc += span.Length;
        if (m.TryGetChar(FixTags.Side, out char c) == FixValueStatus.Ok) acc += c;
        if (m.TryGetDecimal(FixTags.OrderQty, out FixDecimal d) == FixValueStatus.Ok) acc += d.Mantissa;
        if (m.TryGetDecimal(FixTags.Price, out d) == FixValueStatus.Ok) acc += d.Mantissa;
        if (m.TryGetChar(FixTags.OrdType, out c) == FixValueStatus.Ok) acc += c;
        return acc;
    }
}
