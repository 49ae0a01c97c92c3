using System;
using System.Diagnostics.Metrics;
using System.Threading;

/// <summary>Enables every instrument of the "FixEngine" meter (histograms recorded as they happen, observable counters
/// collected once a second, as an exporter would) and sums what it receives without allocating.</summary>
/// <remarks>The runtime calls <see cref="Initialize"/> before Main when the assembly is named in DOTNET_STARTUP_HOOKS.
/// FIXENGINE_HOOK_REPORT=1 prints the counts at exit (to check the listener saw the engine's measurements).</remarks>
internal static class StartupHook
{
    private static MeterListener? s_listener;
    private static Timer? s_collect;
    private static long s_doubles;
    private static long s_longs;
    private static double s_sum;

    public static void Initialize()
    {
        var listener = new MeterListener
        {
            InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == "FixEngine") l.EnableMeasurementEvents(instrument);
            },
        };
        listener.SetMeasurementEventCallback<double>(static (_, value, _, _) =>
        {
            Interlocked.Increment(ref s_doubles);
            s_sum += value;
        });
        listener.SetMeasurementEventCallback<long>(static (_, _, _, _) => Interlocked.Increment(ref s_longs));
        listener.SetMeasurementEventCallback<int>(static (_, _, _, _) => Interlocked.Increment(ref s_longs));
        listener.Start();
        s_listener = listener;
        s_collect = new Timer(static _ => s_listener?.RecordObservableInstruments(), null, 1000, 1000);
        if (Environment.GetEnvironmentVariable("FIXENGINE_HOOK_REPORT") == "1")
        {
            AppDomain.CurrentDomain.ProcessExit += static (_, _) =>
                Console.Error.WriteLine($"[meter-listener-hook] pid {Environment.ProcessId}: {Interlocked.Read(ref s_doubles)} histogram measurements, {Interlocked.Read(ref s_longs)} counter observations");
        }
    }
}
