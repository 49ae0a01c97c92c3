using System;
using System.Globalization;
using System.IO;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Engine;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>The child process of <see cref="ChildProcessSystem"/> (<c>roundtrip --acceptor-only role</c>): starts the
/// acceptor for the role, reports its port, then serves the parent's commands on stdin until EXIT or end of file.</summary>
/// <remarks>
/// Roles: <see cref="ChildProcessSystem.CodecAcceptorRole"/> (a <see cref="CodecAcceptor"/> on one connection) or an
/// <see cref="EngineSessionSpec.ToRole"/> string (a FixEngineHost acceptor with the same settings as the one-process
/// configuration). The main thread reads commands from the raw stdin stream into a fixed buffer and answers BEGIN
/// without allocating after its snapshot, so the window it reports contains only the acceptor's own allocation; the
/// WINDOW line is formatted after the END snapshot. Nothing else is written to stdout.
/// </remarks>
internal static class AcceptorProcess
{
    // Written by the command thread, read by the engine thread's event callback.
    private static bool s_inWindow;

    public static int Run(string role)
    {
        IAcceptor acceptor;
        try
        {
            if (role == ChildProcessSystem.CodecAcceptorRole) acceptor = new CodecRole();
            else if (FloorRole.TryParse(role, out int orderLength, out int replyLength)) acceptor = new FloorRole(orderLength, replyLength);
            else if (EngineSessionSpec.TryParseRole(role, out EngineSessionSpec spec)) acceptor = new SessionRole(spec, role);
            else
            {
                Console.Error.WriteLine($"roundtrip --acceptor-only: unknown role '{role}' (known: {ChildProcessSystem.CodecAcceptorRole}, {ChildProcessSystem.FloorAcceptorRole}:<order bytes>:<reply bytes>, session:<idle>:<mem|file>:<receive mode>:<orders>)");
                return 2;
            }
        }
        catch (Exception e) when (e is SocketException or IOException or InvalidOperationException or FixEngine.Config.ConfigException)
        {
            Console.Error.WriteLine($"roundtrip --acceptor-only {role}: could not start: {e.Message}");
            return 3;
        }

        using Stream stdin = Console.OpenStandardInput();
        using Stream stdout = Console.OpenStandardOutput();
        try
        {
            Write(stdout, $"PORT {acceptor.Port}\n");
            ServeCommands(stdin, stdout, acceptor);
        }
        catch (IOException)
        {
            // The parent is gone (broken pipe): fall through to shutting down.
        }
        finally
        {
            acceptor.Dispose();
        }
        return acceptor.Errors == 0 ? 0 : 1;
    }

    private static void ServeCommands(Stream stdin, Stream stdout, IAcceptor acceptor)
    {
        byte[] buffer = new byte[256];
        byte[] begun = Encoding.ASCII.GetBytes("BEGUN\n");
        int length = 0;
        ProcessWindow start = default;
        WindowProbe probe = default;
        long threadStart = 0;
        while (true)
        {
            int newline = buffer.AsSpan(0, length).IndexOf((byte)'\n');
            if (newline < 0)
            {
                if (length == buffer.Length) length = 0;
                int read = stdin.Read(buffer, length, buffer.Length - length);
                if (read <= 0) return;
                length += read;
                continue;
            }
            ReadOnlySpan<byte> command = buffer.AsSpan(0, newline).TrimEnd((byte)'\r');
            if (command.SequenceEqual("BEGIN"u8))
            {
                Volatile.Write(ref s_inWindow, true);
                // Same settling as the parent's (RoundTripRunner): finalizers and runtime background work finish first.
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
                GC.WaitForPendingFinalizers();
                Thread.Sleep(50);
                probe = WindowProbe.Take(); // before the snapshot: reading the counters allocates (about 600 B)
                start = ProcessWindow.Snapshot();
                threadStart = GC.GetAllocatedBytesForCurrentThread();
                Diagnostics.AllocationTrace.Begin();
                stdout.Write(begun);
            }
            else if (command.SequenceEqual("END"u8))
            {
                ProcessWindow window = ProcessWindow.Snapshot().Since(start);
                long threadBytes = GC.GetAllocatedBytesForCurrentThread() - threadStart;
                WindowProbe after = WindowProbe.Take();
                Diagnostics.AllocationTrace.End("acceptor process window");
                // A window that allocated: say what else happened in it, on stderr, which the parent's log shares.
                if (window.AllocatedBytes != 0) Console.Error.WriteLine(after.Describe(probe, "acceptor process", window.AllocatedBytes, threadBytes));
                Volatile.Write(ref s_inWindow, false);
                Write(stdout, string.Create(
                    CultureInfo.InvariantCulture, $"WINDOW {window.Gen0} {window.Gen1} {window.Gen2} {window.AllocatedBytes}\n"));
            }
            else if (command.SequenceEqual("JIT"u8))
            {
                Write(stdout, string.Create(CultureInfo.InvariantCulture, $"JIT {System.Runtime.JitInfo.GetCompiledMethodCount()}\n"));
            }
            else if (command.SequenceEqual("COUNTERS"u8))
            {
                Write(stdout, (acceptor.Counters() ?? new SessionSideCounters("acceptor", false, 0, 0, 0, 0, 0, 0, 0, 0)).ToWire() + "\n");
            }
            else if (command.SequenceEqual("EXIT"u8))
            {
                return;
            }
            else
            {
                Console.Error.WriteLine($"roundtrip --acceptor-only: unknown command '{Encoding.ASCII.GetString(command)}'");
            }
            int consumed = newline + 1;
            Buffer.BlockCopy(buffer, consumed, buffer, 0, length - consumed);
            length -= consumed;
        }
    }

