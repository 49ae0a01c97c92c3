using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using BenchmarkDotNet.Attributes;
using FixEngine.Dictionary;

namespace FixEngine.Benchmarks.Dictionary;

/// <summary>
/// Per-field validation lookups as the session layer does them: message by MsgType bytes, field allowed, enum value valid.
/// Baseline: the string-keyed BCL collections a QuickFIX-style dictionary uses (decode MsgType and value to strings).
/// </summary>
[MemoryDiagnoser]
public class DictionaryLookupBenchmarks
{
    private const int Ops = 1000;

    private DataDictionary _dictionary = null!;
    private Dictionary<string, HashSet<int>> _bclMessages = null!;
    private Dictionary<int, HashSet<string>> _bclEnums = null!;
    private readonly byte[] _msgType = "D"u8.ToArray();
    private readonly byte[] _side = "1"u8.ToArray();

    [GlobalSetup]
    public void Setup()
    {
        _dictionary = DataDictionary.Load(FindShared("FIX44.xml"));
        _bclMessages = new Dictionary<string, HashSet<int>>();
        foreach (MessageDefinition m in _dictionary.Messages) _bclMessages[m.MsgType] = new HashSet<int>(m.Fields.ToArray());
        _bclEnums = new Dictionary<int, HashSet<string>>();
        foreach (FieldDefinition f in _dictionary.Fields)
        {
            if (!f.HasEnum) continue;
            var set = new HashSet<string>();
            foreach (FieldEnumValue v in f.Values) set.Add(v.Value);
            _bclEnums[f.Tag] = set;
        }
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Ops)]
    public int BclStringKeyed()
    {
        int hits = 0;
        for (int i = 0; i < Ops; i++)
        {
            if (_bclMessages.TryGetValue(Encoding.ASCII.GetString(_msgType), out HashSet<int>? fields) && fields.Contains(54)) hits++;
            if (_bclEnums.TryGetValue(54, out HashSet<string>? values) && values.Contains(Encoding.ASCII.GetString(_side))) hits++;
        }
        return hits;
    }

    [Benchmark(OperationsPerInvoke = Ops)]
    public int CompiledTables()
    {
        int hits = 0;
        for (int i = 0; i < Ops; i++)
        {
            MessageDefinition? m = _dictionary.GetMessage(_msgType);
            if (m is not null && m.IsAllowed(54)) hits++;
            if (_dictionary.IsValidEnumValue(54, _side)) hits++;
        }
        return hits;
    }

    private static string FindShared(string file)
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            string candidate = Path.Combine(dir.FullName, "dictionaries", file);
            if (File.Exists(Path.Combine(dir.FullName, "FixEngine.sln")) && File.Exists(candidate)) return candidate;
        }
        throw new FileNotFoundException("dictionaries/ not found in the repository", file);
    }
}
