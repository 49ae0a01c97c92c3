using System;
using System.IO;
using System.Text;
using BenchmarkDotNet.Attributes;
using FixEngine.Benchmarks.Codec;
using FixEngine.Codec;
using QuickFix;
using QuickFix.Fields;

namespace QuickFixN.Codec;

/// <summary>Large messages, FixEngine beside QuickFIX/n 1.14.1: a MarketDataSnapshotFullRefresh (35=W) with 100 and
/// 1,000 entries in NoMDEntries (the bytes of FixEngine.Benchmarks' <see cref="MarketDataSnapshot"/>: MDEntryType,
/// MDEntryPx, MDEntrySize, MDEntryPositionNo per entry), encoded, and parsed with every entry's type, price and size
/// read.</summary>
/// <remarks>
/// As in <see cref="QuickFixNCodecBenchmarks"/>, QuickFIX/n parses from a string and encodes to a string
/// (<c>ConstructString()</c>, BodyLength and CheckSum computed); FixEngine starts from and ends in bytes. QuickFIX/n
/// needs the data dictionary to see a repeating group as a group (without one the entries' fields overwrite each other),
/// so its parse row uses FIX44.xml with validation, as a session with <c>UseDataDictionary=Y</c> does. Run:
/// <c>dotnet run -c Release --project benchmarks/Peers/QuickFixN -- codec --filter '*QuickFixNMarketData*'</c>.
/// </remarks>
[MemoryDiagnoser]
public class QuickFixNMarketDataBenchmarks
{
    private readonly UtcTimestampCache _cache = new();
    private readonly long _nowNs = CodecBenchmarkMessages.TransactTimeNs + 5_000_000;
    private byte[] _buffer = [];
    private byte[] _message = [];
    private string _messageString = "";
    private FixMessageIndex _index = null!;
    private QuickFix.DataDictionary.DataDictionary _dictionary = null!;
    private IMessageFactory _factory = null!;

    [Params(100, 1000)]
    public int Entries { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _buffer = new byte[MarketDataSnapshot.MaxLength(Entries)];
        int length = MarketDataSnapshot.Encode(_buffer, Entries, 4711, _nowNs, _cache);
        _message = _buffer.AsSpan(0, length).ToArray();
        _messageString = Encoding.Latin1.GetString(_message);
        _index = new FixMessageIndex(MarketDataSnapshot.FieldCount(Entries));
        _dictionary = new QuickFix.DataDictionary.DataDictionary(FindDictionary());
        _factory = new QuickFix.FIX44.MessageFactory();
        long expected = MarketDataSnapshot.ExpectedParseSum(Entries);
        // Fail here rather than benchmark a parse or an encode that does not work.
        if (FixEngineParseSnapshot() != expected || QuickFixNParseSnapshot() != expected)
        {
            throw new InvalidOperationException($"parses disagree: FixEngine {FixEngineParseSnapshot()}, QuickFIX/n {QuickFixNParseSnapshot()}, expected {expected}");
        }
        string encoded = QuickFixNEncodeSnapshot();
        var check = new QuickFix.FIX44.MarketDataSnapshotFullRefresh();
        check.FromString(encoded, true, _dictionary, _dictionary, _factory);
        if (check.GetInt(Tags.NoMDEntries) != Entries) throw new InvalidOperationException("QuickFIX/n's snapshot does not read back: " + encoded[..200].Replace('\u0001', '|'));
    }

    [Benchmark(Baseline = true)]
    public int FixEngineEncodeSnapshot() => MarketDataSnapshot.Encode(_buffer, Entries, 4711, _nowNs, _cache);

    [Benchmark]
    public string QuickFixNEncodeSnapshot()
    {
        var m = new QuickFix.FIX44.MarketDataSnapshotFullRefresh();
        m.Header.SetField(new MsgSeqNum(4711));
        m.Header.SetField(new SenderCompID("MDSERVER"));
        m.Header.SetField(new SendingTime(DateTime.UtcNow));
        m.Header.SetField(new TargetCompID("CLIENT12"));
        m.Set(new MDReqID("MDREQ-0001"));
        m.Set(new Symbol("MSFT"));
        var entry = new QuickFix.FIX44.MarketDataSnapshotFullRefresh.NoMDEntriesGroup();
        for (int i = 0; i < Entries; i++)
        {
            (char type, FixDecimal price, long size, int position) = MarketDataSnapshot.Entry(i);
            entry.Set(new MDEntryType(type));
            entry.Set(new MDEntryPx(price.ToDecimal()));
            entry.Set(new MDEntrySize(size));
            entry.Set(new MDEntryPositionNo(position));
            m.AddGroup(entry);
        }
        return m.ConstructString();
    }

    [Benchmark]
    public long FixEngineParseSnapshot() => MarketDataSnapshot.Parse(_message, _index);

    [Benchmark]
    public long QuickFixNParseSnapshot()
    {
        var m = new QuickFix.FIX44.MarketDataSnapshotFullRefresh();
        m.FromString(_messageString, true, _dictionary, _dictionary, _factory);
        long acc = m.GetString(Tags.Symbol).Length;
        int count = m.GetInt(Tags.NoMDEntries);
        var entry = new QuickFix.FIX44.MarketDataSnapshotFullRefresh.NoMDEntriesGroup();
        for (int i = 1; i <= count; i++)
        {
            m.GetGroup(i, entry);
            acc += entry.GetChar(Tags.MDEntryType);
            acc += (long)(entry.GetDecimal(Tags.MDEntryPx) * 100m);
            acc += (long)entry.GetDecimal(Tags.MDEntrySize);
        }
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
