using System;
using System.Globalization;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Testing;

namespace FixEngine.Tests.DependencyInjection;

/// <summary>The session-event tests' set-up: a FIX.4.4 acceptor EXEC->CLIENT in a <see cref="FixSessionTestPair"/>, an
/// application that accepts everything (or refuses the Logon), and raw messages from the counterparty.</summary>
internal static class LoggedAcceptor
{
    public static SessionSettings Settings() => SettingsFile.Parse(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nNonStopSession=Y\nUseDataDictionary=N\n" +
        "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n")[0];

    /// <summary>A counterparty message: <paramref name="fields"/> is <c>35=X|body...</c> ('|' for SOH); the header
    /// (MsgSeqNum <paramref name="seq"/>, CompIDs, SendingTime at the pair's clock) is added.</summary>
    public static byte[] Raw(FixSessionTestPair pair, int seq, string fields) => Transport.FixMessages.Build("FIX.4.4",
        $"{fields[..fields.IndexOf('|')]}|34={seq}|49=CLIENT|56=EXEC|52={pair.UtcNow.ToString("yyyyMMdd-HH:mm:ss.fff", CultureInfo.InvariantCulture)}|{fields[(fields.IndexOf('|') + 1)..]}|");

    public sealed class Accepting(bool refuseLogon = false) : IApplication
    {
        public void FromAdmin(FixSession session, FixMessage message)
        {
            if (refuseLogon && message.MsgType.SequenceEqual(MsgTypes.Logon)) throw new RejectLogonException("not today");
        }

        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }
}
