using System;
using FixEngine.Tests.Transport;

/// <summary>Entry point of <see cref="IsolatedProcess"/> children (a .NET startup hook: global namespace, this name, by contract).</summary>
/// <remarks>Does nothing unless <see cref="IsolatedProcess.ProbeVariable"/> is set, which only <see cref="IsolatedProcess.Run"/> does.</remarks>
internal static class StartupHook
{
    public static void Initialize()
    {
        string? probe = Environment.GetEnvironmentVariable(IsolatedProcess.ProbeVariable);
        if (probe is null)
        {
            return;
        }
        int exitCode;
        try
        {
            exitCode = IsolatedProcess.RunProbe(probe, Console.Out);
        }
        catch (Exception ex)
        {
            Console.Out.WriteLine(ex.ToString());
            exitCode = 99;
        }
        Console.Out.Flush();
        Environment.Exit(exitCode);
    }
}
