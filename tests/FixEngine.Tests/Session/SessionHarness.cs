using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Dictionary;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;

namespace FixEngine.Tests.Session;

public sealed class FakeConnection : ISessionConnection
{
    public List<byte[]> Sent { get; } = [];

    public bool Disconnected { get; private set; }

    public string? Reason { get; private set; }

    public bool CaptureEnabled { get; set; } = true;

    /// <summary>Messages sent (a batch counts each of its messages).</summary>
    public long SentCount { get; private set; }

    /// <summary>Calls of <see cref="Send"/> that took their bytes.</summary>
    public long SendCalls { get; private set; }

    /// <summary>Bytes the fake transport still takes before it answers Backpressure (as a full send queue does);
    /// null = unlimited. A message that does not fit is refused whole.</summary>
    public long? FreeBytes { get; set; }

    /// <summary>Sends refused with Backpressure.</summary>
    public long Refused { get; private set; }

    /// <summary>What the fake says the peer has sent and nobody has read yet (<c>ISessionConnection.UnreadInboundBytes</c>).</summary>
    public int UnreadInboundBytes { get; set; }

    /// <summary>The largest write the fake transport takes; a larger one is refused whole with TooLarge (as a send queue
    /// smaller than the write). null = unlimited.</summary>
    public int? MaxSendBytes { get; set; }

    /// <summary>Sends refused with TooLarge.</summary>
    public long TooLarge { get; private set; }

    public SendResult Send(ReadOnlySpan<byte> message)
    {
        if (Disconnected) return SendResult.Closed;
        if (message.Length > MaxSendBytes)
        {
            TooLarge++;
            return SendResult.TooLarge;
        }
        if (FreeBytes is long free)
        {
            if (message.Length > free)
            {
                Refused++;
                return SendResult.Backpressure;
            }
            FreeBytes = free - message.Length;
        }
        SendCalls++;
        // One send may carry several whole messages (a replay step's batch): they are recorded one by one, as the peer
        // would frame them from the stream.
        while (!message.IsEmpty)
        {
            FrameResult frame = FixFramer.Frame(message, int.MaxValue);
            int length = frame.IsComplete ? frame.Length : message.Length;
            SentCount++;
            if (CaptureEnabled) Sent.Add(message.Slice(0, length).ToArray());
            message = message.Slice(length);
        }
        return SendResult.Sent;
    }

    public void Disconnect(string reason)
    {
        Disconnected = true;
        Reason = reason;
    }
}

/// <summary>Echoes NewOrderSingle (like the AT application); everything else is unsupported. Records callbacks.</summary>
public sealed class EchoApp : IApplication
{
    public int Logons;
    public int Logouts;
    public int FromAppCount;
    public List<string> AdminTypes { get; } = [];
    public string? RefuseLogonWith;
    public bool RecordAdmin = true;
    /// <summary>Each application message's <c>IsPossibleRedelivery</c>, in order, while <see cref="RecordRedelivery"/>
    /// is set. Off by default: a list that grows while an allocation window runs allocates in some windows and not in
    /// others (its doubling), which is how one one-off runtime allocation in the one window without growth failed
    /// SessionAllocationTests (suite under load, sequence J, and a bare-clone run on 2026-12-07).</summary>
    public List<bool> PossibleRedelivery { get; } = [];

    /// <summary>Record <see cref="PossibleRedelivery"/> (off by default; see there).</summary>
    public bool RecordRedelivery;

    public void OnLogon(FixEngine.Session.FixSession session) => Logons++;

    public void OnLogout(FixEngine.Session.FixSession session) => Logouts++;

    public void FromAdmin(FixEngine.Session.FixSession session, FixMessage message)
    {
        if (RecordAdmin) AdminTypes.Add(Encoding.ASCII.GetString(message.MsgType));
        if (RefuseLogonWith is not null && message.MsgType.SequenceEqual("A"u8)) throw new RejectLogonException(RefuseLogonWith);
    }

