using System;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Store;

namespace FixEngine.PostgreSQL;

/// <summary>Makes a <see cref="PostgresMessageStore"/> for each session whose settings set
/// <c>PostgreSQLStoreConnectionString</c> (with <c>PostgreSQLStoreTablePrefix</c>, <c>PostgreSQLStoreSync</c>,
/// <c>PostgreSQLStoreLeaseTimeout</c>, and <c>StoreFailurePolicy</c>), and hands every other session to another factory
/// (by default the file or memory store the settings ask for).</summary>
/// <remarks>
/// <code>
/// using var engine = new FixEngineHost(SettingsFile.Load("acceptor.cfg"), app,
///     new EngineOptions { MessageStoreFactory = PostgresMessageStoreFactory.Instance });
/// </code>
/// With <c>AddFixEngine</c> (FixEngine.Extensions.Hosting), register it instead:
/// <c>services.AddSingleton&lt;IMessageStoreFactory&gt;(PostgresMessageStoreFactory.Instance)</c>. See
/// docs/postgres-store.md.
/// </remarks>
public sealed class PostgresMessageStoreFactory : IMessageStoreFactory
{
    private readonly IMessageStoreFactory _others;

    /// <summary>A factory whose other sessions get the store their settings ask for (file or memory).</summary>
    public PostgresMessageStoreFactory()
        : this(SettingsMessageStoreFactory.Instance)
    {
    }

    /// <summary>A factory whose sessions without <c>PostgreSQLStoreConnectionString</c> go to <paramref name="others"/>.</summary>
    /// <param name="others">Makes the stores of the other sessions.</param>
    public PostgresMessageStoreFactory(IMessageStoreFactory others)
    {
        ArgumentNullException.ThrowIfNull(others);
        _others = others;
    }

    /// <summary>The factory with the default for other sessions (stateless; share it).</summary>
    public static PostgresMessageStoreFactory Instance { get; } = new();

    /// <inheritdoc/>
    /// <exception cref="ConfigException">A <c>PostgreSQLStore*</c> value is invalid (see
    /// <see cref="PostgresStoreSettings.Parse"/>), or the other factory refuses the session.</exception>
    public void Validate(SessionSettings settings)
    {
        if (PostgresStoreSettings.Parse(settings).ConnectionString is null) _others.Validate(settings);
    }

    /// <inheritdoc/>
    /// <remarks>A PostgreSQL store blocks until this engine holds the session's lease: a standby engine waits here while
    /// the primary renews it, and takes the session over once the primary's lease expires (or is released on its clean
    /// stop).</remarks>
    /// <exception cref="ConfigException">As <see cref="Validate"/>.</exception>
    /// <exception cref="PostgresStoreException">The database is unreachable, its schema is newer, or the lease could not
    /// be taken.</exception>
    public IMessageStore Create(SessionSettings settings, long epochNs)
    {
        PostgresStoreSettings pg = PostgresStoreSettings.Parse(settings);
        if (pg.ConnectionString is not string connection) return _others.Create(settings, epochNs);
        return new PostgresMessageStore(settings.SessionId.ToString(), epochNs, new PostgresMessageStoreOptions
        {
            ConnectionString = connection,
            TablePrefix = pg.TablePrefix,
            SyncPolicy = pg.Sync,
            LeaseDuration = TimeSpan.FromSeconds(pg.LeaseTimeout),
            // A holding session waits for its own lease to come back instead of stopping for good.
            ResumeAfterLeaseLost = settings.StoreFailurePolicy == StoreFailurePolicy.Hold,
            LocalJournalDirectory = settings.FileStorePath,
            LocalJournalOptions = SettingsMessageStoreFactory.FileOptions(settings, sharedAccess: false),
            InitialIndexCapacity = settings.StoreIndexCapacity,
            InitialCapacityInBytes = settings.MemoryStoreCapacityBytes,
        });
    }
}
