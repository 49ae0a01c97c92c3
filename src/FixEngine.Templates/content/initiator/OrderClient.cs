using System.Threading;
using FixEngine.Codec;
using FixEngine.Messages.Fix44;
using FixEngine.Session;

namespace FixApp;

/// <summary>Signals the logon and the first fully filled ExecutionReport. Callbacks run on the session's thread.</summary>
internal sealed class OrderClient : MessageCracker, IApplication
{
    public ManualResetEventSlim LoggedOn { get; } = new();

    public ManualResetEventSlim Filled { get; } = new();

    public string Fill { get; private set; } = "";

    public void OnLogon(FixSession session) => LoggedOn.Set();

    public FromAppResult FromApp(FixSession session, FixMessage message) => Crack(session, message);

    public override FromAppResult OnMessage(FixSession session, in ExecutionReport.Reader report)
    {
        if (report.OrdStatus == OrdStatus.Filled)
        {
            // Text for the console, once; on a hot path keep the spans and FixDecimals as they are.
            Fill = $"{System.Text.Encoding.ASCII.GetString(report.ClOrdID)} {report.CumQty} {System.Text.Encoding.ASCII.GetString(report.Symbol)} at {report.AvgPx}";
            Filled.Set();
        }
        return FromAppResult.Accepted;
    }
}
