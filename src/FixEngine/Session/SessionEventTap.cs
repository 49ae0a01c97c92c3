using System;
using System.Threading;

namespace FixEngine.Session;

/// <summary>Sees every event of every session of an engine, with its properties, on the session's thread (the admin
/// console's live tail).</summary>
internal interface ISessionEventObserver
{
    /// <summary>Session thread; the event is valid during the call only. Must not block or call into the session.</summary>
    void OnEvent(FixSession session, in SessionEvent sessionEvent, long epochNs);
}

/// <summary>The engine's observers of session events (beside each session's <see cref="ISessionLog"/>): every session of
/// the engine holds the same tap and, with nobody observing, raising an event costs one array-length read more.</summary>
internal sealed class SessionEventTap
{
    private readonly Lock _lock = new();
    private ISessionEventObserver[] _observers = [];

    public bool HasObservers => Volatile.Read(ref _observers).Length != 0;

    public void Add(ISessionEventObserver observer)
    {
        ArgumentNullException.ThrowIfNull(observer);
        lock (_lock) Volatile.Write(ref _observers, [.. _observers, observer]);
    }

    public void Remove(ISessionEventObserver observer)
    {
        lock (_lock) Volatile.Write(ref _observers, Array.FindAll(_observers, o => !ReferenceEquals(o, observer)));
    }

    public void Publish(FixSession session, in SessionEvent e, long epochNs)
    {
        foreach (ISessionEventObserver o in Volatile.Read(ref _observers)) o.OnEvent(session, in e, epochNs);
    }
}
