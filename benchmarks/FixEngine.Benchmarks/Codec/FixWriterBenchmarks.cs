using System;
using System.Globalization;
using System.Text;
using BenchmarkDotNet.Attributes;
using FixEngine.Codec;

namespace FixEngine.Benchmarks.Codec;

/// <summary>Outbound path: encoding a NewOrderSingle and an ExecutionReport, against StringBuilder + Encoding.ASCII.</summary>
[MemoryDiagnoser]
public class FixWriterBenchmarks
{
    private readonly byte[] _buffer = new byte[4096];
    private readonly UtcTimestampCache _cache = new();
    private readonly long _nowNs = CodecBenchmarkMessages.TransactTimeNs + 5_000_000;
    private readonly DateTime _now = new(2026, 3, 15, 14, 30, 5, 125, DateTimeKind.Utc);

    /// <summary>BCL baseline: build the NewOrderSingle as a string, compute BodyLength/CheckSum, ASCII-encode.</summary>
    [Benchmark(Baseline = true)]
    public int NaiveStringEncodeNewOrderSingle()
    {
        var body = new StringBuilder(256);
        body.Append("35=D\u000134=").Append(215).Append("\u000149=CLIENT12\u000152=")
            .Append(_now.ToString("yyyyMMdd-HH:mm:ss.fff", CultureInfo.InvariantCulture))
            .Append("\u000156=BROKER\u00011=ACCOUNT-01\u000111=ORD-000123\u000121=1\u000138=").Append(1000)
            .Append("\u000140=2\u000144=").Append(101.25m.ToString(CultureInfo.InvariantCulture))
            .Append("\u000154=1\u000155=MSFT\u000159=0\u000160=")
            .Append(_now.ToString("yyyyMMdd-HH:mm:ss.fff", CultureInfo.InvariantCulture)).Append('\u0001');
        string bodyText = body.ToString();
        string message = "8=FIX.4.4\u00019=" + bodyText.Length.ToString(CultureInfo.InvariantCulture) + "\u0001" + bodyText;
        int sum = 0;
        foreach (char ch in message) sum += ch;
        byte[] bytes = Encoding.ASCII.GetBytes(message + "10=" + (sum % 256).ToString("000", CultureInfo.InvariantCulture) + "\u0001");
        return bytes.Length;
    }

    [Benchmark]
    public int EncodeNewOrderSingle() => CodecBenchmarkMessages.EncodeNewOrderSingle(_buffer, 215, _nowNs, _cache);

    [Benchmark]
    public int EncodeExecutionReport() => CodecBenchmarkMessages.EncodeExecutionReport(_buffer, 4711, _nowNs, _cache);

    [Benchmark]
    public int EncodeHeartbeat()
    {
        var w = new FixWriter(_buffer);
        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        w.Write(FixTags.MsgSeqNum, 2);
        w.Write(FixTags.SenderCompID, "SENDER"u8);
        w.WriteTimestamp(FixTags.SendingTime, _nowNs, TimestampPrecision.Millis, _cache);
        w.Write(FixTags.TargetCompID, "TARGET"u8);
        return w.Finish();
    }
}
