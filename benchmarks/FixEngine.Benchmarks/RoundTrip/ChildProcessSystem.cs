using System;
using System.Diagnostics;
using System.IO;
using System.Net.Sockets;
using System.Threading;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Runs the acceptor side in a child process (this same executable with <c>roundtrip --acceptor-only role</c>)
/// and the initiator here, so the two sides share no runtime, GC or thread pool.</summary>
/// <remarks>
/// The child listens on a free loopback port, prints <c>PORT n</c> on stdout, serves one connection and exits when the
/// connection or its stdin closes. GC counts and allocation in the report are the parent's only.
/// </remarks>
public sealed class ChildProcessSystem : IRoundTripSystem
{
    /// <summary>Role name of the codec acceptor.</summary>
    public const string CodecAcceptorRole = "codec";

    private readonly string _role;
    private Process? _child;
    private IRoundTripSystem? _initiator;

    /// <summary>Creates the system; nothing starts until <see cref="Start"/>.</summary>
    public ChildProcessSystem(string name, string role)
    {
        Name = name;
        _role = role;
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <inheritdoc/>
    public void Start(IReplyHandler handler)
    {
        string processPath = Environment.ProcessPath ?? throw new InvalidOperationException("no process path");
        var info = new ProcessStartInfo(processPath)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        if (Path.GetFileNameWithoutExtension(processPath).Equals("dotnet", StringComparison.OrdinalIgnoreCase))
        {
            info.ArgumentList.Add(typeof(ChildProcessSystem).Assembly.Location);
        }
        info.ArgumentList.Add("roundtrip");
        info.ArgumentList.Add("--acceptor-only");
        info.ArgumentList.Add(_role);
        _child = Process.Start(info) ?? throw new InvalidOperationException("could not start the acceptor process");
        string? line = _child.StandardOutput.ReadLine();
        if (line is null || !line.StartsWith("PORT ", StringComparison.Ordinal) || !int.TryParse(line.AsSpan(5), out int port))
        {
            throw new InvalidOperationException($"acceptor process did not report a port (got '{line}')");
        }
        _initiator = _role switch
        {
            CodecAcceptorRole => new CodecTcpSystem(Name, port),
            _ => throw new ArgumentException($"unknown acceptor role '{_role}'"),
        };
        _initiator.Start(handler);
    }

    /// <inheritdoc/>
    public void SendOrder(long msgSeqNum, long intendedSendNs) => _initiator!.SendOrder(msgSeqNum, intendedSendNs);

    /// <inheritdoc/>
    public void Stop()
    {
        _initiator?.Stop();
        _initiator = null;
        if (_child is not null)
        {
            try
            {
                _child.StandardInput.Close();
                if (!_child.WaitForExit(5_000)) _child.Kill();
            }
            finally
            {
                _child.Dispose();
                _child = null;
            }
        }
    }

    /// <inheritdoc/>
    public void Dispose() => Stop();

    /// <summary>The child's main: serves one connection for <paramref name="role"/>.</summary>
    /// <returns>Process exit code.</returns>
    public static int RunAcceptorOnly(string role)
    {
        if (role != CodecAcceptorRole)
        {
            Console.Error.WriteLine($"unknown acceptor role '{role}' (known: {CodecAcceptorRole})");
            return 2;
        }
        using Socket listener = LoopbackTcp.Listen(0);
        Console.Out.WriteLine($"PORT {LoopbackTcp.PortOf(listener)}");
        Console.Out.Flush();
        Socket socket = LoopbackTcp.Accept(listener);
        var acceptor = new CodecAcceptor(socket);
        // The parent closing our stdin (or dying) ends the run even if the connection stays half-open.
        var watchdog = new Thread(() =>
        {
            try
            {
                while (Console.In.Read() >= 0)
                {
                }
            }
            catch (IOException)
            {
            }
            LoopbackTcp.CloseQuietly(socket);
        }) { IsBackground = true, Name = "stdin-watchdog" };
        watchdog.Start();
        acceptor.Run();
        LoopbackTcp.CloseQuietly(socket);
        return acceptor.Errors == 0 ? 0 : 1;
    }
}
