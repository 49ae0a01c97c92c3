using System;
using System.IO;
using System.Text;

namespace FixEngine.CrashPeer;

/// <summary>An append-only text file of application events, each line written through to the disk before the call
/// returns, so a line in it happened even if the process is killed right after.</summary>
/// <remarks>Lines: <c>S id seq</c> (initiator: the engine stored order <c>id</c> as MsgSeqNum <c>seq</c>, from
/// OnSendStored, or found in the store after a restart), <c>R id possdup</c> (initiator: an ExecutionReport for
/// <c>id</c> arrived), <c>P id possdup</c> (acceptor: order <c>id</c> was handed to the application, written after its
/// answer was stored). <c>possdup</c> is Y when the engine flagged the delivery as possibly seen before
/// (FixSession.IsPossibleRedelivery). Thread-safe (one lock); not a hot path.</remarks>
internal sealed class Ledger : IDisposable
{
    private readonly FileStream _file;
    private readonly object _gate = new();

    public Ledger(string path)
    {
        _file = new FileStream(path, FileMode.Append, FileAccess.Write, FileShare.Read, 4096, FileOptions.WriteThrough);
    }

    public void Write(string line)
    {
        byte[] bytes = Encoding.ASCII.GetBytes(line + "\n");
        lock (_gate)
        {
            _file.Write(bytes);
            _file.Flush(flushToDisk: true);
        }
    }

    public void Dispose() => _file.Dispose();
}
