namespace FixEngine.Session;

/// <summary>Where a session is in recovering lost messages, in both directions: the gap it asked the peer to fill
/// (its own ResendRequest) and the replay it is sending in answer to the peer's ResendRequest.</summary>
/// <remarks>
/// <para>Design: owned by the thread running the session; plain fields, no allocation. The two sides are independent:
/// a replay for the peer may run while our own gap is being filled. Sequence numbers are at least 1, so 0 means
/// "none" in every field. <see cref="Reset"/> (disconnect, sequence reset, store refresh) clears both sides.</para>
/// <para>Requesting side: we asked for [<see cref="RequestBegin"/>, <see cref="RequestEnd"/>]. A gap larger than the
/// chunk size is asked for one chunk at a time; <see cref="GapEnd"/> is then the end of the whole gap and
/// <see cref="RequestEnd"/> the end of the chunk in flight.</para>
/// <para>Answering side: the replay reads the store from <see cref="ReplayNextSeq"/> to <see cref="ReplayEndSeq"/> in
/// steps (it pauses while the send backlog is full); <see cref="ReplayGapStart"/> is the first of a pending run of
/// admin or missing messages that one SequenceReset-GapFill will cover.</para>
/// </remarks>
internal sealed class ResendState
{
    private int _requestBegin;
    private int _requestEnd;
    private int _gapEnd;
    private int _replayNextSeq;
    private int _replayEndSeq;
    private int _replayGapStart;

    /// <summary>First MsgSeqNum of our outstanding ResendRequest (0: none).</summary>
    public int RequestBegin => _requestBegin;

    /// <summary>Last MsgSeqNum our outstanding ResendRequest (or its chunk in flight) covers (0: none).</summary>
    public int RequestEnd => _requestEnd;

    /// <summary>End of the whole gap while it is requested in chunks (0: not chunked).</summary>
    public int GapEnd => _gapEnd;

    /// <summary>True while our ResendRequest is outstanding.</summary>
    public bool IsRequestPending => _requestEnd != 0;

    /// <summary>True while a replay answering the peer's ResendRequest has messages left to send.</summary>
    public bool IsReplayPending => _replayEndSeq != 0;

    /// <summary>Next MsgSeqNum the replay reads from the store.</summary>
    public int ReplayNextSeq => _replayNextSeq;

    /// <summary>Last MsgSeqNum of the replay (0: no replay).</summary>
    public int ReplayEndSeq => _replayEndSeq;

    /// <summary>First MsgSeqNum of the pending GapFill run (0: none).</summary>
    public int ReplayGapStart => _replayGapStart;

    /// <summary>Records our ResendRequest for the gap [<paramref name="begin"/>, <paramref name="end"/>].</summary>
    /// <param name="begin">First missing MsgSeqNum.</param>
    /// <param name="end">Last missing MsgSeqNum.</param>
    /// <param name="chunkSize">ResendRequestChunkSize; 0 asks for the whole gap at once.</param>
    /// <param name="infiniteEndSeqNo">The EndSeqNo that means "to the end" in this FIX version.</param>
    /// <returns>The EndSeqNo(16) to send: the chunk's end, or <paramref name="infiniteEndSeqNo"/> for the last (or only) request.</returns>
    public int StartRequest(int begin, int end, int chunkSize, int infiniteEndSeqNo)
    {
        int sentEnd;
        if (chunkSize > 0 && end - begin + 1 > chunkSize)
        {
            sentEnd = begin + chunkSize - 1;
            _requestEnd = sentEnd;
            _gapEnd = end;
        }
        else
        {
            sentEnd = infiniteEndSeqNo;
            _requestEnd = end;
            _gapEnd = 0;
        }
        _requestBegin = begin;
        return sentEnd;
    }

    /// <summary>True when an outstanding request already covers an early message numbered <paramref name="seqNum"/>.</summary>
    public bool IsAlreadyRequested(int seqNum) => _requestEnd != 0 && seqNum >= _requestBegin;

    /// <summary>True when a message numbered <paramref name="seqNum"/>, now in sequence, completes an unchunked request.</summary>
    public bool IsSatisfiedBy(int seqNum) => _requestEnd != 0 && _gapEnd == 0 && seqNum >= _requestEnd;

    /// <summary>Our ResendRequest is satisfied: nothing is outstanding.</summary>
    public void EndRequest()
    {
        _requestBegin = 0;
        _requestEnd = 0;
        _gapEnd = 0;
    }

    /// <summary>Starts a replay of [<paramref name="begin"/>, <paramref name="end"/>], replacing one in progress.</summary>
    public void StartReplay(int begin, int end)
    {
        _replayNextSeq = begin;
        _replayEndSeq = end;
        _replayGapStart = 0;
    }

    /// <summary>The replay stopped at its budget: it goes on from <paramref name="nextSeq"/> with the pending GapFill run
    /// from <paramref name="gapStart"/> (0: none).</summary>
    public void PauseReplay(int nextSeq, int gapStart)
    {
        _replayNextSeq = nextSeq;
        _replayGapStart = gapStart;
    }

    /// <summary>The replay is complete (or abandoned).</summary>
    public void EndReplay()
    {
        _replayNextSeq = 0;
        _replayEndSeq = 0;
        _replayGapStart = 0;
    }

    /// <summary>Forgets both sides: nothing requested, nothing to replay.</summary>
    public void Reset()
    {
        EndRequest();
        EndReplay();
    }
}
