using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

public class FixFramerTests
{
    private const int MaxBody = 4096;

    [Theory]
    [InlineData(FixText.HeartbeatText, 55, 59)]
    [InlineData(FixText.LogonText, 53, 193)]
    [InlineData(FixText.NewOrderSingleText, 144, 110)]
    public void GoldenMessagesFrameComplete(string text, int bodyLength, int checkSum)
    {
        byte[] bytes = FixText.Bytes(text);
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(FrameStatus.Complete, r.Status);
        Assert.Equal(bytes.Length, r.Length);
        Assert.Equal(bodyLength, r.BodyLength);
        Assert.Equal(checkSum, r.DeclaredCheckSum);
        Assert.Equal(checkSum, r.ComputedCheckSum);
        Assert.Equal(bytes.Length - 7, r.CheckSumOffset);
        Assert.Equal(bytes.Length - 7 - bodyLength, r.BodyOffset);
        Assert.Equal(-1, r.ErrorOffset);
        Assert.False(r.IsError);
    }

    [Fact]
    public void IndependentBuilderMatchesGoldenMessages()
    {
        Assert.Equal(FixText.Bytes(FixText.HeartbeatText), FixText.Build("FIX.4.4", "35=0|34=2|49=SENDER|52=20260101-00:00:00.000|56=TARGET|"));
        Assert.Equal(FixText.Bytes(FixText.LogonText), FixText.Build("FIX.4.2", "35=A|34=1|49=S|52=20260101-00:00:00|56=T|98=0|108=30|"));
    }

    [Theory]
    [InlineData(FixText.HeartbeatText)]
    [InlineData(FixText.NewOrderSingleText)]
    public void EveryStrictPrefixNeedsMoreData(string text)
    {
        byte[] bytes = FixText.Bytes(text);
        for (int i = 0; i < bytes.Length; i++)
        {
            FrameResult r = FixFramer.Frame(bytes.AsSpan(0, i), MaxBody);
            Assert.True(r.Status == FrameStatus.NeedMoreData, $"prefix {i}: {r.Describe()}");
            Assert.Equal(0, r.Length);
        }
    }

    [Fact]
    public void MultipleMessagesInOneBufferFrameInTurn()
    {
        byte[] a = FixText.Bytes(FixText.HeartbeatText), b = FixText.Bytes(FixText.LogonText), c = FixText.Bytes(FixText.NewOrderSingleText);
        byte[] all = FixText.Concat(a, b, c);
        List<string> frames = FrameAll(all, out List<FrameStatus> errors);
        Assert.Empty(errors);
        Assert.Equal([FixText.HeartbeatText, FixText.LogonText, FixText.NewOrderSingleText], frames);
    }

    [Fact]
    public void GarbageIsSkippedToNextBeginString()
    {
        byte[] buffer = FixText.Bytes("XYZ" + FixText.HeartbeatText);
        FrameResult r = FixFramer.Frame(buffer, MaxBody);
        Assert.Equal(FrameStatus.Garbage, r.Status);
        Assert.Equal(3, r.Length);
        Assert.Equal(0, r.ErrorOffset);
        Assert.Equal(FrameStatus.Complete, FixFramer.Frame(buffer.AsSpan(3), MaxBody).Status);
    }

    [Theory]
    [InlineData("abc", 3)]
    [InlineData("abc8", 3)]
    [InlineData("abc8=", 3)]
    [InlineData("abc8=FI", 3)]
    [InlineData("abc8=FX", 7)]
    [InlineData("9=12|", 5)]
    [InlineData("x", 1)]
    [InlineData("8x=FIX", 6)]
    public void GarbageKeepsTrailingPartialBeginString(string text, int skip)
    {
        FrameResult r = FixFramer.Frame(FixText.Bytes(text), MaxBody);
        Assert.Equal(FrameStatus.Garbage, r.Status);
        Assert.Equal(skip, r.Length);
    }

