using System;
using System.Collections.Generic;
using FixEngine.Store;

namespace FixEngine.PostgreSQL;

/// <summary>Changes to commit to PostgreSQL in one transaction, plus the session state they lead to.</summary>
/// <remarks>
/// Owned by one thread at a time: the background writer (asynchronous policies) or the session thread (PerMessage).
/// <see cref="NextSender"/>, <see cref="NextTarget"/> and <see cref="CreationNs"/> are the state after every change
/// added so far and survive <see cref="Clear"/>; the messages are those added since the last reset in the batch (a
/// reset deletes everything stored before it). Allocates as it grows (off the session's hot path).
/// </remarks>
internal sealed class PostgresBatch
{
    private readonly List<(int SeqNum, int Offset, int Length)> _messages = new();
    private byte[] _arena = new byte[64 * 1024];
    private int _arenaLength;

    public int OpCount { get; set; }

    public long FirstOpTicks { get; set; }

    public bool Reset { get; private set; }

    public int NextSender { get; set; } = 1;

    public int NextTarget { get; set; } = 1;

    public long CreationNs { get; set; }

    /// <summary>The processed-inbound mark (<see cref="IMessageStore.LastProcessedInboundSeqNum"/>) after every change so far.</summary>
    public int Processed { get; set; }

    public int MessageCount => _messages.Count;

    public void AddMessage(int seqNum, ReadOnlySpan<byte> body)
    {
        if (_arena.Length - _arenaLength < body.Length)
        {
            Array.Resize(ref _arena, Math.Max(_arena.Length * 2, _arenaLength + body.Length));
        }
        body.CopyTo(_arena.AsSpan(_arenaLength));
        _messages.Add((seqNum, _arenaLength, body.Length));
        _arenaLength += body.Length;
    }

    public void ApplyReset(long creationNs)
    {
        Reset = true;
        _messages.Clear();
        _arenaLength = 0;
        NextSender = 1;
        NextTarget = 1;
        Processed = 0;
        CreationNs = creationNs;
    }

    /// <summary>The message bytes, back to back (every message added since the last reset, superseded ones included).</summary>
    public ReadOnlyMemory<byte> Bytes => _arena.AsMemory(0, _arenaLength);

    /// <summary>Sequence number, offset in <see cref="Bytes"/> and length of each message to write, the last write of each
    /// sequence number only (ON CONFLICT cannot touch a row twice in one statement).</summary>
    /// <remarks>Three arrays per batch, not per message; the usual ascending run of appends needs no de-duplication.</remarks>
    public (int[] SeqNums, int[] Offsets, int[] Lengths) ToArrays()
    {
        bool ascending = true;
        for (int i = 1; i < _messages.Count && ascending; i++) ascending = _messages[i].SeqNum > _messages[i - 1].SeqNum;
        Dictionary<int, int>? last = null;
        int count = _messages.Count;
        if (!ascending)
        {
            last = new Dictionary<int, int>(_messages.Count);
            for (int i = 0; i < _messages.Count; i++) last[_messages[i].SeqNum] = i;
            count = last.Count;
        }
        var seqNums = new int[count];
        var offsets = new int[count];
        var lengths = new int[count];
        int n = 0;
        for (int i = 0; i < _messages.Count; i++)
        {
            (int seqNum, int offset, int length) = _messages[i];
            if (last is not null && last[seqNum] != i) continue;
            seqNums[n] = seqNum;
            offsets[n] = offset;
            lengths[n++] = length;
        }
        return (seqNums, offsets, lengths);
    }

    /// <summary>Forgets the changes (after a commit); keeps the resulting state.</summary>
    public void Clear()
    {
        OpCount = 0;
        Reset = false;
        _messages.Clear();
        _arenaLength = 0;
    }
}
