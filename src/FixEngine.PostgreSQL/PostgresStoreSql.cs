namespace FixEngine.PostgreSQL;

/// <summary>The SQL of <see cref="PostgresMessageStore"/> for one table prefix (schema version 1, see docs/postgres-store.md).</summary>
internal sealed class PostgresStoreSql
{
    /// <summary>SQLSTATE raised by the fence function when a write carries a stale fencing token.</summary>
    public const string FencedSqlState = "FXF01";

    public PostgresStoreSql(string prefix)
    {
        string p = prefix;
        string sessions = p + "sessions";
        string messages = p + "messages";
        VersionTable = p + "schema_version";
        SchemaLockKey = "fixengine-schema:" + p;
        CreateSchema =
            $"CREATE TABLE IF NOT EXISTS {VersionTable} (version integer NOT NULL, installed_at timestamptz NOT NULL DEFAULT clock_timestamp());\n" +
            $"CREATE TABLE IF NOT EXISTS {sessions} (\n" +
            "  session_id text PRIMARY KEY,\n" +
            "  creation_time_ns bigint NOT NULL,\n" +
            "  next_sender_seq_num integer NOT NULL DEFAULT 1,\n" +
            "  next_target_seq_num integer NOT NULL DEFAULT 1,\n" +
            "  last_processed_inbound integer NOT NULL DEFAULT 0,\n" +
            "  fencing_token bigint NOT NULL DEFAULT 0,\n" +
            "  written_token bigint NOT NULL DEFAULT 0,\n" +
            "  lease_holder text,\n" +
            "  lease_expires_at timestamptz,\n" +
            "  updated_at timestamptz NOT NULL DEFAULT clock_timestamp());\n" +
            $"CREATE TABLE IF NOT EXISTS {messages} (\n" +
            "  session_id text NOT NULL,\n" +
            "  seq_num integer NOT NULL,\n" +
            "  body bytea NOT NULL,\n" +
            "  PRIMARY KEY (session_id, seq_num));\n" +
            $"CREATE OR REPLACE FUNCTION {p}fence(p_session text, p_token bigint) RETURNS void LANGUAGE plpgsql AS $fn$\n" +
            "DECLARE current_token bigint; holder text;\n" +
            "BEGIN\n" +
            $"  SELECT fencing_token, lease_holder INTO current_token, holder FROM {sessions} WHERE session_id = p_session FOR UPDATE;\n" +
            "  IF current_token IS NULL THEN\n" +
            $"    RAISE EXCEPTION 'FixEngine store: session % has no row in {sessions}', p_session USING ERRCODE = '{FencedSqlState}';\n" +
            "  ELSIF current_token <> p_token THEN\n" +
            "    RAISE EXCEPTION 'FixEngine store: write to session % with fencing token % refused: the session was taken over (current token %, holder %)',\n" +
            $"      p_session, p_token, current_token, coalesce(holder, 'none') USING ERRCODE = '{FencedSqlState}';\n" +
            "  END IF;\n" +
            "END $fn$;\n" +
            $"INSERT INTO {VersionTable} (version) VALUES ({PostgresMessageStoreOptions.SchemaVersion});";
        ReadVersion = $"SELECT max(version) FROM {VersionTable}";
        TableExists = "SELECT to_regclass($1) IS NOT NULL";
        EnsureSession = $"INSERT INTO {sessions} (session_id, creation_time_ns) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING";
        // The third column says whether the previous holder left without releasing the lease (it expired): it may have
        // sent messages it never committed. The sub-select locks the row first, so two standbys see each other's take.
        Acquire =
            $"UPDATE {sessions} s SET fencing_token = s.fencing_token + 1, lease_holder = $2, " +
            "lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond', updated_at = clock_timestamp() " +
            $"FROM (SELECT lease_holder AS previous FROM {sessions} WHERE session_id = $1 FOR UPDATE) p " +
            "WHERE s.session_id = $1 AND (s.lease_holder IS NULL OR s.lease_expires_at IS NULL OR s.lease_expires_at <= clock_timestamp()) " +
            "RETURNING s.fencing_token, s.written_token, p.previous IS NOT NULL";
        LeaseInfo =
            $"SELECT coalesce(lease_holder, ''), fencing_token, coalesce(extract(epoch FROM lease_expires_at - clock_timestamp()) * 1000, 0)::float8 " +
            $"FROM {sessions} WHERE session_id = $1";
        Renew =
            $"UPDATE {sessions} SET lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond' " +
            "WHERE session_id = $1 AND fencing_token = $2 AND lease_holder = $4";
        Release = $"UPDATE {sessions} SET lease_holder = NULL, lease_expires_at = NULL WHERE session_id = $1 AND fencing_token = $2";
        LoadState = $"SELECT fencing_token, creation_time_ns, next_sender_seq_num, next_target_seq_num, last_processed_inbound FROM {sessions} WHERE session_id = $1";
        LoadMessages = $"SELECT seq_num, body FROM {messages} WHERE session_id = $1 ORDER BY seq_num";
        Fence = $"SELECT {p}fence($1, $2)";
        UpdateState =
            $"UPDATE {sessions} SET next_sender_seq_num = $3, next_target_seq_num = $4, creation_time_ns = $5, last_processed_inbound = $6, written_token = $2, " +
            "updated_at = clock_timestamp() WHERE session_id = $1 AND fencing_token = $2";
        DeleteMessages = $"DELETE FROM {messages} WHERE session_id = $1";
        UpsertMessages =
            // One bytea parameter carries every message back to back; each row is cut out of it (offsets are 0-based).
            $"INSERT INTO {messages} (session_id, seq_num, body) SELECT $1, t.s, substring($5::bytea FROM t.o + 1 FOR t.l) " +
            "FROM unnest($2::integer[], $3::integer[], $4::integer[]) AS t(s, o, l) " +
            "ON CONFLICT (session_id, seq_num) DO UPDATE SET body = EXCLUDED.body";
    }

    public string VersionTable { get; }
    public string SchemaLockKey { get; }
    public string CreateSchema { get; }
    public string ReadVersion { get; }
    public string TableExists { get; }
    public string EnsureSession { get; }
    public string Acquire { get; }
    public string LeaseInfo { get; }
    public string Renew { get; }
    public string Release { get; }
    public string LoadState { get; }
    public string LoadMessages { get; }
    public string Fence { get; }
    public string UpdateState { get; }
    public string DeleteMessages { get; }
    public string UpsertMessages { get; }
}
