using System;
using System.Globalization;
using System.Net.Sockets;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.PostgreSQL;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>The parameters of a FixEngine session ↔ FixEngine session configuration, shared by the one-process system,
/// the two-process parent (initiator) and the child process (acceptor), so both sides run the same settings.</summary>
/// <param name="Idle">Engine agent idle strategy.</param>
/// <param name="FileStore">File store in a temporary directory (true) or memory store.</param>
/// <param name="ReceiveMode">Transport receive mode written into the settings.</param>
/// <param name="OrdersPerRun">Most orders one run sends (warm-up + measured); sizes the stores so they never grow
/// inside the measured window.</param>
/// <param name="PostgresSync">A PostgreSQL store with this sync policy (PerMessage, GroupCommit) on the server named by
/// <see cref="PostgresVariable"/>, instead of the memory or file store; null for none.</param>
/// <param name="FileSync">The file store's <c>FileStoreSync</c> policy (OS, Batched, PerMessage); ignored without
/// <paramref name="FileStore"/>.</param>
public sealed record EngineSessionSpec(IdleStrategyKind Idle, bool FileStore, ReceiveMode ReceiveMode, int OrdersPerRun, string? PostgresSync = null, string FileSync = "OS")
{
    /// <summary>The environment variable holding the Npgsql connection string of the PostgreSQL configurations
    /// (<c>bash .ci/postgres.sh start</c> prints one, as FIXENGINE_TEST_POSTGRES; FIXENGINE_PG_DURABLE=1 keeps fsync).</summary>
    public const string PostgresVariable = "FIXENGINE_TEST_POSTGRES";

    private const string RolePrefix = "session";

    /// <summary>Heartbeats, logon, logout and slack on top of the orders.</summary>
    private const int AdminMessageSlack = 1_024;

    /// <summary>Bytes reserved per stored message: the ExecutionReport (the larger of the two messages, ~250 B) plus
    /// room for longer sequence numbers and the unused tail of each 1 MiB chunk.</summary>
    private const int StoredBytesPerMessage = 320;

    /// <summary>The child-process role naming this spec (<c>session:Yielding:mem:BusyPoll:51000</c>).</summary>
    public string ToRole() =>
        string.Create(CultureInfo.InvariantCulture, $"{RolePrefix}:{Idle}:{StoreName}:{ReceiveMode}:{OrdersPerRun}");

    /// <summary>The store part of the role and of the configuration keys: <c>mem</c>, <c>file</c> (FileStoreSync=OS),
    /// <c>filebatch</c>, <c>filesync</c> (PerMessage), <c>pg-PerMessage</c>, <c>pg-GroupCommit</c>.</summary>
    public string StoreName =>
        PostgresSync is not null ? "pg-" + PostgresSync
        : !FileStore ? "mem"
        : FileSync switch { "Batched" => "filebatch", "PerMessage" => "filesync", _ => "file" };

    /// <summary>The <c>FileStoreSync</c> value for a store part of a key (<c>file</c>, <c>filebatch</c>, <c>filesync</c>);
    /// null for any other text.</summary>
    public static string? FileSyncOf(string store) => store switch
    {
        "file" => "OS",
        "filebatch" => "Batched",
        "filesync" => "PerMessage",
        _ => null,
    };

    /// <summary>Parses a role written by <see cref="ToRole"/>; false for any other text.</summary>
    public static bool TryParseRole(string role, out EngineSessionSpec spec)
    {
        spec = null!;
        string[] parts = role.Split(':');
        if (parts.Length != 5 || parts[0] != RolePrefix) return false;
        if (!Enum.TryParse(parts[1], false, out IdleStrategyKind idle)) return false;
        string? pg = parts[2] is "pg-PerMessage" or "pg-GroupCommit" ? parts[2][3..] : null;
        string? fileSync = FileSyncOf(parts[2]);
        if (pg is null && fileSync is null && parts[2] != "mem") return false;
        if (!Enum.TryParse(parts[3], false, out ReceiveMode mode)) return false;
        if (!int.TryParse(parts[4], NumberStyles.None, CultureInfo.InvariantCulture, out int orders) || orders < 1) return false;
        spec = new EngineSessionSpec(idle, fileSync is not null, mode, orders, pg, fileSync ?? "OS");
        return true;
    }

    /// <summary>Settings common to acceptor and initiator. The store capacities cover a whole run (see
    /// <see cref="OrdersPerRun"/>): the index and, for the memory store, the byte arena are preallocated at start-up.</summary>
    public string CommonSettings(string? storeRoot)
    {
        long messages = (long)OrdersPerRun + AdminMessageSlack;
        int indexCapacity = (int)Math.Min(int.MaxValue, messages);
        int memoryBytes = (int)Math.Min(int.MaxValue, messages * StoredBytesPerMessage);
        return $"""
            [DEFAULT]
            HeartBtInt=30
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=N
            ResetOnLogon=Y
            SocketNodelay=Y
            IdleStrategy={Idle}
            ReceiveMode={ReceiveMode}
            StoreIndexCapacity={indexCapacity}
            MemoryStoreCapacityBytes={memoryBytes}
            {(storeRoot is null ? "" : "FileStorePath=" + storeRoot + "\nFileStoreSync=" + FileSync)}
            {(PostgresSync is null ? "" : $"PostgreSQLStoreConnectionString={Environment.GetEnvironmentVariable(PostgresVariable)}\nPostgreSQLStoreTablePrefix=fixengine_roundtrip_\nPostgreSQLStoreSync={PostgresSync}")}
            """;
    }

    /// <summary>Creates and starts the acceptor host (answers each NewOrderSingle with an ExecutionReport) on a free
    /// loopback port; returns the started host. <paramref name="events"/> receives the engine's event lines.</summary>
    public FixEngineHost StartAcceptor(string? storeRoot, Action<string>? events = null)
    {
        // The settings validation rejects port 0, so borrow a free port from the OS; another process may take it
        // between the probe and the bind, so retry a few times with a new port.
        for (int attempt = 1; ; attempt++)
        {
            int freePort;
            using (Socket probe = LoopbackTcp.Listen(0)) freePort = LoopbackTcp.PortOf(probe);
            var host = new FixEngineHost(
                SettingsFile.Parse(
                    CommonSettings(storeRoot) + $"\nConnectionType=acceptor\nSocketAcceptPort={freePort}\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=BROKER01\nTargetCompID=CLIENT01\n",
                    "<roundtrip acceptor>"),
                new ExecutionReportResponder(),
                new EngineOptions { Console = events, MessageStoreFactory = PostgresMessageStoreFactory.Instance });
            try
            {
                host.Start();
                return host;
            }
            catch (SocketException) when (attempt < 5)
            {
                host.Dispose();
            }
        }
    }

    /// <summary>Creates and starts the initiator host connecting to <paramref name="acceptorPort"/>.
    /// <paramref name="events"/> receives the engine's event lines.</summary>
    public FixEngineHost StartInitiator(int acceptorPort, string? storeRoot, IApplication application, Action<string>? events = null)
    {
        var host = new FixEngineHost(
            SettingsFile.Parse(
                CommonSettings(storeRoot) + $"\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={acceptorPort}\nReconnectInterval=1\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT01\nTargetCompID=BROKER01\n",
                "<roundtrip initiator>"),
            application,
            new EngineOptions { Console = events, MessageStoreFactory = PostgresMessageStoreFactory.Instance });
        host.Start();
        return host;
    }
}