    public FromAppResult FromApp(FixEngine.Session.FixSession session, FixMessage message)
    {
        FromAppCount++;
        if (RecordRedelivery) PossibleRedelivery.Add(session.IsPossibleRedelivery);
        if (!message.MsgType.SequenceEqual("D"u8)) return FromAppResult.UnsupportedMessageType;
        session.Send(message.MsgType, message, static (ref FixWriter w, scoped in FixMessage m) =>
        {
            for (int i = 0; i < m.Count; i++)
            {
                int tag = m.GetTag(i);
                if (tag is 8 or 9 or 10 or 34 or 35 or 49 or 52 or 56 or 43 or 122) continue;
                w.Write(tag, m.GetValue(i));
            }
        });
        return FromAppResult.Accepted;
    }
}

/// <summary>One session (acceptor by default) on a fake connection and a fake clock; messages written as "35=0|34=2|...".</summary>
public sealed class SessionHarness : IDisposable
{
    public const long Second = 1_000_000_000L;

    /// <summary>An hour of the harness's clock.</summary>
    public const long Hour = 3600 * Second;

    /// <summary>A HeartBtInt longer than any jump of the clock a schedule test makes, so heartbeats and TestRequests keep
    /// out of the way while hours pass between polls.</summary>
    public const int QuietHeartBtInt = 20_000;

    /// <summary><paramref name="s"/> as an initiator of 127.0.0.1:5001 with <see cref="QuietHeartBtInt"/>.</summary>
    public static SessionSettings QuietInitiator(SessionSettings s) => s with
    {
        ConnectionType = ConnectionType.Initiator,
        SocketAcceptPort = null,
        SocketConnectHost = "127.0.0.1",
        SocketConnectPort = 5001,
        HeartBtInt = QuietHeartBtInt,
    };
    private static readonly Dictionary<string, DataDictionary> s_dictionaries = [];

    public SessionHarness(string beginString = "FIX.4.2", Func<SessionSettings, SessionSettings>? configure = null, IMessageStore? store = null, bool connect = true, IApplication? application = null,
        ISessionLog? log = null, IReadOnlyDictionary<string, DataDictionary>? appVersions = null)
    {
        BeginString = beginString;
        (Sender, Target) = ("ISLD", beginString switch { "FIX.4.4" => "TW44", "FIXT.1.1" => "TW50SP2", _ => "TW42" });
        var settings = new SessionSettings
        {
            ConnectionType = ConnectionType.Acceptor,
            BeginString = beginString,
            SenderCompID = Sender,
            TargetCompID = Target,
            SocketAcceptPort = 5001,
            NonStopSession = true,
            ResetOnLogon = true,
            DefaultApplVerID = beginString == "FIXT.1.1" ? "FIX.5.0SP2" : null,
        };
        if (configure is not null) settings = configure(settings);
        Now = StartEpochNs;
        Store = store ?? new MemoryMessageStore(Now, 16 << 20);
        DataDictionary? session;
        DataDictionary? app = null;
        if (beginString == "FIXT.1.1")
        {
            session = Dictionary("FIXT11.xml");
            app = Dictionary("FIX50SP2.xml");
        }
        else
        {
            session = Dictionary(beginString.Replace("FIX.", "FIX").Replace(".", "") + ".xml");
        }
        Session = new FixEngine.Session.FixSession(settings, application ?? App, Store, log, session, app,
            appVersions is null ? null : new ApplicationDictionaries(appVersions));
        if (connect) Connect();
    }

    /// <summary>The harness's clock at construction: Monday 2026-01-05 12:00 UTC.</summary>
    public static long StartEpochNs { get; } = new DateTimeOffset(2026, 1, 5, 12, 0, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L;

    /// <summary>A memory store with its index and arena rented up front (16 MiB, 65,536 entries), for allocation tests
    /// that store more than a few messages: the default store grows from 4 KiB through <see cref="System.Buffers.ArrayPool{T}.Shared"/>,
    /// and whether that pool holds an array of the next size depends on what else ran in the process and on the pool's
    /// trimming, not on the session. Store growth has its own tests (StoreFootprintTests).</summary>
    public static MemoryMessageStore ReservedStore() => new(StartEpochNs, initialIndexCapacity: 65_536, initialCapacityInBytes: 16 << 20);

    public string BeginString { get; }

    public string Sender { get; }

    public string Target { get; }

    public long Now { get; set; }

    public EchoApp App { get; } = new();

    public IMessageStore Store { get; }

    public FixEngine.Session.FixSession Session { get; }

    public FakeConnection Connection { get; private set; } = new();

    public int Read { get; set; }

    public static DataDictionary Dictionary(string file)
    {
        lock (s_dictionaries)
        {
            if (!s_dictionaries.TryGetValue(file, out DataDictionary? d))
            {
                d = DataDictionary.Load(SharedPaths.Dictionary(file));
                s_dictionaries.Add(file, d);
            }
            return d;
        }
    }

    public void Connect()
    {
        Connection = new FakeConnection();
        Read = 0;
        Session.OnConnected(Connection, Now);
    }

    public string Time(long offsetNs = 0)
    {
        DateTime t = DateTime.UnixEpoch.AddTicks((Now + offsetNs) / 100);
        return t.ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture);
    }

