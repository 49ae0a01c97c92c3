using System;
using System.Collections.Generic;
using FixEngine.Buffers;

namespace FixEngine.Session;

/// <summary>Inbound messages that arrived ahead of the expected MsgSeqNum(34), kept until the gap before them is filled
/// (by resent messages or a SequenceReset-GapFill) and then processed in order.</summary>
/// <remarks>
/// Design: owned by the thread running the session. Each early message is copied once into a buffer rented from the
/// pool (the inbound frame is valid only during its callback) and keyed by its MsgSeqNum; a second copy of the same
/// number replaces the first. <see cref="TryTake"/> hands the buffer to the caller, who disposes it. Messages whose
/// number falls below the expected one (the gap was skipped by a SequenceReset) are never processed: they are dropped.
/// The dictionary keeps its capacity, so a gap no deeper than an earlier one allocates nothing but the pooled copies.
/// </remarks>
internal sealed class InboundGapQueue
{
    private readonly Dictionary<int, PooledBuffer> _messages = [];

    /// <summary>Messages waiting.</summary>
    public int Count => _messages.Count;

    /// <summary>Keeps a copy of <paramref name="frame"/> as message <paramref name="seqNum"/>.</summary>
    public void Add(int seqNum, ReadOnlySpan<byte> frame)
    {
        if (_messages.Remove(seqNum, out PooledBuffer old)) old.Dispose();
        PooledBuffer copy = PooledBuffer.Rent(frame.Length);
        frame.CopyTo(copy.Span);
        _messages[seqNum] = copy;
    }

    /// <summary>Removes message <paramref name="seqNum"/>; the caller owns (and disposes) <paramref name="frame"/>.</summary>
    public bool TryTake(int seqNum, out PooledBuffer frame) => _messages.Remove(seqNum, out frame);

    /// <summary>Drops every message numbered below <paramref name="seqNum"/>.</summary>
    public void DropBelow(int seqNum)
    {
        if (_messages.Count == 0) return;
        // Removing during enumeration is allowed for Dictionary (it does not invalidate the enumerator).
        foreach (KeyValuePair<int, PooledBuffer> entry in _messages)
        {
            if (entry.Key < seqNum && _messages.Remove(entry.Key, out PooledBuffer stale)) stale.Dispose();
        }
    }

    /// <summary>Drops every message.</summary>
    public void Clear()
    {
        if (_messages.Count == 0) return;
        foreach (KeyValuePair<int, PooledBuffer> entry in _messages) entry.Value.Dispose();
        _messages.Clear();
    }
}
