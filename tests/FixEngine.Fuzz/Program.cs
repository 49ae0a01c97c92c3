using System;
using FixEngine.Codec;
using SharpFuzz;

namespace FixEngine.Fuzz;

/// <summary>
/// SharpFuzz entry points: <c>framer</c> frames the input as a byte stream and indexes every complete frame;
/// <c>index</c> indexes the raw input. Any exception is a finding (the codec promises never to throw on input), and
/// so is a framer that makes no progress or returns a length outside the buffer.
/// </summary>
public static class Program
{
    private static readonly FixMessageIndex s_index = new(maxFields: 256);

    public static int Main(string[] args)
    {
        string target = args.Length > 0 ? args[0] : "framer";
        bool libFuzzer = Array.IndexOf(args, "--libfuzzer") >= 0;
        Action<ReadOnlySpan<byte>> run = target switch
        {
            "framer" => FrameAndIndex,
            "index" => Index,
            _ => throw new ArgumentException($"unknown target '{target}' (framer, index)"),
        };
        if (libFuzzer)
        {
            Fuzzer.LibFuzzer.Run(span => run(span));
        }
        else
        {
            Fuzzer.OutOfProcess.Run(stream =>
            {
                using var copy = new System.IO.MemoryStream();
                stream.CopyTo(copy);
                run(copy.ToArray());
            });
        }
        return 0;
    }

    private static void FrameAndIndex(ReadOnlySpan<byte> input)
    {
        int consumed = 0;
        while (consumed < input.Length)
        {
            ReadOnlySpan<byte> rest = input.Slice(consumed);
            FrameResult r = FixFramer.Frame(rest, 1 << 16);
            if (r.Status == FrameStatus.NeedMoreData) return;
            if (r.Length <= 0 || r.Length > rest.Length) throw new InvalidOperationException("framer length out of range: " + r.Describe());
            if (r.IsComplete) Index(rest.Slice(0, r.Length));
            else _ = r.Describe();
            consumed += r.Length;
        }
    }

    private static void Index(ReadOnlySpan<byte> input)
    {
        s_index.Parse(input);
        FixMessage message = s_index.Bind(input);
        _ = s_index.Defect.Describe(input);
        for (int i = 0; i < message.Count; i++)
        {
            int tag = message.GetTag(i);
            if (tag <= 0) throw new InvalidOperationException("indexed a non-positive tag " + tag);
            _ = message.GetValue(i);
            message.TryGetInt(tag, out _);
            message.TryGetDecimal(tag, out _);
            message.TryGetTimestamp(tag, out _);
        }
    }
}
