using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;

namespace QuickFixN;

/// <summary>The peer's command line, the same as the QuickFIX C++ peer's (benchmarks/Peers/QuickFixCpp/qfpeer.cpp).</summary>
public sealed class PeerOptions
{
    public const string Usage =
        "usage: QuickFixN acceptor --port N --dict FIX44.xml [--sessions N --heartbeat S --acceptor-mode threaded]\n"
        + "       QuickFixN initiator --port N --dict FIX44.xml --rate R --warmup W --warmup-seconds S --measured M\n"
        + "              --seconds T --lag-limit-seconds L --reply-timeout-seconds X --out samples.bin [--pacing wait|spin]\n"
        + "       QuickFixN codec [BenchmarkDotNet arguments]";

    public string Role { get; private set; } = "";

    public int Port { get; private set; }

    public string Dictionary { get; private set; } = "";

    public long Rate { get; private set; }

    public long Warmup { get; private set; } = 10_000;

    public double WarmupSeconds { get; private set; } = 0.4;

    public long Measured { get; private set; } = 40_000;

    public double Seconds { get; private set; } = 1.0;

    public double LagLimitSeconds { get; private set; } = 1.0;

    public double ReplyTimeoutSeconds { get; private set; } = 30.0;

    public string Out { get; private set; } = "";

    /// <summary>Open-loop pacing by a pure spin (<c>--pacing spin</c>) instead of sleep, yield, spin.</summary>
    public bool SpinPacing { get; private set; }

    /// <summary>Scale harness (acceptor): sessions BROKER01 ← CLIENT00001..N instead of CLIENT01; 0 = the one session.</summary>
    public int Sessions { get; private set; }

    /// <summary>HeartBtInt of the settings. Default 30.</summary>
    public int HeartBtInt { get; private set; } = 30;

    /// <summary>Orders in the measured window: open loop min(measured, rate × seconds), closed loop at most measured.</summary>
    public long MeasuredOrders => Rate > 0 && Seconds > 0 ? Math.Max(1, Math.Min(Measured, (long)(Rate * Seconds))) : Measured;

    public static PeerOptions Parse(IReadOnlyList<string> args)
    {
        var o = new PeerOptions();
        bool portGiven = false;
        if (args.Count < 1) throw new ArgumentException("missing role");
        o.Role = args[0];
        if (o.Role is not ("acceptor" or "initiator")) throw new ArgumentException($"unknown role '{o.Role}'");
        for (int i = 1; i < args.Count; i++)
        {
            string a = args[i];
            if (i + 1 >= args.Count) throw new ArgumentException($"{a} needs a value");
            string v = args[++i];
            switch (a)
            {
                case "--port": o.Port = (int)Number(a, v, 0, 65535); portGiven = true; break;
                case "--dict": o.Dictionary = v; break;
                case "--rate": o.Rate = (long)Number(a, v, 0, 100_000_000); break;
                case "--warmup": o.Warmup = (long)Number(a, v, 0, int.MaxValue); break;
                case "--warmup-seconds": o.WarmupSeconds = Number(a, v, 0, 3600); break;
                case "--measured": o.Measured = (long)Number(a, v, 1, int.MaxValue); break;
                case "--seconds": o.Seconds = Number(a, v, 0, 3600); break;
                case "--lag-limit-seconds": o.LagLimitSeconds = Number(a, v, 0, 3600); break;
                case "--reply-timeout-seconds": o.ReplyTimeoutSeconds = Number(a, v, 0, 3600); break;
                case "--out": o.Out = v; break;
                case "--sessions": o.Sessions = (int)Number(a, v, 1, 100_000); break;
                case "--heartbeat": o.HeartBtInt = (int)Number(a, v, 1, 3600); break;
                case "--acceptor-mode":
                    if (v != "threaded") throw new ArgumentException($"--acceptor-mode: '{v}' (QuickFIX/n has only the threaded acceptor)");
                    break;
                case "--pacing":
                    if (v is not ("spin" or "wait")) throw new ArgumentException($"--pacing: '{v}' is not spin or wait");
                    o.SpinPacing = v == "spin";
                    break;
                default: throw new ArgumentException($"unknown argument '{a}'");
            }
        }
        // An acceptor may take port 0 (the system picks one as it binds; it prints PORT 0 and the harness reads the port
        // from /proc); an initiator needs the acceptor's port.
        if (!portGiven || (o.Port == 0 && o.Role == "initiator")) throw new ArgumentException("--port is required (acceptor 0..65535, 0: any free port; initiator 1..65535)");
        if (o.Dictionary.Length == 0) throw new ArgumentException("--dict is required (path to FIX44.xml)");
        if (!File.Exists(o.Dictionary)) throw new ArgumentException($"--dict: no file '{o.Dictionary}'");
        if (o.Role == "initiator" && o.Out.Length == 0) throw new ArgumentException("--out is required for the initiator");
        return o;
    }

    /// <summary>QuickFIX/n settings for the role: memory store, no log, the dictionary by path, CLIENT01 → BROKER01.</summary>
    public string SettingsText()
    {
        bool acceptor = Role == "acceptor";
        return "[DEFAULT]\n"
            + $"ConnectionType={Role}\n"
            + $"HeartBtInt={HeartBtInt}\nStartTime=00:00:00\nEndTime=00:00:00\nResetOnLogon=Y\nSocketNodelay=Y\nReconnectInterval=1\n"
            // The scale harness's sessions run without a dictionary, as its FixEngine acceptor does.
            + (Sessions > 0 ? "UseDataDictionary=N\n" : $"UseDataDictionary=Y\nDataDictionary={Dictionary}\n")
            + (acceptor
                ? $"SocketAcceptHost=127.0.0.1\nSocketAcceptPort={Port}\n"
                : $"SocketConnectHost=127.0.0.1\nSocketConnectPort={Port}\n")
            + (acceptor && Sessions > 0 ? ScaleSessions() : "[SESSION]\nBeginString=FIX.4.4\n"
            + (acceptor ? "SenderCompID=BROKER01\nTargetCompID=CLIENT01\n" : "SenderCompID=CLIENT01\nTargetCompID=BROKER01\n"));
    }

    private string ScaleSessions()
    {
        var s = new System.Text.StringBuilder(Sessions * 80);
        for (int i = 1; i <= Sessions; i++)
        {
            s.Append("[SESSION]\nBeginString=FIX.4.4\nSenderCompID=BROKER01\nTargetCompID=CLIENT").Append(i.ToString("D5", CultureInfo.InvariantCulture)).Append('\n');
        }
        return s.ToString();
    }

    private static double Number(string name, string value, double min, double max)
    {
        if (!double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double d) || !(d >= min) || d > max)
        {
            throw new ArgumentException($"{name}: '{value}' is not a number in {min}..{max}");
        }
        return d;
    }
}
