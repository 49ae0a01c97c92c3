using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using FixEngine.Codec;
using FixEngine.Tests.Infrastructure;
using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>
/// Messages with several defects at once get the reject QuickFIX C++ gives them (reason and RefTagID), for every FIX
/// version: the answers in QuickFixValidationCases.txt were recorded from libquickfix 1.15.1 (tests/quickfix-probe).
/// Settings written after the session dictionary (",AllowUnknownMsgFields=Y") are applied to both sides.
/// Where the file marks a deliberate difference (defects inside group entries, which QuickFIX C++ does not check),
/// FixEngine's own answer is asserted.
/// </summary>
public sealed class QuickFixValidationCaseTests
{
    private static readonly string s_file = Path.Combine(SharedPaths.Repository, "tests", "FixEngine.Tests", "Session", "QuickFixValidationCases.txt");

    public static IEnumerable<object[]> Cases() => File.ReadAllLines(s_file)
        .Where(l => l.Contains(" => ", StringComparison.Ordinal) && !l.StartsWith('#'))
        .Select(l => new object[] { l[(l.IndexOf(" # ", StringComparison.Ordinal) + 3)..], l });

    [Theory]
    [MemberData(nameof(Cases))]
    public void AnswersAsRecorded(string name, string line)
    {
        _ = name;
        string[] head = line[..line.IndexOf(" => ", StringComparison.Ordinal)].Split(' ');
        string recorded = line[(line.IndexOf(" => ", StringComparison.Ordinal) + 4)..];
        recorded = recorded[..recorded.IndexOf(" # ", StringComparison.Ordinal)];
        int own = recorded.IndexOf(" ; fixengine ", StringComparison.Ordinal);
        string expected = own >= 0 ? recorded[(own + " ; fixengine ".Length)..] : recorded;

        string[] session = head[0].Split(',');
        var validator = new MessageValidator(
            SessionHarness.Dictionary(session[0]), head[1] == "-" ? null : SessionHarness.Dictionary(head[1]), Options(session.Skip(1)));
        Assert.Equal(expected, Answer(validator, head[2]));
    }

    [Fact]
    public void EveryVersionHasCases()
    {
        string[] lines = Cases().Select(c => (string)c[0]).ToArray();
        foreach (string version in new[] { "FIX40", "FIX41", "FIX42", "FIX43", "FIX44", "FIX50", "FIX50SP1", "FIX50SP2" })
        {
            Assert.True(lines.Count(l => l.StartsWith(version + ":", StringComparison.Ordinal)) >= 10, version);
        }
    }

    // ",Key=Y" settings written after the session dictionary, as QuickFIX's Session applies them to its dictionaries.
    private static ValidationOptions Options(IEnumerable<string> settings)
    {
        var options = new ValidationOptions();
        foreach (string setting in settings)
        {
            string[] kv = setting.Split('=');
            bool on = kv[1] == "Y";
            options = kv[0] switch
            {
                "AllowUnknownMsgFields" => options with { AllowUnknownMsgFields = on },
                "ValidateUserDefinedFields" => options with { ValidateUserDefinedFields = on },
                "ValidateFieldsHaveValues" => options with { ValidateFieldsHaveValues = on },
                "ValidateFieldsOutOfOrder" => options with { ValidateFieldsOutOfOrder = on },
                _ => throw new InvalidOperationException("unknown setting " + kv[0]),
            };
        }
        return options;
    }

    internal static string Answer(MessageValidator validator, string text)
    {
        byte[] bytes = Frame(text);
        var index = new FixMessageIndex();
        index.Parse(bytes);
        ValidationError error = validator.Validate(new FixMessage(bytes, index));
        if (error.IsValid) return "valid";
        return error.HasRefTag ? $"{error.Reason} {error.RefTagId}" : $"{error.Reason} -";
    }

    // Adds BodyLength(9) after BeginString and CheckSum(10) at the end; | stands for SOH.
    internal static byte[] Frame(string text)
    {
        string soh = text.Replace('|', '\u0001');
        int first = soh.IndexOf('\u0001');
        string body = soh[(first + 1)..];
        string framed = soh[..(first + 1)] + "9=" + body.Length + "\u0001" + body;
        int sum = Encoding.ASCII.GetBytes(framed).Sum(b => b) % 256;
        return Encoding.ASCII.GetBytes(framed + "10=" + sum.ToString("000") + "\u0001");
    }
}
