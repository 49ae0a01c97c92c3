using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Transport;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Registration of the configurations that run the incumbents (QuickFIX C++ and QuickFIX/n peer programs,
/// benchmarks/Peers), against each other and against FixEngine in both roles.</summary>
/// <remarks>
/// Keys are <c>initiator-acceptor</c>: <c>qfcpp</c> (QuickFIX C++ 1.15, ThreadedSocket*: a thread per session,
/// blocking reads), <c>qfn</c> (QuickFIX/n 1.14.1, ThreadedSocketAcceptor / SocketInitiator), <c>fixengine</c> in its
/// default configuration (dedicated receive mode, Backoff agent), <c>fixengine-yield</c> (busy-poll receive, Yielding
/// agent), <c>fixengine-completion</c> (completion receive, Yielding agent) or <c>fixengine-blocking</c> (dedicated
/// receive, Blocking agent: the agent parks whenever a duty cycle found no work). Every side runs in its own process
/// except a FixEngine acceptor facing a peer initiator, which runs in the harness process (the peer is the other
/// process). When the initiator is a peer it paces and times the orders itself (<see cref="PeerInitiatorRun"/>);
/// when it is FixEngine the harness does, and the peer acceptor is a child process
/// (<see cref="ChildProcessSystem.ForPeer"/>). The stores are memory stores on every side; the QuickFIX peers validate
/// against ../shared/dictionaries/FIX44.xml (their usual set-up), FixEngine runs with UseDataDictionary=N as in the
/// FixEngine ↔ FixEngine configurations.
/// </remarks>
public static class PeerConfigurations
{
    /// <summary>The pairing every ratio in the report is taken against.</summary>
    public const string BaselineKey = "qfcpp-qfcpp";

    /// <summary>Adds the peer configurations to <paramref name="list"/>.</summary>
    public static void Register(List<RoundTripConfiguration> list)
    {
        var peers = new (string Key, PeerKind Kind)[] { ("qfcpp", PeerKind.QuickFixCpp), ("qfn", PeerKind.QuickFixN) };
        var engines = new (string Suffix, string Text, IdleStrategyKind Idle, ReceiveMode Receive)[]
        {
            ("", "default configuration (dedicated receive, Backoff agent)", IdleStrategyKind.Backoff, ReceiveMode.Dedicated),
            ("-yield", "busy-poll receive, Yielding agent", IdleStrategyKind.Yielding, ReceiveMode.BusyPoll),
            ("-completion", "completion receive, Yielding agent", IdleStrategyKind.Yielding, ReceiveMode.Completion),
            ("-blocking", "dedicated receive, Blocking agent (parks whenever idle, never spins or yields)", IdleStrategyKind.Blocking, ReceiveMode.Dedicated),
        };
        foreach ((string initiatorKey, PeerKind initiator) in peers)
        {
            foreach ((string acceptorKey, PeerKind acceptor) in peers)
            {
                string key = $"{initiatorKey}-{acceptorKey}";
                list.Add(new RoundTripConfiguration(
                    key,
                    $"{PeerPrograms.DisplayName(initiator)} initiator → {PeerPrograms.DisplayName(acceptor)} acceptor, two processes",
                    null,
                    null)
                {
                    PeerInitiator = _ => new PeerInitiatorRun(key, initiator, acceptor),
                    Peers = initiator == acceptor ? [initiator] : [initiator, acceptor],
                });
            }
        }
        foreach ((string peerKey, PeerKind peer) in peers)
        {
            foreach ((string suffix, string text, IdleStrategyKind idle, ReceiveMode receive) in engines)
            {
                string acceptorKey = $"{peerKey}-fixengine{suffix}";
                list.Add(new RoundTripConfiguration(
                    acceptorKey,
                    $"{PeerPrograms.DisplayName(peer)} initiator (child process) → FixEngine acceptor, {text}, memory store",
                    null,
                    null)
                {
                    PeerInitiator = setup => new PeerInitiatorRun(acceptorKey, peer, new EngineSessionSpec(idle, false, receive, setup.OrdersPerRun)),
                    Peers = [peer],
                });
                string initiatorKey = $"fixengine{suffix}-{peerKey}";
                list.Add(new RoundTripConfiguration(
                    initiatorKey,
                    $"FixEngine initiator, {text}, memory store → {PeerPrograms.DisplayName(peer)} acceptor (child process)",
                    setup =>
                    {
                        var spec = new EngineSessionSpec(idle, false, receive, setup.OrdersPerRun);
                        return ChildProcessSystem.ForPeer(
                            initiatorKey,
                            () => PeerPrograms.StartInfo(peer, "acceptor", 0),
                            acceptorPort => new EngineSessionSystem(initiatorKey, spec, acceptorPort));
                    },
                    null)
                {
                    Peers = [peer],
                });
            }
        }
    }
}
