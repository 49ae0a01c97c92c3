using System;
using System.IO;
using System.Text;
using BenchmarkDotNet.Attributes;
using FixEngine.Benchmarks.Codec;
using FixEngine.Codec;
using QuickFix;
using QuickFix.Fields;

namespace QuickFixN.Codec;

/// <summary>FixEngine's codec beside QuickFIX/n 1.14.1's on the same messages (FixEngine.Benchmarks' sample
/// NewOrderSingle and ExecutionReport): parse a NewOrderSingle and read the same 10 fields, and encode the
/// ExecutionReport (3-entry party group).</summary>
/// <remarks>
/// QuickFIX/n takes and produces strings: its parse rows start from the message as a string (its transport decodes the
/// socket's bytes to a string before this point, not counted here) and its encode row ends with the string
/// <c>Message.ConstructString()</c> builds, with BodyLength and CheckSum, as its session does before sending (the session encodes that string to bytes afterwards, not counted either).
/// FixEngine's rows start from and end in bytes, the form the socket has. "Dictionary" parses with the FIX44 data
/// dictionary (dictionaries/FIX44.xml, as the session does with UseDataDictionary=Y: typed groups and
/// validation); "NoDictionary" parses without one (validate false, no dictionaries). QuickFIX/n's encoder does not use
/// a dictionary, so there is one encode row. Run:
/// <c>dotnet run -c Release --project benchmarks/Peers/QuickFixN -- codec --filter '*QuickFixNCodec*'</c>.
/// </remarks>
[MemoryDiagnoser]
public class QuickFixNCodecBenchmarks
{
    private readonly FixMessageIndex _index = new();
    private readonly byte[] _buffer = new byte[1024];
    private readonly UtcTimestampCache _cache = new();
    private readonly long _nowNs = CodecBenchmarkMessages.TransactTimeNs + 5_000_000;
    private readonly DateTime _transactTime = DateTime.UnixEpoch.AddTicks(CodecBenchmarkMessages.TransactTimeNs / 100);
    private byte[] _order = [];
    private string _orderString = "";
    private QuickFix.DataDictionary.DataDictionary _dictionary = null!;
    private IMessageFactory _factory = null!;

    [GlobalSetup]
    public void Setup()
    {
        _order = CodecBenchmarkMessages.NewOrderSingle;
        _orderString = Encoding.Latin1.GetString(_order);
        _dictionary = new QuickFix.DataDictionary.DataDictionary(FindDictionary());
        _factory = new QuickFix.FIX44.MessageFactory();
        // Fail here rather than benchmark a parse that does not work.
        if (QuickFixNParseRead10Dictionary() != QuickFixNParseRead10NoDictionary() || QuickFixNParseRead10NoDictionary() == 0)
        {
            throw new InvalidOperationException("QuickFIX/n parses of the sample NewOrderSingle disagree");
        }
        string report = QuickFixNEncodeExecutionReport();
        if (!report.Contains("\u000110=", StringComparison.Ordinal)) throw new InvalidOperationException("no checksum in the QuickFIX/n report: " + report.Replace('\u0001', '|'));
    }

    [Benchmark(Baseline = true)]
    public long FixEngineFrameIndexRead10()
    {
        FrameResult frame = FixFramer.Frame(_order, 4096);
        ReadOnlySpan<byte> bytes = _order.AsSpan(0, frame.Length);
        _index.Parse(bytes);
        FixMessage m = _index.Bind(bytes);
        long acc = 0;
        if (m.TryGetInt(FixTags.MsgSeqNum, out int seq) == FixValueStatus.Ok) acc += seq;
        if (m.TryGetSpan(FixTags.SenderCompID, out ReadOnlySpan<byte> span)) acc += span.Length;
        if (m.TryGetSpan(FixTags.TargetCompID, out span)) acc += span.Length;
        if (m.TryGetTimestamp(FixTags.SendingTime, out long ns) == FixValueStatus.Ok) acc += ns / 1_000_000_000;
        if (m.TryGetSpan(FixTags.ClOrdID, out span)) acc += span.Length;
        if (m.TryGetSpan(FixTags.Symbol, out span)) acc += span.Length;
        if (m.TryGetChar(FixTags.Side, out char c) == FixValueStatus.Ok) acc += c;
        if (m.TryGetDecimal(FixTags.OrderQty, out FixDecimal d) == FixValueStatus.Ok) acc += (long)d.ToDecimal();
        if (m.TryGetDecimal(FixTags.Price, out d) == FixValueStatus.Ok) acc += (long)d.ToDecimal();
        if (m.TryGetChar(FixTags.OrdType, out c) == FixValueStatus.Ok) acc += c;
        return acc;
    }

