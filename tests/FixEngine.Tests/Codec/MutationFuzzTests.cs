using System;
using System.Collections.Generic;
using FixEngine.Codec;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Codec;

/// <summary>
/// Mutation fuzzing of the framer and the index (see <see cref="FrameMutator"/>: bounded and seeded; FIXENGINE_FUZZ_SCALE
/// and FIXENGINE_FUZZ_SEED for longer or other runs). No exception may escape, and the results must be consistent:
/// a stream framed in random chunks yields the same complete frames as the whole stream at once, every complete frame
/// is a valid frame, the index agrees with the byte-at-a-time reference, and an invalid-tag defect names a tag text
/// that really is not a tag.
/// </summary>
public class MutationFuzzTests
{
    private const int MaxBody = 4096;

    private static byte[][] Corpus() =>
    [
        FixText.Bytes(FixText.HeartbeatText),
        FixText.Bytes(FixText.LogonText),
        FixText.Bytes(FixText.NewOrderSingleText),
        CodecSamples.ExecutionReport(),
        FixText.Build("FIX.4.4", "35=D|34=7|49=CLIENT|52=20260101-00:00:00.000|56=EXEC|11=1|55=EURUSD|54=1|38=100|40=1|60=20260101-00:00:00.000|"),
        FixText.Build("FIXT.1.1", "35=2|34=3|49=A|52=20260101-00:00:00|56=B|7=1|16=0|1128=9|"),
    ];

    [Fact]
    public void MutatedFramesNeverThrowAndFrameAndIndexConsistently()
    {
        var mutator = new FrameMutator(FrameMutator.SeedOr(20261125));
        byte[][] corpus = Corpus();
        var index = new FixMessageIndex(maxFields: 64);
        int iterations = FrameMutator.Iterations(6_000);
        int complete = 0, errors = 0, invalidTags = 0;
        for (int iteration = 0; iteration < iterations; iteration++)
        {
            // A stream: a valid frame, 1-3 mutated ones (half repaired so they pass the framer), a valid frame.
            var parts = new List<byte[]> { corpus[mutator.Random.Next(corpus.Length)] };
            var whats = new List<string>();
            int mutated = 1 + mutator.Random.Next(3);
            for (int m = 0; m < mutated; m++)
            {
                parts.Add(mutator.Mutate(corpus[mutator.Random.Next(corpus.Length)], corpus, mutator.Random.Next(2) == 0, out string what));
                whats.Add(what);
            }
            parts.Add(corpus[mutator.Random.Next(corpus.Length)]);
            byte[] stream = FixText.Concat(parts.ToArray());
            string context = $"seed {mutator.Seed}, iteration {iteration}, mutations [{string.Join("; ", whats)}]: '{FixText.Pipe(stream)}'";

            List<byte[]> whole = FrameAll(stream, stream.Length, ref complete, ref errors, context);
            List<byte[]> chunked = FrameChunked(stream, mutator.Random, context);
            Assert.True(whole.Count == chunked.Count, $"{whole.Count} frames at once vs {chunked.Count} in chunks; {context}");
            for (int i = 0; i < whole.Count; i++) Assert.True(whole[i].AsSpan().SequenceEqual(chunked[i]), $"frame {i} differs in chunks; {context}");
            // The last (valid) frame is always found: a mutation cannot swallow the frame after it for good... unless a
            // mutated BodyLength runs into it, which the framer's resynchronisation allows; so only count here.

            foreach (byte[] frame in whole)
            {
                ReferenceIndexCheck(index, frame, ref invalidTags, context);
            }
            // The index on unframed bytes too (the session only sees frames, but the index promises any input).
            byte[] raw = parts[1];
            ReferenceIndexCheck(index, raw, ref invalidTags, context);
        }
        Assert.True(complete > iterations && errors > iterations / 4 && invalidTags > iterations / 20,
            $"complete {complete}, errors {errors}, invalid tags {invalidTags}: the mutations do not reach every path");
    }

