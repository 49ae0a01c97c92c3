using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using BenchmarkDotNet.Attributes;
using FixEngine.Store;

namespace FixEngine.Benchmarks.Store;

/// <summary>Append of a 200-byte encoded message plus the sender sequence increment, against QuickFIX/n's MemoryStore style
/// (Dictionary&lt;int, string&gt;, one string per message).</summary>
[MemoryDiagnoser]
public class StoreAppendBenchmarks
{
    private const int Operations = 1000;
    private const int ResetEvery = 100_000;
    private byte[] _message = [];
    private readonly Dictionary<int, string> _dictionary = new();
    private string _directory = "";
    private MemoryMessageStore _memory = null!;
    private FileMessageStore _fileOs = null!;
    private FileMessageStore _fileBatched = null!;
    private int _dictionarySeq;

    [GlobalSetup]
    public void Setup()
    {
        _message = EncodedMessage();
        _directory = Path.Combine(Path.GetTempPath(), "fixengine-bench-" + Guid.NewGuid().ToString("N"));
        _memory = new MemoryMessageStore(0);
        _fileOs = new FileMessageStore(_directory, "os", 0, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        _fileBatched = new FileMessageStore(_directory, "batched", 0, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.Batched, BatchRecordCount = 64 });
    }

    /// <summary>A 200-byte NewOrderSingle as a session encodes it (BodyLength and CheckSum right), so the file store
    /// works out its resend layout as it does for a session's messages.</summary>
    internal static byte[] EncodedMessage()
    {
        string body = "35=D\u000134=1\u000149=SENDER\u000152=20261207-23:50:00.000000\u000156=TARGET\u0001"
            + "11=ORDER-0000001\u00011=ACCT0001\u000121=1\u000155=MSFT\u000154=1\u000160=20261207-23:50:00.000000\u000138=100\u000140=2\u000144=123.45\u000159=0\u0001";
        body += "58=" + new string('X', 200 - 27 - body.Length) + "\u0001";
        string head = "8=FIX.4.4\u00019=" + body.Length + "\u0001";
        int sum = 0;
        foreach (char c in head + body) sum += c;
        byte[] message = Encoding.ASCII.GetBytes(head + body + "10=" + (sum % 256).ToString("D3") + "\u0001");
        return message;
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _memory.Dispose();
        _fileOs.Dispose();
        _fileBatched.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Operations)]
    public void DictionaryOfStrings()
    {
        for (int i = 0; i < Operations; i++)
        {
            if (++_dictionarySeq > ResetEvery)
            {
                _dictionary.Clear();
                _dictionarySeq = 1;
            }
            _dictionary[_dictionarySeq] = Encoding.ASCII.GetString(_message);
        }
    }

    [Benchmark(OperationsPerInvoke = Operations)]
    public void Memory() => AppendLoop(_memory);

    [Benchmark(OperationsPerInvoke = Operations)]
    public void FileOs() => AppendLoop(_fileOs);

    [Benchmark(OperationsPerInvoke = Operations)]
    public void FileBatched() => AppendLoop(_fileBatched);

    /// <summary><see cref="FileOs"/> as a session appends: the resend layout from the encoder's positions
    /// (<see cref="ResendLayout.FromEncoder"/>), not read back from the message.</summary>
    [Benchmark(OperationsPerInvoke = Operations)]
    public void FileOsLayoutFromEncoder()
    {
        ResendLayout.TryCompute(_message, out ResendLayout at);
        for (int i = 0; i < Operations; i++)
        {
            int seq = _fileOs.NextSenderMsgSeqNum;
            if (seq > ResetEvery)
            {
                _fileOs.Reset(0);
                seq = 1;
            }
            ResendLayout layout = ResendLayout.FromEncoder(_message, at.MsgTypeStart, at.MsgTypeLength, at.SendingTimeStart, at.SendingTimeLength, at.BodyStart);
            _fileOs.AppendAndIncrement(seq, _message, _fileOs.LastProcessedInboundSeqNum, layout);
        }
    }

    private void AppendLoop(IMessageStore store)
    {
        for (int i = 0; i < Operations; i++)
        {
            int seq = store.NextSenderMsgSeqNum;
            if (seq > ResetEvery)
            {
                store.Reset(0);
                seq = 1;
            }
            store.AppendAndIncrement(seq, _message);
        }
    }
}

/// <summary>Durable append (fsync before returning): the store's PerMessage policy against a bare FileStream write + Flush(true).</summary>
[MemoryDiagnoser]
public class DurableAppendBenchmarks
{
    private const int Operations = 20;
    private readonly byte[] _message = new byte[200];
    private string _directory = "";
    private FileStream _stream = null!;
    private FileMessageStore _store = null!;

    [GlobalSetup]
    public void Setup()
    {
        _message.AsSpan().Fill((byte)'X');
        _directory = Path.Combine(Path.GetTempPath(), "fixengine-bench-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_directory);
        _stream = new FileStream(Path.Combine(_directory, "raw.bin"), FileMode.Create, FileAccess.Write, FileShare.None, 4096);
        _store = new FileMessageStore(_directory, "durable", 0, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.PerMessage });
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _stream.Dispose();
        _store.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Operations)]
    public void FileStreamWriteFlushToDisk()
    {
        for (int i = 0; i < Operations; i++)
        {
            _stream.Write(_message);
            _stream.Flush(flushToDisk: true);
        }
    }

    [Benchmark(OperationsPerInvoke = Operations)]
    public void FileStorePerMessage()
    {
        for (int i = 0; i < Operations; i++)
        {
            _store.AppendAndIncrement(_store.NextSenderMsgSeqNum, _message);
        }
    }
}

/// <summary>What the file store adds to each append to record a message's resend layout.</summary>
[MemoryDiagnoser]
public class ResendLayoutBenchmarks
{
    private readonly byte[] _message = StoreAppendBenchmarks.EncodedMessage();

    [Benchmark]
    public int TryCompute() => ResendLayout.TryCompute(_message, out ResendLayout layout) ? layout.BodyStart : -1;
}