    [Benchmark]
    public long QuickFixNParseRead10NoDictionary()
    {
        var m = new Message();
        m.FromString(_orderString, false, null, null, null);
        return Read10(m);
    }

    [Benchmark]
    public long QuickFixNParseRead10Dictionary()
    {
        var m = new QuickFix.FIX44.NewOrderSingle();
        m.FromString(_orderString, true, _dictionary, _dictionary, _factory);
        return Read10(m);
    }

    [Benchmark]
    public int FixEngineEncodeExecutionReport() => CodecBenchmarkMessages.EncodeExecutionReport(_buffer, 4711, _nowNs, _cache);

    [Benchmark]
    public string QuickFixNEncodeExecutionReport()
    {
        var r = new QuickFix.FIX44.ExecutionReport(
            new OrderID("OID-000000009"), new ExecID("EXEC-0000077"), new ExecType('F'), new OrdStatus('1'), new Symbol("MSFT"),
            new Side('1'), new LeavesQty(600), new CumQty(400), new AvgPx(101.25m));
        r.Header.SetField(new MsgSeqNum(4711));
        r.Header.SetField(new SenderCompID("BROKER"));
        r.Header.SetField(new SendingTime(DateTime.UtcNow));
        r.Header.SetField(new TargetCompID("CLIENT12"));
        r.Set(new Account("ACCOUNT-01"));
        r.Set(new ClOrdID("ORD-000123"));
        r.Set(new LastPx(101.25m));
        r.Set(new LastQty(400));
        r.Set(new OrderQty(1000));
        r.Set(new OrdType('2'));
        r.Set(new Price(101.25m));
        r.Set(new TimeInForce('0'));
        r.Set(new TransactTime(_transactTime));
        foreach ((string id, char source, int role) in s_parties)
        {
            var party = new QuickFix.FIX44.ExecutionReport.NoPartyIDsGroup();
            party.Set(new PartyID(id));
            party.Set(new PartyIDSource(source));
            party.Set(new PartyRole(role));
            r.AddGroup(party);
        }
        r.Set(new Text("partial fill on venue"));
        return r.ConstructString();
    }

    private static readonly (string Id, char Source, int Role)[] s_parties = [("BROKER-DESK-1", 'D', 1), ("CLIENT-TRADER-9", 'D', 11), ("XNAS", 'G', 64)];

    private static long Read10(Message m)
    {
        long acc = m.Header.GetInt(Tags.MsgSeqNum);
        acc += m.Header.GetString(Tags.SenderCompID).Length;
        acc += m.Header.GetString(Tags.TargetCompID).Length;
        acc += (m.Header.GetDateTime(Tags.SendingTime) - DateTime.UnixEpoch).Ticks / 10_000_000;
        acc += m.GetString(Tags.ClOrdID).Length;
        acc += m.GetString(Tags.Symbol).Length;
        acc += m.GetChar(Tags.Side);
        acc += (long)m.GetDecimal(Tags.OrderQty);
        acc += (long)m.GetDecimal(Tags.Price);
        acc += m.GetChar(Tags.OrdType);
        return acc;
    }

    private static string FindDictionary()
    {
        for (DirectoryInfo? d = new(AppContext.BaseDirectory); d is not null; d = d.Parent)
        {
            if (File.Exists(Path.Combine(d.FullName, "FixEngine.sln")))
            {
                return Path.GetFullPath(Path.Combine(d.FullName, "dictionaries", "FIX44.xml"));
            }
        }
        throw new InvalidOperationException("FixEngine.sln not found above " + AppContext.BaseDirectory + " (the FIX44 dictionary is dictionaries/FIX44.xml in it)");
    }
}