    [Theory]
    [InlineData("")]
    [InlineData("8")]
    [InlineData("8=")]
    [InlineData("8=FIX.4.4")]
    [InlineData("8=FIX.4.4|9")]
    [InlineData("8=FIX.4.4|9=12")]
    [InlineData("8=FIX.4.4|9=5|35=0|")]
    [InlineData("8=FIX.4.4|9=5|35=0|1")]
    [InlineData("8=FIX.4.4|9=5|35=0|10=16")]
    [InlineData("8=FIX.4.4|9=5|35=0|10=161")]
    public void IncompleteHeaderOrTrailerNeedsMoreData(string text)
    {
        Assert.Equal(FrameStatus.NeedMoreData, FixFramer.Frame(FixText.Bytes(text), MaxBody).Status);
    }

    [Theory]
    [InlineData("8=|9=5|35=0|10=000|", FrameStatus.BadBeginString, 2)]
    [InlineData("8=FIX.4.4.4.4.4.4.4.4|9=5|", FrameStatus.BadBeginString, 2)]
    [InlineData("8=FIX.4.4|35=0|9=5|10=000|", FrameStatus.BadBodyLength, 10)]
    [InlineData("8=FIX.4.4|7", FrameStatus.BadBodyLength, 10)]
    [InlineData("8=FIX.4.4|9=-5|35=0|10=000|", FrameStatus.BadBodyLength, 12)]
    [InlineData("8=FIX.4.4|9=+5|35=0|10=000|", FrameStatus.BadBodyLength, 12)]
    [InlineData("8=FIX.4.4|9=|35=0|10=000|", FrameStatus.BadBodyLength, 12)]
    [InlineData("8=FIX.4.4|9=12a|35=0|10=000|", FrameStatus.BadBodyLength, 14)]
    [InlineData("8=FIX.4.4|9= 5|35=0|10=000|", FrameStatus.BadBodyLength, 12)]
    [InlineData("8=FIX.4.4|9=0000000005|35=0|10=000|", FrameStatus.BadBodyLength, 21)]
    public void MalformedHeaderIsReportedAtItsOffset(string text, FrameStatus status, int errorOffset)
    {
        byte[] bytes = FixText.Bytes(text);
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(status, r.Status);
        Assert.Equal(errorOffset, r.ErrorOffset);
        Assert.Equal(bytes.Length, r.Length); // no later "8=FIX": everything is skipped
        Assert.Contains(errorOffset.ToString(), r.Describe());
    }

    [Fact]
    public void MalformedHeaderSkipsToNextMessage()
    {
        byte[] bytes = FixText.Bytes("8=FIX.4.4|9=x|35=0|" + FixText.HeartbeatText);
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(FrameStatus.BadBodyLength, r.Status);
        Assert.Equal(19, r.Length);
        Assert.Equal(FrameStatus.Complete, FixFramer.Frame(bytes.AsSpan(r.Length), MaxBody).Status);
    }

    [Fact]
    public void HugeBodyLengthIsRejectedWhileOnlyTheHeaderIsBuffered()
    {
        byte[] header = FixText.Bytes("8=FIX.4.4|9=100000000|");
        FrameResult r = FixFramer.Frame(header, MaxBody);
        Assert.Equal(FrameStatus.BodyLengthTooLarge, r.Status);
        Assert.Equal(100_000_000, r.BodyLength);
        Assert.Equal(12, r.ErrorOffset);
        Assert.Equal(header.Length, r.Length);

        byte[] withNext = FixText.Concat(FixText.Bytes("8=FIX.4.4|9=5000|35=0|"), FixText.Bytes(FixText.HeartbeatText));
        r = FixFramer.Frame(withNext, MaxBody);
        Assert.Equal(FrameStatus.BodyLengthTooLarge, r.Status);
        Assert.Equal(22, r.Length);
    }

    [Fact]
    public void CheckSumMismatchSkipsTheWholeMessage()
    {
        byte[] bytes = FixText.Bytes(FixText.HeartbeatText.Replace("10=059", "10=058"));
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(FrameStatus.CheckSumMismatch, r.Status);
        Assert.Equal(bytes.Length, r.Length);
        Assert.Equal(58, r.DeclaredCheckSum);
        Assert.Equal(59, r.ComputedCheckSum);
        Assert.Equal(bytes.Length - 4, r.ErrorOffset);
    }

