using System;
using System.Collections.Generic;
using System.IO.Pipelines;
using System.Net;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Diagnostics;
using FixEngine.Hosting;
using FixEngine.Session;
using FixEngine.Timing;
using FixEngine.Transport;

namespace FixEngine.Engine;

// The session table: building, publishing and routing sessions and their ports (AddSession, RemoveSession and the
// lookups that use it are in EngineRuntime.cs).
internal sealed partial class EngineRuntime
{
    /// <summary>One listening port: the listener, the settings it was built from (per-port keys are checked against
    /// them) and the sessions on it.</summary>
    private sealed class Port(Listener listener, SessionSettings reference, int maxMessageSize)
    {
        public Listener Listener { get; } = listener;

        public SessionSettings Reference { get; } = reference;

        public int MaxMessageSize { get; } = maxMessageSize;

        public int Sessions { get; set; }
    }

    // After the session was disposed (inside its gate): hands its log back to the log factory, once. A failing user factory
    // is reported, never thrown into RemoveSession's caller after the removal or out of Dispose.
    private void ReleaseLog(FixSession session, bool engineDisposing = false)
    {
        try
        {
            _factory.Release(session, engineDisposing);
        }
        catch (Exception e)
        {
            _console.LogReleaseFailed(session.Id, e);
        }
    }

    // Under _control: builds the session, its slot and (for a new acceptor port) its listener, then publishes it.
    private SessionSlot Add(SessionSettings settings)
    {
        ObjectDisposedException.ThrowIf(_disposed, typeof(FixEngineHost));
        if (_stopped || _agent.IsStopping) throw new InvalidOperationException($"cannot add session {settings.SessionId}: the engine is stopping or stopped");
        SessionId id = settings.SessionId;
        if (_byId.ContainsKey(id)) throw new ArgumentException($"the engine already runs session {id}", nameof(settings));
        bool acceptor = settings.ConnectionType == ConnectionType.Acceptor;
        // The port the system picked for SocketAcceptPort=0: the session joins that listener (as configured, port 0).
        if (acceptor && settings.SocketAcceptPort is int asked && asked != 0 && !_ports.ContainsKey(asked)
            && _ports.TryGetValue(0, out Port? picked) && picked.Listener.BoundPort == asked)
        {
            settings = settings with { SocketAcceptPort = 0 };
        }
        if (acceptor && _router.Contains(settings))
        {
            throw new ArgumentException($"the engine already has an acceptor session for {settings.BeginString} {settings.SenderCompID}->{settings.TargetCompID}", nameof(settings));
        }
        foreach (ConfigWarning warning in SettingsFile.Warnings([settings])) _console.Warning(warning);
        Port? newPort = null;
        // Hosted acceptors (ListenOnAcceptorPorts = false): the server that owns the port hands the connections over.
        if (acceptor && _options.ListenOnAcceptorPorts)
        {
            int portNumber = settings.SocketAcceptPort!.Value;
            if (_ports.TryGetValue(portNumber, out Port? port))
            {
                EngineConfiguration.CheckPort(portNumber, [port.Reference, settings]);
                if (settings.MaxMessageSize > port.MaxMessageSize)
                {
                    throw SettingsOrigin.Error(settings, nameof(SessionSettings.MaxMessageSize),
                        $"session {id}: {settings.MaxMessageSize} is larger than the {port.MaxMessageSize} SocketAcceptPort {portNumber} was opened with");
                }
            }
            else
            {
                newPort = NewPort(portNumber, settings, settings.MaxMessageSize);
            }
        }
        FixSession session;
        SessionSlot slot;
        try
        {
            session = _factory.Create(settings, _application, _time.EpochNow());
            session.AgentWakeup = _agentWakeup;
            session.Latency = _metrics.CreateSessionLatency(session.Id, _time.EpochNow);
            session.EventTap = EventTap;
            try
            {
                slot = NewSlot(session, newPort);
                if (newPort is not null && _started) newPort.Listener.Start();
            }
            catch
            {
                session.Dispose();
                ReleaseLog(session);
                throw;
            }
        }
        catch
        {
            newPort?.Listener.Stop();
            throw;
        }
        if (newPort is not null)
        {
            _ports.Add(settings.SocketAcceptPort!.Value, newPort);
            if (_started) _console.Listening(newPort.Listener.BoundPort);
        }
        _all.Add(slot);
        Publish();
        _agent.Submit(new SessionChange(slot, remove: false));
        if (acceptor)
        {
            _ports[settings.SocketAcceptPort!.Value].Sessions++;
            _router.Add(settings, slot);
            RefreshAllowList(settings.SocketAcceptPort!.Value);
        }
        _console.SessionAdded(id);
        return slot;
    }