    /// <summary>Builds a message from "35=..|34=..|..." adding 8, 49, 56, 52 (unless present), 9 and 10.</summary>
    public byte[] Build(string fields, bool addHeader = true)
    {
        string body = fields.Replace('|', '\u0001');
        if (!body.EndsWith('\u0001')) body += '\u0001';
        if (addHeader)
        {
            int afterType = body.IndexOf('\u0001') + 1;
            string extra = "";
            if (!fields.Contains("|49=") && !fields.StartsWith("49=")) extra += "49=" + Target + "\u0001";
            if (!fields.Contains("|56=") && !fields.StartsWith("56=")) extra += "56=" + Sender + "\u0001";
            if (!fields.Contains("|52=")) extra += "52=" + Time() + "\u0001";
            body = body.Substring(0, afterType) + extra + body.Substring(afterType);
        }
        string head = "8=" + BeginString + "\u00019=" + body.Length + "\u0001";
        string withoutSum = head + body;
        int sum = 0;
        foreach (char c in withoutSum) sum += c;
        return Encoding.ASCII.GetBytes(withoutSum + "10=" + (sum % 256).ToString("D3") + "\u0001");
    }

    public void Receive(string fields, bool addHeader = true) => Session.OnMessage(Build(fields, addHeader), Now);

    public void Logon(int heartBtInt = 30, string extra = "")
    {
        string applVer = BeginString == "FIXT.1.1" ? "|1137=9" : "";
        Receive("35=A|34=1|98=0|108=" + heartBtInt + applVer + extra);
        Expect("A");
    }

    public void Advance(long ns)
    {
        Now += ns;
        Session.Poll(Now);
    }

    /// <summary>The next unread outbound message as tag→value (first occurrence) plus the raw text.</summary>
    public Sent Next()
    {
        Assert.True(Read < Connection.Sent.Count, $"expected another outbound message, only {Connection.Sent.Count} were sent");
        return new Sent(Connection.Sent[Read++]);
    }

    public Sent Expect(string msgType)
    {
        Sent m = Next();
        Assert.True(m[35] == msgType, $"expected 35={msgType}, got {m.Text}");
        return m;
    }

    public void ExpectNothing() => Assert.True(Read == Connection.Sent.Count, Connection.Sent.Count > Read ? "unexpected " + new Sent(Connection.Sent[Read]).Text : "");

    public void Dispose() => Session.Dispose();
}

public sealed class Sent
{
    private readonly Dictionary<int, string> _fields = [];

    public Sent(byte[] bytes)
    {
        Text = Encoding.ASCII.GetString(bytes).Replace('\u0001', '|');
        foreach (string field in Text.Split('|', StringSplitOptions.RemoveEmptyEntries))
        {
            int eq = field.IndexOf('=');
            int tag = int.Parse(field.AsSpan(0, eq), System.Globalization.CultureInfo.InvariantCulture);
            _fields.TryAdd(tag, field.Substring(eq + 1));
        }
        var index = new FixMessageIndex();
        Assert.True(FixFramer.Frame(bytes, 1 << 20).IsComplete, "outbound message does not frame: " + Text);
    }

    public string Text { get; }

    public string? this[int tag] => _fields.TryGetValue(tag, out string? v) ? v : null;

    public bool Has(int tag) => _fields.ContainsKey(tag);
}
