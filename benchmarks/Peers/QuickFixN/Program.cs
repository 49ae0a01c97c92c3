using System;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Running;

namespace QuickFixN;

/// <summary>Entry point: <c>acceptor</c> / <c>initiator</c> (round-trip peer roles, same command line and stdin/stdout
/// protocol as the QuickFIX C++ peer, see <see cref="PeerOptions"/>) or <c>codec</c> (BenchmarkDotNet, the remaining
/// arguments go to BenchmarkSwitcher).</summary>
public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] == "codec")
        {
            IConfig config = DefaultConfig.Instance.AddColumn(StatisticColumn.Min, StatisticColumn.Median);
            BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args[1..], config);
            return 0;
        }
        PeerOptions options;
        try
        {
            options = PeerOptions.Parse(args);
        }
        catch (ArgumentException e)
        {
            Console.Error.WriteLine($"qfnpeer: {e.Message}");
            Console.Error.WriteLine(PeerOptions.Usage);
            return 2;
        }
        try
        {
            return options.Role == "acceptor" ? AcceptorRole.Run(options) : InitiatorRole.Run(options);
        }
        catch (QuickFix.ConfigError e)
        {
            Console.Error.WriteLine($"qfnpeer {options.Role}: configuration error: {e.Message}");
            return 3;
        }
    }
}