    [Fact]
    public void CheckSum256IsAMismatch()
    {
        byte[] bytes = FixText.Bytes(FixText.HeartbeatText.Replace("10=059", "10=256"));
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(FrameStatus.CheckSumMismatch, r.Status);
        Assert.Equal(bytes.Length, r.Length);
        Assert.Equal(256, r.DeclaredCheckSum);
    }

    [Theory]
    [InlineData("10=0|", 1)]
    [InlineData("10=59|", 2)]
    [InlineData("10=0590|", 3)]
    [InlineData("10=a59|", 0)]
    public void CheckSumNotThreeDigitsIsBadCheckSum(string trailer, int errorAfterEquals)
    {
        string text = FixText.HeartbeatText.Replace("10=059|", trailer);
        byte[] bytes = FixText.Bytes(text);
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(FrameStatus.BadCheckSum, r.Status);
        int errorOffset = text.IndexOf("|10=", StringComparison.Ordinal) + 4 + errorAfterEquals;
        Assert.Equal(errorOffset, r.ErrorOffset);
        // Skipped up to the defect (through it when it is the SOH of a short value); the rest is garbage, skipped whole.
        Assert.Equal(bytes[errorOffset] == 1 ? bytes.Length : errorOffset, r.Length);
        if (r.Length < bytes.Length)
        {
            FrameResult rest = FixFramer.Frame(bytes.AsSpan(r.Length), MaxBody);
            Assert.Equal(FrameStatus.Garbage, rest.Status);
            Assert.Equal(bytes.Length - r.Length, rest.Length);
        }
    }

    [Fact]
    public void TooShortBodyLengthDiscardsJustThatMessage()
    {
        byte[] bad = FixText.Bytes(FixText.HeartbeatText.Replace("9=55|", "9=50|"));
        byte[] good = FixText.Bytes(FixText.LogonText);
        byte[] all = FixText.Concat(bad, good);
        FrameResult r = FixFramer.Frame(all, MaxBody);
        Assert.Equal(FrameStatus.BodyLengthMismatch, r.Status);
        Assert.Equal(bad.Length, r.Length);
        Assert.Equal(12, r.ErrorOffset);
        Assert.Equal(50, r.BodyLength);
        FrameResult next = FixFramer.Frame(all.AsSpan(r.Length), MaxBody);
        Assert.Equal(FrameStatus.Complete, next.Status);
        Assert.Equal(good.Length, next.Length);
    }

    [Fact]
    public void TooLongBodyLengthThatRunsIntoNextMessageDiscardsBoth()
    {
        byte[] bad = FixText.Bytes(FixText.HeartbeatText.Replace("9=55|", "9=60|"));
        byte[] second = FixText.Bytes(FixText.LogonText);
        byte[] third = FixText.Bytes(FixText.NewOrderSingleText);
        byte[] all = FixText.Concat(bad, second, third);

        Assert.Equal(FrameStatus.NeedMoreData, FixFramer.Frame(bad, MaxBody).Status);
        FrameResult r = FixFramer.Frame(all, MaxBody);
        Assert.Equal(FrameStatus.BodyLengthMismatch, r.Status);
        Assert.Equal(bad.Length + second.Length, r.Length);
        FrameResult next = FixFramer.Frame(all.AsSpan(r.Length), MaxBody);
        Assert.Equal(FrameStatus.Complete, next.Status);
        Assert.Equal(third.Length, next.Length);
    }

    [Fact]
    public void NeverEndingBodyIsDroppedOnceMoreThanTheMaximumIsBuffered()
    {
        byte[] bytes = new byte[200];
        FixText.Bytes("8=FIX.4.4|9=20|35=0|58=").CopyTo(bytes, 0);
        bytes.AsSpan(23).Fill((byte)'x');
        FrameResult r = FixFramer.Frame(bytes, 100);
        Assert.Equal(FrameStatus.BodyLengthMismatch, r.Status);
        Assert.Equal(bytes.Length, r.Length);
        Assert.Equal(FrameStatus.NeedMoreData, FixFramer.Frame(bytes.AsSpan(0, 60), 100).Status);
    }

