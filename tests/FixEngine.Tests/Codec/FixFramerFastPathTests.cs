using System;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

/// <summary>
/// Frames long enough for the framer's fast path (a whole, well-formed message of 28+ bytes): each case checks the
/// same statuses and offsets the general path reports, including the cases the fast path hands back to it.
/// </summary>
public class FixFramerFastPathTests
{
    private const int MaxBody = 1 << 20;

    private static string Body(int length)
    {
        var sb = new StringBuilder("35=0|");
        int tag = 5000;
        while (sb.Length < length)
        {
            int room = length - sb.Length;
            string field = tag++ + "=" + new string('v', Math.Max(1, Math.Min(20, room - 6))) + "|";
            if (field.Length > room) field = "58=" + new string('w', Math.Max(0, room - 4)) + "|";
            sb.Append(field);
        }
        return sb.ToString();
    }

    [Fact]
    public void EveryBeginStringLengthAndBodyLengthWidthFramesComplete()
    {
        foreach (int beginLength in new[] { 3, 4, 7, 8, 15, 16 })
        {
            foreach (int bodyLength in new[] { 5, 9, 10, 99, 100, 999, 1000, 12_345 })
            {
                string begin = "FIX" + new string('F', beginLength - 3);
                byte[] bytes = FixText.Build(begin, Body(bodyLength));
                byte[] withNext = FixText.Concat(bytes, FixText.Bytes(FixText.HeartbeatText));
                foreach (byte[] buffer in new[] { bytes, withNext })
                {
                    FrameResult r = FixFramer.Frame(buffer, MaxBody);
                    Assert.True(r.IsComplete, $"begin {beginLength}, body {bodyLength}: {r.Describe()}");
                    int declaredBody = Encoding.ASCII.GetByteCount(Body(bodyLength));
                    int bodyOffset = 2 + beginLength + 1 + 2 + declaredBody.ToString().Length + 1;
                    Assert.Equal(bytes.Length, r.Length);
                    Assert.Equal(declaredBody, r.BodyLength);
                    Assert.Equal(bodyOffset, r.BodyOffset);
                    Assert.Equal(bytes.Length - 7, r.CheckSumOffset);
                    Assert.Equal(ExpectedCheckSum(bytes), r.DeclaredCheckSum);
                    Assert.Equal(r.DeclaredCheckSum, r.ComputedCheckSum);
                    Assert.Equal(-1, r.ErrorOffset);
                }
            }
        }
    }

    [Fact]
    public void FastPathAgreesWithTheGeneralPathOnRandomAndMutatedFrames()
    {
        var random = new Random(20261124);
        ReadOnlySpan<byte> interesting = "\u00010123456789=8FIX"u8;
        int complete = 0;
        for (int iteration = 0; iteration < 12_000; iteration++)
        {
            string begin = random.Next(8) == 0 ? new string('F', random.Next(1, 18)) : "FIX" + new string('F', random.Next(0, 15));
            byte[] frame = FixText.Build(begin, Body(random.Next(random.Next(2) == 0 ? 5 : 20, random.Next(2) == 0 ? 60 : 3_000)));
            if (random.Next(4) != 0)
            {
                int mutations = random.Next(1, 3);
                for (int k = 0; k < mutations; k++)
                {
                    // Mostly near the header and the trailer, where the fast path looks.
                    int pos = random.Next(3) switch
                    {
                        0 => random.Next(Math.Min(frame.Length, 40)),
                        1 => Math.Max(0, frame.Length - 1 - random.Next(Math.Min(frame.Length, 12))),
                        _ => random.Next(frame.Length),
                    };
                    frame[pos] = random.Next(4) == 0 ? (byte)random.Next(256) : interesting[random.Next(interesting.Length)];
                }
            }
            int length = random.Next(5) == 0 ? random.Next(frame.Length + 1) : frame.Length;
            byte[] buffer = new byte[length + random.Next(0, 30)];
            frame.AsSpan(0, length).CopyTo(buffer);
            for (int i = length; i < buffer.Length; i++) buffer[i] = interesting[random.Next(interesting.Length)];
            int maxBody = random.Next(6) == 0 ? random.Next(1, 300) : MaxBody;

            FrameResult fast = FixFramer.Frame(buffer, maxBody);
            FrameResult general = FixFramer.FrameGeneral(buffer, maxBody);
            Assert.True(fast.Status == general.Status && fast.Length == general.Length && fast.ErrorOffset == general.ErrorOffset
                && fast.BodyLength == general.BodyLength && fast.BodyOffset == general.BodyOffset && fast.CheckSumOffset == general.CheckSumOffset
                && fast.DeclaredCheckSum == general.DeclaredCheckSum && fast.ComputedCheckSum == general.ComputedCheckSum,
                $"fast {fast.Describe()} vs general {general.Describe()} for '{FixText.Pipe(buffer)}'");
            if (fast.IsComplete) complete++;
        }
        Assert.True(complete > 1500, $"only {complete} complete frames");
    }

