using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using FixEngine.Config;

namespace FixEngine.AspNetCore;

/// <summary>Searches the session's message log (FileLogPath: the shared <c>fixengine.log</c> or the session's own
/// <c>.messages.log</c>) for messages with a tag value. Runs on the request's thread, never the session's: it reads the
/// files the log's drain thread writes (shared read, lines already flushed).</summary>
internal static class MessageLogSearch
{
    public static void Search(SessionSettings settings, MessageRenderer renderer, int tag, string value, int limit, List<RenderedMessage> into)
    {
        if (settings.FileLogPath is not string dir || !Directory.Exists(dir)) return;
        string name = settings.SessionId.ToString();
        string needle = tag.ToString(System.Globalization.CultureInfo.InvariantCulture) + "=" + value;
        foreach (string file in Directory.EnumerateFiles(dir, "*.log"))
        {
            string fileName = Path.GetFileName(file);
            bool shared = fileName == "fixengine.log";
            if (!shared && !fileName.EndsWith(".messages.log", StringComparison.Ordinal)) continue;
            using var stream = new FileStream(file, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            using var reader = new StreamReader(stream, Encoding.Latin1);
            while (reader.ReadLine() is string line)
            {
                if (!line.Contains(needle, StringComparison.Ordinal)) continue;
                // Per-session files hold one session; the shared file names the session on each line.
                if (shared && !line.Contains(name, StringComparison.Ordinal)) continue;
                int begin = line.IndexOf("8=FIX", StringComparison.Ordinal);
                if (begin < 2) continue;
                char direction = line[begin - 2];
                if (direction is not ('<' or '>')) continue;
                // The separator the log writes for SOH (SOH itself, or FixLogOptions.SohReplacement).
                int nine = line.IndexOf("9=", begin, StringComparison.Ordinal);
                if (nine <= begin) continue;
                char sep = line[nine - 1];
                string payload = line[begin..];
                if (!HasField(payload, sep, needle)) continue;
                byte[] bytes = Encoding.Latin1.GetBytes(sep == '\u0001' ? payload : payload.Replace(sep, '\u0001'));
                // The line starts with its time, one token (2026-12-07T00:11:55.524018764Z), then the level and the producer.
                int space = line.IndexOf(' ');
                string time = space > 0 && space < begin && char.IsAsciiDigit(line[0]) ? line[..space] : "";
                into.Add(renderer.Render("log " + fileName, direction == '<' ? "in" : "out", bytes, time.Length == 0 ? null : time));
                if (into.Count >= limit) return;
            }
        }
    }

    private static bool HasField(string payload, char sep, string needle)
    {
        int from = 0;
        while (true)
        {
            int at = payload.IndexOf(needle, from, StringComparison.Ordinal);
            if (at < 0) return false;
            int end = at + needle.Length;
            if ((at == 0 || payload[at - 1] == sep) && (end == payload.Length || payload[end] == sep)) return true;
            from = at + 1;
        }
    }
}
