using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Text;
using FixEngine.Store;

namespace FixEngine.Benchmarks.Store;

/// <summary>The <c>store</c> harness: a file store with a long history (default 10 million ~230-byte ExecutionReports,
/// FileStoreSync=OS), measured at the store level: write rate, reopen time, managed heap held after reopening
/// (the index), and reading back the last 100,000 messages.</summary>
/// <remarks>
/// <code>
/// dotnet run -c Release --project benchmarks/FixEngine.Benchmarks -- store --dir /work/tmp/lh [--count 10000000]
///     [--size 230] [--reopens 5] [--read 100000] [--keep] [--skip-write] [--cold]
/// </code>
/// <c>--skip-write</c> reopens the journal a run with <c>--keep</c> left; <c>--cold</c> evicts the folder's files from the
/// page cache before each open (as after a reboot), so the open reads the disk.
/// With <c>--resend-stall</c> it runs <see cref="ResendStallCommand"/> instead (a ResendRequest for a long history
/// served by an engine session while another session is probed; <c>--receiver count</c> reads the resend in a child
/// process that only counts bytes and messages, <c>--count-reader</c> is that child's own entry).
/// Progress lines go to stderr, one result line per measurement to stdout. The journal stays in the page cache (the
/// machine has the memory for it): reopen times are warm-cache times, as a restarted process on the same box sees.
/// Turns the index checkpoint on (FileMessageStoreOptions.IndexCheckpoint); the copy measured on main before it existed
/// drops that one initialiser.
/// </remarks>
public static partial class LongHistoryCommand
{
    public static int Run(string[] args)
    {
        string? dir = null;
        int count = 10_000_000;
        int size = 230;
        int reopens = 5;
        int read = 100_000;
        bool keep = false;
        bool resendStall = false;
        bool countReader = false;
        int port = 0;
        string receiver = "fix";
        bool cold = false;
        bool skipWrite = false;
        int messages = 100_000;
        int baselineMs = 2000;
        FixEngine.Transport.ReceiveMode mode = FixEngine.Transport.ReceiveMode.Dedicated;
        for (int i = 0; i < args.Length; i++)
        {
            string a = args[i];
            string Next() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"store: {a} needs a value");
            switch (a)
            {
                case "--dir": dir = Next(); break;
                case "--count": count = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                case "--size": size = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                case "--reopens": reopens = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                case "--read": read = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                case "--keep": keep = true; break;
                case "--resend-stall": resendStall = true; break;
                case "--receiver": receiver = Next(); break;
                case "--count-reader": countReader = true; break;
                case "--port": port = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                case "--cold": cold = true; break;
                case "--skip-write": skipWrite = true; break;
                case "--messages": messages = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                case "--baseline-ms": baselineMs = int.Parse(Next(), CultureInfo.InvariantCulture); break;
                case "--mode": mode = Enum.Parse<FixEngine.Transport.ReceiveMode>(Next()); break;
                default:
                    Console.Error.WriteLine($"store: unknown argument '{a}'");
                    return 2;
            }
        }
        if (countReader) return ResendStallCommand.RunCountReader(port, messages);
        if (receiver is not ("fix" or "count"))
        {
            Console.Error.WriteLine($"store: --receiver must be fix or count, not '{receiver}'");
            return 2;
        }
        if (dir is null)
        {
            Console.Error.WriteLine("store: --dir <folder for the multi-GB journal> is required");
            return 2;
        }
        Directory.CreateDirectory(dir);
        if (resendStall) return ResendStallCommand.Run(dir, messages, size, mode, baselineMs, receiver == "count");
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, IndexCheckpoint = true };
        byte[] message = ExecutionReport(size);
        string session = "FIX.4.4:SELLSIDE->BUYSIDE";

        // Write (or, with --skip-write, reuse the journal a run with --keep left).
        long heapBefore = HeapAfterCollect();
        var sw = Stopwatch.StartNew();
        if (!skipWrite)
        {
        using (var store = new FileMessageStore(dir, session, 1, options))
        {
            store.Reset(1);
            for (int seq = 1; seq <= count; seq++)
            {
                store.AppendAndIncrement(seq, message);
                if (seq % 1_000_000 == 0) Console.Error.WriteLine($"store: wrote {seq:N0} in {sw.Elapsed.TotalSeconds:F1} s");
            }
            Console.WriteLine($"write: {count} messages of {message.Length} bytes in {sw.Elapsed.TotalSeconds:F2} s = {count / sw.Elapsed.TotalSeconds:F0}/s, journal {store.JournalLengthInBytes} bytes");
        }
        Console.WriteLine($"write: close at {sw.Elapsed.TotalSeconds:F2} s");
        }
        GC.KeepAlive(heapBefore);

        // Reopen: time and the managed heap it leaves held (the index and buffers).
        var times = new double[reopens];
        long held = 0;
        for (int r = 0; r < reopens; r++)
        {
            long before = HeapAfterCollect();
            if (cold) DropPageCache(dir);
            sw.Restart();
            var store = new FileMessageStore(dir, session, 1, options);
            times[r] = sw.Elapsed.TotalSeconds;
            held = HeapAfterCollect() - before;
            if (store.MessageCount != count || store.NextSenderMsgSeqNum != count + 1)
            {
                Console.Error.WriteLine($"store: reopened with {store.MessageCount} messages, next sender {store.NextSenderMsgSeqNum}; expected {count}, {count + 1}");
                store.Dispose();
                return 1;
            }
            Console.WriteLine($"reopen {r + 1}: {times[r]:F3} s, managed heap held {held} bytes = {(double)held / count:F2} bytes/message");
            if (r == reopens - 1)
            {
                var handler = new CountingHandler();
                sw.Restart();
                int delivered = store.ReadRange(count - read + 1, 0, ref handler);
                double s = sw.Elapsed.TotalSeconds;
                Console.WriteLine($"read last {read}: {delivered} messages, {handler.Bytes} bytes in {s:F3} s = {handler.Bytes / s / 1e6:F0} MB/s");
                if (delivered != read || handler.FirstSeq != count - read + 1) return 1;
            }
            store.Dispose();
        }
        Array.Sort(times);
        Console.WriteLine($"reopen median: {times[times.Length / 2]:F3} s (min {times[0]:F3}, max {times[^1]:F3}) over {reopens}");

        // With the checkpoint off (FileStoreIndexCheckpoint=N, the default): every open replays the whole journal.
        var plain = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS };
        var plainTimes = new double[Math.Max(1, reopens / 2)];
        for (int r = 0; r < plainTimes.Length; r++)
        {
            long before = HeapAfterCollect();
            if (cold) DropPageCache(dir);
            sw.Restart();
            using var store = new FileMessageStore(dir, session, 1, plain);
            plainTimes[r] = sw.Elapsed.TotalSeconds;
            long heldNow = HeapAfterCollect() - before;
            Console.WriteLine($"reopen checkpoint off {r + 1}: {plainTimes[r]:F3} s, managed heap held {heldNow} bytes = {(double)heldNow / count:F2} bytes/message, {store.MessageCount} messages");
            if (store.MessageCount != count) return 1;
        }
        Array.Sort(plainTimes);
        Console.WriteLine($"reopen checkpoint off median: {plainTimes[plainTimes.Length / 2]:F3} s over {plainTimes.Length}");

        // Checkpoint on but no checkpoint file beside the journal (a journal written by an older version, or a lost
        // checkpoint): the full replay plus writing a whole new checkpoint, then the reopen after it.
        int dropped = 0;
        foreach (string f in Directory.GetFiles(dir, "*.index"))
        {
            File.Delete(f);
            dropped++;
        }
        for (int r = 0; r < (dropped > 0 ? 2 : 1); r++)
        {
            long before = HeapAfterCollect();
            if (cold) DropPageCache(dir);
            sw.Restart();
            using var store = new FileMessageStore(dir, session, 1, options);
            double s = sw.Elapsed.TotalSeconds;
            long heldNow = HeapAfterCollect() - before;
            Console.WriteLine($"reopen {(r == 0 ? "with checkpoint on, file lost" : "after it")}: {s:F3} s, managed heap held {heldNow} bytes = {(double)heldNow / count:F2} bytes/message, {store.MessageCount} messages");
        }
        if (!keep)
        {
            foreach (string f in Directory.GetFiles(dir)) File.Delete(f);
        }
        return 0;
    }

    // --cold: writes back and evicts the page cache of every file in the folder (posix_fadvise DONTNEED, this folder's
    // files only), so the next open reads from the disk, as after a reboot.
    private static void DropPageCache(string dir)
    {
        foreach (string f in Directory.GetFiles(dir))
        {
            using Microsoft.Win32.SafeHandles.SafeFileHandle handle = File.OpenHandle(f, FileMode.Open, FileAccess.ReadWrite);
            RandomAccess.FlushToDisk(handle);
            int rc = posix_fadvise((int)handle.DangerousGetHandle(), 0, 0, PosixFadvDontNeed);
            if (rc != 0) Console.Error.WriteLine($"store: posix_fadvise({f}) returned {rc}");
        }
    }

    private const int PosixFadvDontNeed = 4;

    [System.Runtime.InteropServices.LibraryImport("libc", SetLastError = false)]
    private static partial int posix_fadvise(int fd, long offset, long length, int advice);

    private static long HeapAfterCollect()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        return GC.GetTotalMemory(forceFullCollection: true);
    }

    private static byte[] ExecutionReport(int size)
    {
        var sb = new StringBuilder();
        sb.Append("8=FIX.4.4\u00019=000\u000135=8\u000134=1\u000149=SELLSIDE\u000152=20261206-06:00:00.000000\u000156=BUYSIDE\u0001")
            .Append("37=ORD-0000001\u000111=CL-0000001\u000117=EXEC-0000001\u0001150=F\u000139=1\u000155=MSFT\u000154=1\u000138=1000\u000132=100\u000131=415.25\u0001151=900\u000114=100\u00016=415.25\u000160=20261206-06:00:00.000\u0001");
        int text = size - 7 - sb.Length - 4;
        if (text > 0) sb.Append("58=").Append('x', text).Append('\u0001');
        sb.Append("10=000\u0001");
        byte[] bytes = Encoding.ASCII.GetBytes(sb.ToString());
        return bytes;
    }

    private struct CountingHandler : IStoredMessageHandler
    {
        public long Bytes;
        public int FirstSeq;

        public bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
        {
            if (FirstSeq == 0) FirstSeq = seqNum;
            Bytes += message.Length;
            return true;
        }
    }
}