    [Fact]
    public void RawDataWithSohIsFramedByBodyLength()
    {
        byte[] bytes = FixText.Build("FIX.4.4", "35=B|49=S|56=T|34=3|52=20260101-00:00:00|95=8|96=a|10=1|b|58=x|");
        FrameResult r = FixFramer.Frame(bytes, MaxBody);
        Assert.Equal(FrameStatus.Complete, r.Status);
        Assert.Equal(bytes.Length, r.Length);
    }

    [Fact]
    public void StreamSplitAtEveryPositionYieldsTheSameFrames()
    {
        byte[] stream = FixText.Concat(
            FixText.Bytes(FixText.HeartbeatText),
            FixText.Bytes("garbage!"),
            FixText.Bytes(FixText.NewOrderSingleText),
            FixText.Bytes(FixText.HeartbeatText.Replace("10=059", "10=000")),
            FixText.Bytes(FixText.LogonText));
        List<string> expected = FrameAll(stream, out List<FrameStatus> expectedErrors);
        Assert.Equal([FixText.HeartbeatText, FixText.NewOrderSingleText, FixText.LogonText], expected);
        Assert.Equal([FrameStatus.Garbage, FrameStatus.CheckSumMismatch], expectedErrors);

        for (int split = 1; split < stream.Length; split++)
        {
            var receiver = new Receiver();
            receiver.Feed(stream.AsSpan(0, split));
            receiver.Feed(stream.AsSpan(split));
            Assert.Equal(expected, receiver.Frames);
            Assert.Equal(expectedErrors, CollapseGarbage(receiver.Errors));
        }

        var byteAtATime = new Receiver();
        for (int i = 0; i < stream.Length; i++) byteAtATime.Feed(stream.AsSpan(i, 1));
        Assert.Equal(expected, byteAtATime.Frames);
        // Byte-at-a-time garbage is skipped in several steps, so only check the kinds seen.
        Assert.Contains(FrameStatus.CheckSumMismatch, byteAtATime.Errors);
        Assert.All(byteAtATime.Errors, e => Assert.True(e is FrameStatus.Garbage or FrameStatus.CheckSumMismatch));
    }

    /// <summary>A split inside garbage legitimately reports it as two skips; merge consecutive ones.</summary>
    private static List<FrameStatus> CollapseGarbage(List<FrameStatus> errors)
    {
        var result = new List<FrameStatus>();
        foreach (FrameStatus e in errors)
        {
            if (e == FrameStatus.Garbage && result.Count > 0 && result[^1] == FrameStatus.Garbage) continue;
            result.Add(e);
        }
        return result;
    }

    private static List<string> FrameAll(byte[] data, out List<FrameStatus> errors)
    {
        var receiver = new Receiver();
        receiver.Feed(data);
        errors = receiver.Errors;
        return receiver.Frames;
    }

    /// <summary>A minimal receive loop: append, then frame until more data is needed.</summary>
    private sealed class Receiver
    {
        private byte[] _buffer = new byte[16];
        private int _length;

        public List<string> Frames { get; } = [];

        public List<FrameStatus> Errors { get; } = [];

        public void Feed(ReadOnlySpan<byte> data)
        {
            if (_length + data.Length > _buffer.Length) Array.Resize(ref _buffer, Math.Max(_buffer.Length * 2, _length + data.Length));
            data.CopyTo(_buffer.AsSpan(_length));
            _length += data.Length;
            int consumed = 0;
            while (true)
            {
                FrameResult r = FixFramer.Frame(_buffer.AsSpan(consumed, _length - consumed), MaxBody);
                if (r.Status == FrameStatus.NeedMoreData) break;
                Assert.True(r.Length > 0);
                if (r.IsComplete) Frames.Add(Encoding.Latin1.GetString(_buffer, consumed, r.Length).Replace('\u0001', '|'));
                else Errors.Add(r.Status);
                consumed += r.Length;
            }
            _buffer.AsSpan(consumed, _length - consumed).CopyTo(_buffer);
            _length -= consumed;
        }
    }
}
