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

    /// <summary>Queues a line for a background writer that writes and syncs whatever is queued in one go: for events
    /// that may be lost on a crash because they can be rebuilt (S lines: from the store after a restart).</summary>
    public void WriteLater(string line)
    {
        lock (_later)
        {
            _later.Enqueue(line);
            if (_writer is null)
            {
                _writer = new System.Threading.Thread(DrainLater) { IsBackground = true, Name = "ledger" };
                _writer.Start();
            }
            System.Threading.Monitor.Pulse(_later);
        }
    }

    private readonly System.Collections.Generic.Queue<string> _later = new();
    private System.Threading.Thread? _writer;

    private void DrainLater()
    {
        var batch = new StringBuilder();
        while (true)
        {
            lock (_later)
            {
                while (_later.Count == 0) System.Threading.Monitor.Wait(_later);
                while (_later.Count > 0) batch.Append(_later.Dequeue()).Append('\n');
            }
            byte[] bytes = Encoding.ASCII.GetBytes(batch.ToString());
            batch.Clear();
            lock (_gate)
            {
                _file.Write(bytes);
                _file.Flush(flushToDisk: true);
            }
        }
    }

    public void Dispose()
    {
        // Let the background writer finish what is queued (bounded wait).
        for (int i = 0; i < 100; i++)
        {
            lock (_later)
            {
                if (_later.Count == 0) break;
            }
            System.Threading.Thread.Sleep(10);
        }
        lock (_gate) _file.Dispose();
    }
}
