using System;
using System.IO;
using System.Text;
using BenchmarkDotNet.Attributes;
using FixEngine.Benchmarks.Codec;
using FixEngine.Codec;
using FixEngine.Dictionary;
using FixEngine.Session;

namespace FixEngine.Benchmarks.Session;

/// <summary>
/// Dictionary validation of one indexed inbound message as the session runs it (FIX.4.4 dictionary, default switches):
/// a valid NewOrderSingle (the codec benchmarks'), a valid ExecutionReport with a three-entry Parties group, and an ExecutionReport with several
/// defects at once (the path that orders them as QuickFIX does).
/// </summary>
[MemoryDiagnoser]
public class ValidationBenchmarks
{
    // The codec benchmarks' ExecutionReport, with a PartyRole FIX.4.4 defines (its 452=64 is not in FIX44.xml's enum).
    private static readonly byte[] s_executionReport = Build(
        "35=8|34=4711|49=BROKER|52=20260315-14:30:05.125|56=CLIENT12|1=ACCOUNT-01|6=101.25|11=ORD-000123|14=400|17=EXEC-0000077|31=101.25|32=400|" +
        "37=OID-000000009|38=1000|39=1|40=2|44=101.25|54=1|55=MSFT|59=0|60=20260315-14:30:05.120|150=F|151=600|" +
        "453=3|448=BROKER-DESK-1|447=D|452=1|448=CLIENT-TRADER-9|447=D|452=11|448=XNAS|447=G|452=4|58=partial fill on venue|");

    // The same with Side(54)=Z and NoPartyIDs(453)=2 for three entries: reported as QuickFIX does (54, the lower tag).
    private static readonly byte[] s_twoDefects = Build(
        "35=8|34=4711|49=BROKER|52=20260315-14:30:05.125|56=CLIENT12|1=ACCOUNT-01|6=101.25|11=ORD-000123|14=400|17=EXEC-0000077|31=101.25|32=400|" +
        "37=OID-000000009|38=1000|39=1|40=2|44=101.25|54=Z|55=MSFT|59=0|60=20260315-14:30:05.120|150=F|151=600|" +
        "453=2|448=BROKER-DESK-1|447=D|452=1|448=CLIENT-TRADER-9|447=D|452=11|448=XNAS|447=G|452=4|58=partial fill on venue|");

    private MessageValidator _validator = null!;
    private byte[] _bytes = [];
    private readonly FixMessageIndex _index = new();

    [Params("NewOrderSingle", "ExecutionReport", "ExecutionReportTwoDefects")]
    public string Message { get; set; } = "";

    [GlobalSetup]
    public void Setup()
    {
        _validator = new MessageValidator(DataDictionary.Load(FindDictionary("FIX44.xml")), null, new ValidationOptions());
        byte[] bytes = Message switch
        {
            "ExecutionReportTwoDefects" => s_twoDefects,
            "ExecutionReport" => s_executionReport,
            _ => CodecBenchmarkMessages.Get(Message),
        };
        _bytes = bytes;
        _index.Parse(bytes);
        ValidationError error = _validator.Validate(new FixMessage(_bytes, _index));
        if (error.IsValid != (Message != "ExecutionReportTwoDefects")) throw new InvalidOperationException($"{Message}: {error}");
    }

    [Benchmark]
    public int Validate() => _validator.Validate(new FixMessage(_bytes, _index)).Reason;

    private static byte[] Build(string pipeBody)
    {
        string body = pipeBody.Replace('|', '\u0001');
        string head = "8=FIX.4.4\u00019=" + body.Length + "\u0001";
        byte[] withoutTrailer = Encoding.ASCII.GetBytes(head + body);
        int sum = 0;
        foreach (byte b in withoutTrailer) sum += b;
        return Encoding.ASCII.GetBytes(head + body + "10=" + (sum % 256).ToString("000") + "\u0001");
    }

    private static string FindDictionary(string file)
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            string candidate = Path.Combine(dir.FullName, "dictionaries", file);
            if (File.Exists(Path.Combine(dir.FullName, "FixEngine.sln")) && File.Exists(candidate)) return candidate;
        }
        throw new FileNotFoundException("dictionaries/ not found in the repository", file);
    }
}