    // Under _control: the snapshots read without a lock.
    private void Publish()
    {
        var byId = new Dictionary<SessionId, SessionSlot>(_all.Count);
        var sessions = new FixSession[_all.Count];
        for (int i = 0; i < _all.Count; i++)
        {
            byId.Add(_all[i].Session.Id, _all[i]);
            sessions[i] = _all[i].Session;
        }
        _byId = byId;
        _sessions = sessions;
    }

    private Port NewPort(int port, SessionSettings first, int maxMessageSize)
    {
        TlsOptions? tls = first.SocketUseSSL ? EngineTls.ForAcceptor(first, _owned) : null;
        IPAddress[] addresses = Listener.DefaultAddresses(HostResolver.ResolveAcceptHost(first));
        var gate = new UnauthenticatedGate(port, first.MaxUnauthenticatedConnections, first.MaxUnauthenticatedConnectionsPerAddress, _console);
        var listener = new Listener(addresses, port, EngineConfiguration.TransportOptions(first, maxMessageSize), tls, _router, _agent, _time, _console, gate, first);
        return new Port(listener, first, maxMessageSize);
    }

    private SessionSlot NewSlot(FixSession session, Port? newPort = null)
    {
        SessionSettings s = session.Settings;
        if (s.ConnectionType == ConnectionType.Acceptor)
        {
            // A hosted connection's thread (no engine listener on the port) enters the session through its gate, so such a
            // session always has one.
            Port? port = newPort ?? (_ports.TryGetValue(s.SocketAcceptPort!.Value, out Port? existing) ? existing : null);
            return ServicedByAgent(new SessionSlot(session, port?.Listener.Guarded ?? true, _time.EpochNow) { AllowedAddresses = ResolveAllowed(s) });
        }
        TcpConnectionOptions transport = EngineConfiguration.TransportOptions(s, s.MaxMessageSize);
        EngineTls.InitiatorTls? tls = s.SocketUseSSL ? EngineTls.ForInitiator(s, _owned) : null;
        var slot = new SessionSlot(session, InitiatorConnector.IsGuarded(transport, tls is not null), _time.EpochNow);
        slot.Initiator = new InitiatorConnector(slot, s.SocketConnectEndpoints, transport, tls, _agent, _time, _console, _prewarm, _options.ResolveHost);
        return ServicedByAgent(slot);
    }

    // Messages handed over while another thread holds the session ask the agent for this session alone.
    private SessionSlot ServicedByAgent(SessionSlot slot)
    {
        EngineAgent agent = _agent;
        slot.Session.AgentServiceRequest = () => agent.RequestService(slot);
        return slot;
    }

    // AllowedRemoteAddresses: every address of every entry (a name resolves now; one that does not is a ConfigException
    // naming the file, line and key); null when the session has no list.
    private static IPAddress[]? ResolveAllowed(SessionSettings s)
    {
        if (s.AllowedRemoteAddresses.Count == 0) return null;
        var addresses = new List<IPAddress>();
        foreach (string entry in s.AllowedRemoteAddresses)
        {
            foreach (IPAddress a in HostResolver.Resolve(entry, s, nameof(SessionSettings.AllowedRemoteAddresses)))
            {
                IPAddress address = UnauthenticatedGate.Key(new IPEndPoint(a, 0));
                if (!addresses.Contains(address)) addresses.Add(address);
            }
        }
        return [.. addresses];
    }

    // Under _control (or in the constructor): a port refuses at accept the addresses no session on it takes a Logon from;
    // any address when a session on it has no AllowedRemoteAddresses or an UnknownSessionHandler may add sessions to it.
    private void RefreshAllowList(int portNumber)
    {
        if (!_ports.TryGetValue(portNumber, out Port? port)) return;
        IPAddress[]? union = null;
        if (_options.UnknownSessionHandler is null)
        {
            var addresses = new List<IPAddress>();
            foreach (SessionSlot slot in _all)
            {
                SessionSettings s = slot.Session.Settings;
                if (s.ConnectionType != ConnectionType.Acceptor || s.SocketAcceptPort != portNumber) continue;
                if (slot.AllowedAddresses is null)
                {
                    addresses.Clear();
                    break;
                }
                foreach (IPAddress a in slot.AllowedAddresses)
                {
                    if (!addresses.Contains(a)) addresses.Add(a);
                }
            }
            if (addresses.Count > 0) union = [.. addresses];
        }
        port.Listener.AllowList = union;
    }