    private static List<byte[]> FrameAll(byte[] stream, int available, ref int complete, ref int errors, string context)
    {
        var frames = new List<byte[]>();
        int consumed = 0;
        int steps = 0;
        while (consumed < available)
        {
            Assert.True(++steps <= available + 1, "framer made no progress; " + context);
            ReadOnlySpan<byte> rest = stream.AsSpan(consumed, available - consumed);
            FrameResult r = FixFramer.Frame(rest, MaxBody);
            if (r.Status == FrameStatus.NeedMoreData)
            {
                Assert.Equal(0, r.Length);
                break;
            }
            Assert.True(r.Length > 0 && r.Length <= rest.Length, r.Describe() + "; " + context);
            if (r.IsComplete)
            {
                complete++;
                ReadOnlySpan<byte> frame = rest.Slice(0, r.Length);
                AssertValidFrame(frame, r, context);
                frames.Add(frame.ToArray());
            }
            else
            {
                errors++;
                Assert.True(r.ErrorOffset >= -1 && r.ErrorOffset <= rest.Length, r.Describe() + "; " + context);
                Assert.False(string.IsNullOrEmpty(r.Describe()));
            }
            consumed += r.Length;
        }
        return frames;
    }

    /// <summary>Frames the stream as a transport does: bytes arrive in random chunks, appended to what is left.</summary>
    private static List<byte[]> FrameChunked(byte[] stream, Random random, string context)
    {
        var frames = new List<byte[]>();
        byte[] buffer = new byte[stream.Length];
        int buffered = 0, fed = 0, dummyComplete = 0, dummyErrors = 0;
        while (fed < stream.Length)
        {
            int chunk = Math.Min(stream.Length - fed, 1 + random.Next(random.Next(2) == 0 ? 8 : 200));
            Array.Copy(stream, fed, buffer, buffered, chunk);
            fed += chunk;
            buffered += chunk;
            int consumed = 0;
            while (consumed < buffered)
            {
                FrameResult r = FixFramer.Frame(buffer.AsSpan(consumed, buffered - consumed), MaxBody);
                if (r.Status == FrameStatus.NeedMoreData) break;
                if (r.IsComplete) frames.Add(buffer.AsSpan(consumed, r.Length).ToArray());
                consumed += r.Length;
            }
            Array.Copy(buffer, consumed, buffer, 0, buffered - consumed);
            buffered -= consumed;
        }
        _ = FrameAll(buffer, buffered, ref dummyComplete, ref dummyErrors, context);
        return frames;
    }

    private static void AssertValidFrame(ReadOnlySpan<byte> frame, FrameResult r, string context)
    {
        int n = frame.Length;
        Assert.True(frame.StartsWith("8="u8), context);
        Assert.True(frame.Slice(n - 7, 3).SequenceEqual("10="u8) && frame[n - 1] == 1 && frame[n - 8] == 1, context);
        Assert.Equal(r.BodyOffset + r.BodyLength, r.CheckSumOffset);
        Assert.Equal(n - FixFramer.TrailerLength, r.CheckSumOffset);
        int sum = 0;
        foreach (byte b in frame.Slice(0, n - 7)) sum += b;
        Assert.True(sum % 256 == r.DeclaredCheckSum, context);
    }

    private static void ReferenceIndexCheck(FixMessageIndex index, byte[] message, ref int invalidTags, string context)
    {
        var expected = FixMessageIndexDifferentialTests.ReferenceIndex.Parse(message, index.MaxFields, index.DataFields);
        try
        {
            FixMessageIndexDifferentialTests.AssertSame(expected, index, message, message);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            throw new Xunit.Sdk.XunitException("index differs from the reference; " + context + "\n" + ex.Message);
        }
        FixDefect defect = index.Defect;
        _ = defect.Describe(message);
        FixMessage view = index.Bind(message);
        for (int i = 0; i < view.Count; i++)
        {
            Assert.True(view.GetTag(i) > 0, context);
            _ = view.GetValue(i);
        }
        if (!defect.IsInvalidTagNumber) return;
        invalidTags++;
        ReadOnlySpan<byte> tagText = defect.GetTagText(message);
        Assert.True(defect.FieldOffset >= 0 && defect.FieldOffset + defect.TagLength <= message.Length, context);
        Assert.False(IsValidTag(tagText) && defect.Kind != FixDefectKind.MissingEquals, $"{defect.Describe(message)} names a valid tag; {context}");
    }

    private static bool IsValidTag(ReadOnlySpan<byte> text)
    {
        if (text.IsEmpty || text.Length > FixMessageIndex.MaxTagDigits) return false;
        bool nonZero = false;
        foreach (byte b in text)
        {
            if ((uint)(b - '0') > 9) return false;
            nonZero |= b != '0';
        }
        return nonZero;
    }
}
