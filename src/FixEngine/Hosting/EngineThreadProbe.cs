using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace FixEngine.Hosting;

/// <summary>
/// A measurement hook the engine's own threads (agent, dedicated receive, send drain, log drain) call once per loop
/// pass, before they block or park. Nothing is installed in an application: <see cref="OnPass"/> is then a field read
/// and a null check. A measuring process (the benchmark harness's per-thread allocation ledger) installs its probe once,
/// before it starts an engine, so the engine carries no benchmark code and depends on no diagnostics type.
/// </summary>
internal static class EngineThreadProbe
{
    private static Action? s_probe;

    /// <summary>Installs <paramref name="probe"/> for every engine thread of this process (null removes it). The probe
    /// runs on the engine's threads: it must not block and should not allocate in steady state.</summary>
    internal static void Install(Action? probe) => Volatile.Write(ref s_probe, probe);

    /// <summary>Called by an engine thread once per loop pass; runs the installed probe, if any.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void OnPass() => s_probe?.Invoke();
}
