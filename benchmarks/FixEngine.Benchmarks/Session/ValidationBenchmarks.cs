using System;
using System.IO;
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
    // The codec benchmarks' ExecutionReport with Side(54)=Z and NoPartyIDs(453)=2 for three entries: reported as
    // QuickFIX does (54, the lower tag).
    private static readonly byte[] s_twoDefects = CodecBenchmarkMessages.Build("FIX.4.4",
        CodecBenchmarkMessages.ExecutionReportFields.Replace("|54=1|", "|54=Z|", StringComparison.Ordinal).Replace("|453=3|", "|453=2|", StringComparison.Ordinal));

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
            _ => CodecBenchmarkMessages.Get(Message),
        };
        _bytes = bytes;
        _index.Parse(bytes);
        ValidationError error = _validator.Validate(new FixMessage(_bytes, _index));
        if (error.IsValid != (Message != "ExecutionReportTwoDefects")) throw new InvalidOperationException($"{Message}: {error}");
    }

    [Benchmark]
    public int Validate() => _validator.Validate(new FixMessage(_bytes, _index)).Reason;

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