    // The receiving thread of a connection whose Logon names a session the engine does not run (AcceptorRouter.Route):
    // asks the application's handler, and makes the session it supplies (or answers with a Logout and closes).
    private SessionSlot? CreateUnknownSession(SessionConnection connection, ReadOnlySpan<byte> logon, long epochNs)
    {
        var index = new FixMessageIndex(64);
        index.Parse(logon);
        var m = new FixMessage(logon, index);
        m.TryGetSpan(FixTags.BeginString, out ReadOnlySpan<byte> beginBytes);
        m.TryGetSpan(FixTags.SenderCompID, out ReadOnlySpan<byte> theirSender);
        m.TryGetSpan(FixTags.TargetCompID, out ReadOnlySpan<byte> theirTarget);
        string begin = Encoding.ASCII.GetString(beginBytes);
        var id = new SessionId(begin, Encoding.ASCII.GetString(theirTarget), Encoding.ASCII.GetString(theirSender));
        string remote = connection.RemoteEndPoint;
        if (!m.TryGetSpan(FixTags.MsgType, out ReadOnlySpan<byte> msgType) || !msgType.SequenceEqual("A"u8))
        {
            connection.Close($"no session for {begin} {id.TargetCompID}->{id.SenderCompID} (first message is not a Logon)");
            return null;
        }
        string reason;
        lock (_control)
        {
            // Another connection may have created it meanwhile.
            if (_router.Find(id.BeginString, id.SenderCompID, id.TargetCompID) is SessionSlot existing) return existing;
            if (_stopped || _agent.IsStopping || _disposed)
            {
                connection.Close("engine stopping");
                return null;
            }
            UnknownSessionDecision decision;
            try
            {
                int arrivedOn = connection.ListeningPort != 0 ? connection.ListeningPort : connection.AcceptPort;
                decision = _options.UnknownSessionHandler!(new UnknownLogon(id, arrivedOn, connection.Transport.RemoteEndPoint, logon));
            }
            catch (Exception e)
            {
                decision = UnknownSessionDecision.Refuse($"the unknown-session handler failed: {e.GetType().Name}: {e.Message}");
            }
            if (decision.Settings is SessionSettings supplied)
            {
                // No port, or the port the system picked for SocketAcceptPort=0: the session joins the listener as configured.
                bool samePort = supplied.SocketAcceptPort is null
                    || (connection.ListeningPort != 0 && supplied.SocketAcceptPort == connection.ListeningPort);
                SessionSettings settings = samePort && supplied.ConnectionType == ConnectionType.Acceptor
                    ? supplied with { SocketAcceptPort = connection.AcceptPort }
                    : supplied;
                string? wrong = Mismatch(settings, id, connection.AcceptPort);
                if (wrong is null)
                {
                    try
                    {
                        settings.Validate();
                        SessionSlot slot = Add(settings);
                        _console.Accepted($"{remote}: unknown session {id} created by the UnknownSessionHandler");
                        return slot;
                    }
                    catch (Exception e)
                    {
                        // Whatever stops the session from being made (settings, store, certificates) refuses this Logon
                        // and never escapes into the receiving thread's loop.
                        wrong = $"the settings supplied for it cannot be used: {e.Message}";
                    }
                }
                reason = wrong;
            }
            else
            {
                reason = decision.RefusalReason ?? "unknown session";
            }
        }
        RefuseLogon(connection, id, reason, epochNs);
        return null;
    }

    private static string? Mismatch(SessionSettings s, SessionId id, int port)
    {
        if (s.ConnectionType != ConnectionType.Acceptor) return "the settings supplied for it are not an acceptor's (ConnectionType)";
        if (s.BeginString != id.BeginString || s.SenderCompID != id.SenderCompID || s.TargetCompID != id.TargetCompID)
        {
            return $"the settings supplied for it are for {s.BeginString} {s.SenderCompID}->{s.TargetCompID}, not {id.BeginString} {id.SenderCompID}->{id.TargetCompID}";
        }
        if (s.SocketAcceptPort != port) return $"the settings supplied for it name SocketAcceptPort {s.SocketAcceptPort}, but the Logon arrived on port {port}";
        return null;
    }

    // Answers a refused Logon with a Logout (MsgSeqNum 1, Text = the reason) and closes once it has left; the agent logs the
    // close with the peer's address and this reason.
    private void RefuseLogon(SessionConnection connection, SessionId id, string reason, long epochNs)
    {
        string text = reason.Replace('\u0001', ' ').Replace('\r', ' ').Replace('\n', ' ');
        AcceptorRouter.SendRefusal(connection, id, text, epochNs);
        connection.Close($"Logon for unknown session {id} refused: {text}");
    }

    private void ReleaseOwned()
    {
        foreach (IDisposable d in _owned) d.Dispose();
        _owned.Clear();
    }

}