    private static void Write(Stream stdout, string line)
    {
        stdout.Write(Encoding.ASCII.GetBytes(line));
        stdout.Flush();
    }

    private interface IAcceptor : IDisposable
    {
        int Port { get; }

        long Errors { get; }

        /// <summary>The session's counters, or null without a session.</summary>
        SessionSideCounters? Counters();
    }

    /// <summary>An acceptor of one connection: listens on a free port, accepts on a thread of its own and serves the
    /// connection there (<see cref="Run"/>) until it closes.</summary>
    private abstract class OneConnectionRole : IAcceptor
    {
        private readonly Socket _listener;
        private Thread? _thread;
        private Socket? _socket;

        protected OneConnectionRole()
        {
            _listener = LoopbackTcp.Listen(0);
            Port = LoopbackTcp.PortOf(_listener);
        }

        public int Port { get; }

        public virtual long Errors => 0;

        public SessionSideCounters? Counters() => null;

        /// <summary>Starts the accepting thread; the derived constructor calls it last, once its own fields are set.</summary>
        protected void StartServing(string threadName) => _thread = LoopbackTcp.StartThread(threadName, Serve);

        /// <summary>Serves the accepted connection (on the role's thread).</summary>
        protected abstract void Run(Socket socket);

        private void Serve()
        {
            try
            {
                _socket = LoopbackTcp.Accept(_listener);
            }
            catch (Exception e) when (LoopbackTcp.IsClosedError(e))
            {
                return;
            }
            Run(_socket);
        }

        public void Dispose()
        {
            LoopbackTcp.CloseQuietly(_listener);
            LoopbackTcp.CloseQuietly(_socket);
            _thread?.Join(5_000);
        }
    }

    /// <summary>The codec acceptor: answers each order on the one connection.</summary>
    private sealed class CodecRole : OneConnectionRole
    {
        private CodecAcceptor? _acceptor;

        public CodecRole() => StartServing("codec-acceptor");

        public override long Errors => _acceptor?.Errors ?? 0;

        protected override void Run(Socket socket)
        {
            _acceptor = new CodecAcceptor(socket);
            _acceptor.Run();
        }
    }

    /// <summary>The raw-TCP floor's acceptor (<see cref="RawTcpFloorSystem.Echo"/>) on the one connection.</summary>
    private sealed class FloorRole : OneConnectionRole
    {
        private readonly byte[] _orderIn;
        private readonly byte[] _reply;

        public FloorRole(int orderLength, int replyLength)
        {
            _orderIn = new byte[Math.Max(16, orderLength)];
            _reply = new byte[Math.Max(16, replyLength)];
            _reply.AsSpan().Fill((byte)'r');
            StartServing("floor-acceptor");
        }

        /// <summary>Reads <c>floor:&lt;order bytes&gt;:&lt;reply bytes&gt;</c>.</summary>
        public static bool TryParse(string role, out int orderLength, out int replyLength)
        {
            orderLength = replyLength = 0;
            string[] parts = role.Split(':');
            return parts.Length == 3 && parts[0] == ChildProcessSystem.FloorAcceptorRole
                && int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out orderLength) && orderLength > 0
                && int.TryParse(parts[2], NumberStyles.None, CultureInfo.InvariantCulture, out replyLength) && replyLength > 0;
        }

        protected override void Run(Socket socket) => RawTcpFloorSystem.Echo(socket, _orderIn, _reply);
    }

    /// <summary>A FixEngineHost acceptor with the one-process configuration's settings.</summary>
    private sealed class SessionRole : IAcceptor
    {
        private readonly FixEngineHost _host;
        private readonly string? _storeRoot;

        public SessionRole(EngineSessionSpec spec, string role)
        {
            _storeRoot = !spec.FileStore ? null
                : Environment.GetEnvironmentVariable(ChildProcessSystem.StoreRootVariable) is { Length: > 0 } given ? given
                : EngineSessionSystem.NewStoreRoot();
            // Engine events inside a measured window (a disconnect) are abnormal: report them on stderr, which the
            // child shares with the parent. Start-up and shutdown events are not printed.
            _host = spec.StartAcceptor(_storeRoot, line =>
            {
                if (Volatile.Read(ref s_inWindow)) Console.Error.WriteLine($"  acceptor process ({role}) engine: {line}");
            });
            Port = _host.AcceptorPorts[0];
        }

        public int Port { get; }

        public long Errors => 0;

        public SessionSideCounters? Counters() => SessionSideCounters.Of("acceptor", _host.Sessions[0]);

        public void Dispose()
        {
            _host.Stop(TimeSpan.FromSeconds(3));
            _host.Dispose();
            HarnessCleanup.DeleteDirectory(_storeRoot);
        }
    }
}
