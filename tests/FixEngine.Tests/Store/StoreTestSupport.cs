using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>Collects every delivered message (copies the bytes); stops after <see cref="StopAfter"/> messages if set.</summary>
internal struct CollectingHandler : IStoredMessageHandler
{
    public List<(int SeqNum, byte[] Bytes)> Messages;
    public int StopAfter;

    public static CollectingHandler Create(int stopAfter = 0) => new() { Messages = new(), StopAfter = stopAfter };

    public bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
    {
        Messages.Add((seqNum, message.ToArray()));
        return StopAfter == 0 || Messages.Count < StopAfter;
    }
}

/// <summary>Sums lengths and the first byte of each message without allocating.</summary>
internal struct SummingHandler : IStoredMessageHandler
{
    public long TotalBytes;
    public long Checksum;

    public bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
    {
        TotalBytes += message.Length;
        Checksum += seqNum + (message.Length == 0 ? 0 : message[0]);
        return true;
    }
}

internal static class StoreTestData
{
    /// <summary>A deterministic FIX-looking message whose content depends on the sequence number and size.</summary>
    public static byte[] Message(int seqNum, int length = 200)
    {
        var bytes = new byte[length];
        byte[] prefix = Encoding.ASCII.GetBytes($"8=FIX.4.4\u00019={length}\u000135=D\u000134={seqNum}\u0001");
        for (int i = 0; i < length; i++)
        {
            bytes[i] = i < prefix.Length ? prefix[i] : (byte)('A' + ((seqNum * 31 + i * 7) % 26));
        }
        return bytes;
    }

    public static List<(int SeqNum, byte[] Bytes)> ReadAll(IMessageStore store, int begin = 1, int end = 0)
    {
        var handler = CollectingHandler.Create();
        int delivered = store.ReadRange(begin, end, ref handler);
        Assert.Equal(handler.Messages.Count, delivered);
        return handler.Messages;
    }
}

/// <summary>A fresh temporary folder per test class instance, deleted on dispose.</summary>
public sealed class TempDirectory : IDisposable
{
    public TempDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "fixengine-store-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string File(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}
