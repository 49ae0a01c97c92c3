using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Transport;

namespace FixEngine.Session;

// Messages handed over from any thread (TrySendFromAnyThread): the hand-off ring, its drain by whichever thread is in the session, and the messages it could not store.
public sealed partial class FixSession
{
    /// <summary>Hands an application message to the session from any thread; the owner thread numbers, stores and sends
    /// it in order on its next pass (the engine agent's next duty cycle).</summary>
    /// <typeparam name="TState">State for <paramref name="body"/>.</typeparam>
    /// <param name="msgType">MsgType(35), at most 16 bytes.</param>
    /// <param name="state">Passed to <paramref name="body"/>.</param>
    /// <param name="body">Writes the body fields (encoded on the calling thread).</param>
    /// <returns>See <see cref="TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>.</returns>
    /// <remarks>The same as the overload with a token, with token 0.</remarks>
    public bool TrySendFromAnyThread<TState>(ReadOnlySpan<byte> msgType, scoped in TState state, BodyWriter<TState> body)
        where TState : allows ref struct => TrySendFromAnyThread(msgType, 0L, in state, body);

    /// <summary>Hands an application message to the session from any thread; it is numbered, stored and sent in order,
    /// and then the application is told through <see cref="IApplication.OnSendStored"/> (with <paramref name="token"/>
    /// and the MsgSeqNum it got). When no other thread is in the session (dedicated or completion receive, TLS, hosted
    /// connections), the calling thread does that itself before returning, under the session's gate; otherwise the
    /// thread in the session does it before leaving, or the engine agent on its next duty cycle (busy-poll sessions:
    /// always the agent).</summary>
    /// <typeparam name="TState">State for <paramref name="body"/>.</typeparam>
    /// <param name="msgType">MsgType(35), at most 16 bytes.</param>
    /// <param name="token">Any value of the application's choosing (an order id, an index): reported back with the
    /// message's MsgSeqNum once it is stored, or with the reason it never was.</param>
    /// <param name="state">Passed to <paramref name="body"/>.</param>
    /// <param name="body">Writes the body fields (encoded on the calling thread); called again, into a record four times
    /// larger each time, when the body does not fit in 4 KiB.</param>
    /// <returns>True: the session accepted the message. It may not be stored yet (it waits in memory until a thread in
    /// the session takes it, normally at once or within one duty cycle while logged on); exactly one of
    /// <see cref="IApplication.OnSendStored"/> or <see cref="IApplication.OnSendNotStored"/> follows for it, unless the
    /// process dies first. False: not accepted, nothing to report later: the hand-off ring is full (back-pressure:
    /// the session is not logged on or the transport is slow; retry later), the body does not fit, the engine
    /// stopped, or the session holds because its store cannot take writes (<see cref="IsStoreHeld"/>; retry after
    /// <see cref="IApplication.OnStoreResumed"/>).</returns>
    /// <remarks>
    /// Thread-safe for any number of producer threads: producers take a private lock for the few hundred nanoseconds
    /// of encoding the body straight into the hand-off ring (uncontended it is one interlocked operation; no
    /// allocation, contended or not). The owner thread adds the header, sequence number and trailer. Messages from one
    /// thread keep their order; messages from different threads are ordered by when they took the lock.
    /// Handed-over messages wait while the session is not logged on; <see cref="FixEngine.Engine.FixEngineHost.Stop"/>
    /// stores them (and sends them while connected) before it logs out.
    /// </remarks>
    /// <exception cref="InvalidOperationException">The session's message store failed (<see cref="StoreFailure"/>):
    /// the session refuses every send until it is recreated.</exception>
    public bool TrySendFromAnyThread<TState>(ReadOnlySpan<byte> msgType, long token, scoped in TState state, BodyWriter<TState> body)
        where TState : allows ref struct
    {
        ArgumentNullException.ThrowIfNull(body);
        if (_storeFault is not null) ThrowStoreFaulted();
        if (_held || msgType.IsEmpty || msgType.Length > SendHandOff.MsgTypeMax) return false;
        int max = Math.Min(_handOff.MaxRecordLength, _header.MaxBufferLength - SessionHeaderWriter.HeaderAllowanceBytes);
        // The send-duration histogram (only while a listener wants it) measures from here to the socket.
        long handedAtNs = _latency?.BeginSend() ?? 0;
        if (!_handOff.TryHandOver(msgType, token, in state, body, max, handedAtNs)) return false;
        // Outside the producers' lock, so no producer waits for another's send (docs/architecture.md, "Who runs a session").
        SendHandedOverNowOrWakeAgent();
        return true;
    }

    // Inside the session (Leave): numbers, stores and sends what was handed over, when the session can send now;
    // otherwise it waits for the agent's Poll.
    private void DrainHandedOver(long epochNs)
    {
        if (_handOff.UsedBytes == 0 || _state != SessionState.LoggedOn || _held || _connection is null) return;
        _epochNs = epochNs;
        try
        {
            if (HasSenderSeqRoom(epochNs)) DrainOutbox(epochNs);
        }
        catch (Store.MessageStoreException e)
        {
            OnStoreFailed(e, epochNs);
        }
    }

    /// <summary>Messages handed to <see cref="TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// that the session accepted but could not store (reported one by one through <see cref="IApplication.OnSendNotStored"/>).</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value).</remarks>
    public long HandedOverNotStoredCount => Volatile.Read(ref _handedOverNotStored);

    // Everything still handed over when the session can no longer take it: reported, counted, never silent.
    private int AbandonOutbox(SendNotStoredReason reason, long epochNs)
    {
        int count = 0;
        while (_handOff.TryRead(out ReadOnlySpan<byte> record))
        {
            SendHandOff.Parse(record, out _, out long token, out _);
            _handOff.Release();
            NotStored(token, reason);
            count++;
        }
        if (count > 0) Raise(SessionEventKind.Other, Logging.LogLevel.Error, count + " handed-over messages not stored (" + reason + "); reported through OnSendNotStored", epochNs);
        return count;
    }

    private void NotStored(long token, SendNotStoredReason reason)
    {
        Volatile.Write(ref _handedOverNotStored, _handedOverNotStored + 1);
        _application.OnSendNotStored(this, token, reason);
    }

    /// <summary>The engine is stopping: stores every message handed over so far (and sends it, or holds it in order,
    /// while connected) and closes the hand-off, so later <c>TrySendFromAnyThread</c> calls return false. Owner thread.</summary>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    /// <returns>How many messages were stored.</returns>
    internal int StoreHandedOverForStop(long epochNs)
    {
        _handOff.Close();
        if (_held && _store.CurrentFailure is null) ResumeFromHold(epochNs);
        return _storeFault is null && !_held ? DrainOutbox(epochNs, all: true) : 0;
    }

    /// <summary>The engine has stopped: reports every message still handed over (not stored) through
    /// <see cref="IApplication.OnSendNotStored"/> and counts it in <see cref="HandedOverNotStoredCount"/>. Owner thread.</summary>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    /// <returns>How many messages were reported.</returns>
    internal int AbandonHandedOver(long epochNs)
    {
        _handOff.Close();
        return AbandonOutbox(_storeFault is null ? SendNotStoredReason.EngineStopped : SendNotStoredReason.StoreFailed, epochNs);
    }
}