    [Fact]
    public void WrongCheckSumIsAMismatchAtTheCheckSumValue()
    {
        byte[] bytes = FixText.Build("FIX.4.4", Body(150));
        int sum = ExpectedCheckSum(bytes);
        byte[] bad = FixText.Bytes(FixText.Pipe(bytes).Replace("10=" + sum.ToString("000") + "|", "10=" + ((sum + 1) % 256).ToString("000") + "|"));
        FrameResult r = FixFramer.Frame(bad, MaxBody);
        Assert.Equal(FrameStatus.CheckSumMismatch, r.Status);
        Assert.Equal(bad.Length, r.Length);
        Assert.Equal(bad.Length - 4, r.ErrorOffset);
        Assert.Equal((sum + 1) % 256, r.DeclaredCheckSum);
        Assert.Equal(sum, r.ComputedCheckSum);
    }

    [Theory]
    [InlineData(8)]
    [InlineData(9)]
    public void BodyLengthWithLeadingZerosUpToNineDigitsFrames(int digits)
    {
        string body = Body(150);
        byte[] normal = FixText.Build("FIX.4.4", body);
        string text = FixText.Pipe(normal).Replace("|9=" + body.Length + "|", "|9=" + body.Length.ToString("D" + digits) + "|");
        byte[] padded = FixText.Bytes(text);
        int zeros = digits - body.Length.ToString().Length;
        byte[] fixedSum = FixText.Bytes(text.Substring(0, text.Length - 7) + "10=" + ((ExpectedCheckSum(normal) + zeros * '0') % 256).ToString("000") + "|");
        FrameResult r = FixFramer.Frame(fixedSum, MaxBody);
        Assert.True(r.IsComplete, r.Describe());
        Assert.Equal(body.Length, r.BodyLength);
        Assert.Equal(fixedSum.Length, r.Length);
        Assert.Equal(FrameStatus.CheckSumMismatch, FixFramer.Frame(padded, MaxBody).Status);
    }

    [Fact]
    public void TenBodyLengthDigitsAreBadAtTheTenth()
    {
        byte[] bytes = FixText.Bytes("8=FIX.4.4|9=0000000150|35=0|" + new string('x', 60) + "|10=000|");
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(FrameStatus.BadBodyLength, r.Status);
        Assert.Equal(12 + 9, r.ErrorOffset);
    }

    [Fact]
    public void EmptyBeginStringIsBadEvenWhenLaterFieldsLookFine()
    {
        byte[] good = FixText.Build("FIX.4.4", Body(100));
        byte[] bytes = FixText.Concat(FixText.Bytes("8=|9=5|35=0|10=000|"), good);
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(FrameStatus.BadBeginString, r.Status);
        Assert.Equal(2, r.ErrorOffset);
        Assert.Equal(19, r.Length);
    }

    [Fact]
    public void SeventeenCharacterBeginStringIsBad()
    {
        byte[] bytes = FixText.Build("FIX" + new string('F', 14), Body(100));
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(FrameStatus.BadBeginString, r.Status);
        Assert.Equal(2, r.ErrorOffset);
    }

    [Theory]
    [InlineData("10=12a|", FrameStatus.BadCheckSum, 5)]
    [InlineData("10=1234|", FrameStatus.BadCheckSum, 6)]
    [InlineData("11=123|", FrameStatus.BodyLengthMismatch, -1)]
    public void MalformedTrailerOfALongMessageIsReported(string trailer, FrameStatus status, int errorAfterTrailer)
    {
        string body = Body(200);
        byte[] good = FixText.Build("FIX.4.4", body);
        string text = FixText.Pipe(good);
        byte[] bytes = FixText.Concat(FixText.Bytes(text.Substring(0, text.Length - 7) + trailer), FixText.Bytes(FixText.HeartbeatText));
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(status, r.Status);
        if (errorAfterTrailer >= 0) Assert.Equal(good.Length - 7 + errorAfterTrailer, r.ErrorOffset);
        Assert.True(r.Length > 0);
    }

    [Fact]
    public void BodyLengthAboveTheMaximumIsRejectedBeforeTheBody()
    {
        byte[] bytes = FixText.Build("FIX.4.4", Body(500));
        FrameResult r = FixFramer.Frame(bytes, 499);
        Assert.Equal(FrameStatus.BodyLengthTooLarge, r.Status);
        Assert.Equal(12, r.ErrorOffset);
        Assert.Equal(FrameStatus.Complete, FixFramer.Frame(bytes, bytes.Length).Status);
    }

    [Fact]
    public void AMessageMissingOnlyItsLastByteNeedsMoreData()
    {
        byte[] bytes = FixText.Build("FIX.4.4", Body(300));
        for (int cut = bytes.Length - 8; cut < bytes.Length; cut++)
        {
            Assert.Equal(FrameStatus.NeedMoreData, FixFramer.Frame(bytes.AsSpan(0, cut), MaxBody).Status);
        }
    }

    private static int ExpectedCheckSum(byte[] message)
    {
        int sum = 0;
        for (int i = 0; i < message.Length - 7; i++) sum += message[i];
        return sum % 256;
    }
}
