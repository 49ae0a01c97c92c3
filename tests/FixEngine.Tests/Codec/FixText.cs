using System;
using System.Text;

namespace FixEngine.Tests.Codec;

/// <summary>Test helpers: FIX text written with '|' for SOH, and an independent (scalar, string-based) message builder.</summary>
internal static class FixText
{
    public static byte[] Bytes(string pipeText) => Encoding.Latin1.GetBytes(pipeText.Replace('|', '\u0001'));

    public static string Pipe(ReadOnlySpan<byte> bytes) => Encoding.Latin1.GetString(bytes).Replace('\u0001', '|');

    /// <summary>Builds <c>8=..|9=..|body10=ddd|</c> computing BodyLength and CheckSum the obvious way.</summary>
    public static byte[] Build(string beginString, string pipeBody)
    {
        string body = pipeBody.Replace('|', '\u0001');
        string head = "8=" + beginString + "\u00019=" + Encoding.Latin1.GetByteCount(body) + "\u0001";
        byte[] withoutTrailer = Encoding.Latin1.GetBytes(head + body);
        int sum = 0;
        foreach (byte b in withoutTrailer) sum += b;
        return Encoding.Latin1.GetBytes(head + body + "10=" + (sum % 256).ToString("000") + "\u0001");
    }

    public static byte[] Concat(params byte[][] parts)
    {
        int length = 0;
        foreach (byte[] p in parts) length += p.Length;
        byte[] result = new byte[length];
        int offset = 0;
        foreach (byte[] p in parts)
        {
            p.CopyTo(result, offset);
            offset += p.Length;
        }
        return result;
    }

    public const string HeartbeatText = "8=FIX.4.4|9=55|35=0|34=2|49=SENDER|52=20260101-00:00:00.000|56=TARGET|10=059|";
    public const string LogonText = "8=FIX.4.2|9=53|35=A|34=1|49=S|52=20260101-00:00:00|56=T|98=0|108=30|10=193|";
    public const string NewOrderSingleText =
        "8=FIX.4.4|9=144|35=D|34=215|49=CLIENT12|52=20260315-14:30:05.123|56=BROKER|11=ORD-000123|21=1|38=1000|40=2|44=101.25|54=1|55=MSFT|59=0|60=20260315-14:30:05.120|10=110|";
}
