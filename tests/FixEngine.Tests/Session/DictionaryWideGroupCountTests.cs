using System.Text;
using FixEngine.Codec;
using FixEngine.Dictionary;
using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>
/// Every repeating group of every application message of the shared dictionaries, top level and one level nested (groups
/// reached through components included), has its NumInGroup checked: a message built from the dictionary with the
/// group declared 2 and one entry is rejected 373=16 naming that group's count tag, and the same message with a correct
/// count is valid.
/// </summary>
public sealed class DictionaryWideGroupCountTests
{
    [Theory]
    [InlineData("FIX.4.2")]
    [InlineData("FIX.4.4")]
    [InlineData("FIXT.1.1")]
    public void EveryGroupCountIsChecked(string beginString)
    {
        using var h = new SessionHarness(beginString, connect: false);
        DataDictionary session = SessionHarness.Dictionary(beginString switch
        {
            "FIXT.1.1" => "FIXT11.xml",
            "FIX.4.4" => "FIX44.xml",
            _ => "FIX42.xml",
        });
        DataDictionary app = beginString == "FIXT.1.1" ? SessionHarness.Dictionary("FIX50SP2.xml") : session;
        var validator = new MessageValidator(session, app, new ValidationOptions());
        int checkedGroups = 0;
        var failures = new StringBuilder();
        foreach (MessageDefinition m in app.Messages)
        {
            if (m.IsAdmin) continue;
            foreach (GroupDefinition g in m.Groups)
            {
                Check(h, validator, failures, BuildMessage(app, m, g, null, declared: 1), valid: true, 0);
                Check(h, validator, failures, BuildMessage(app, m, g, null, declared: 2), valid: false, g.CountTag);
                checkedGroups++;
                foreach (GroupDefinition n in g.Groups)
                {
                    if (n.CountTag == g.DelimiterTag) continue;
                    Check(h, validator, failures, BuildMessage(app, m, g, n, declared: 1), valid: true, 0);
                    Check(h, validator, failures, BuildMessage(app, m, g, n, declared: 2), valid: false, n.CountTag);
                    checkedGroups++;
                }
            }
        }
        Assert.True(failures.Length == 0, failures.ToString());
        Assert.True(checkedGroups > 30, $"only {checkedGroups} groups found");
    }

    private static void Check(SessionHarness h, MessageValidator validator, StringBuilder failures, string message, bool valid, int countTag)
    {
        byte[] bytes = h.Build(message);
        var index = new FixMessageIndex();
        Assert.True(index.Parse(bytes));
        ValidationError error = validator.Validate(new FixMessage(bytes, index));
        bool ok = valid ? error.IsValid : error.IsError && error.Reason == SessionRejectReason.IncorrectNumInGroupCount && error.RefTagId == countTag;
        if (!ok && failures.Length < 4000) failures.AppendLine($"{message}: {error}");
    }

    // The message's required fields in dictionary order; group g with `declared` as its count and one entry, whose
    // nested group n (when given) has `declared` as its count and one entry.
    private static string BuildMessage(DataDictionary d, MessageDefinition m, GroupDefinition g, GroupDefinition? n, int declared)
    {
        var sb = new StringBuilder("35=").Append(m.MsgType).Append("|34=2");
        foreach (int tag in m.Fields)
        {
            if (tag != g.CountTag)
            {
                if (m.IsRequired(tag)) Field(d, m, tag, sb);
                continue;
            }
            sb.Append('|').Append(tag).Append('=').Append(n is null ? declared : 1);
            Field(d, g, g.DelimiterTag, sb);
            foreach (int member in g.Fields)
            {
                if (member == g.DelimiterTag) continue;
                if (n is not null && member == n.CountTag)
                {
                    sb.Append('|').Append(member).Append('=').Append(declared);
                    Entry(d, n, sb);
                }
                else if (g.IsRequired(member))
                {
                    Field(d, g, member, sb);
                }
            }
        }
        return sb.ToString();
    }

    private static void Entry(DataDictionary d, GroupDefinition g, StringBuilder sb)
    {
        Field(d, g, g.DelimiterTag, sb);
        foreach (int tag in g.RequiredFields)
        {
            if (tag != g.DelimiterTag) Field(d, g, tag, sb);
        }
    }

    private static void Field(DataDictionary d, FieldContainer level, int tag, StringBuilder sb)
    {
        GroupDefinition? g = level.GetGroup(tag);
        if (g is null)
        {
            sb.Append('|').Append(tag).Append('=').Append(Sample(d.GetField(tag)!));
            return;
        }
        sb.Append('|').Append(tag).Append("=1");
        Entry(d, g, sb);
    }

    private static string Sample(FieldDefinition f)
    {
        if (f.Values.Count > 0) return f.Values[0].Value;
        return f.Type switch
        {
            FixFieldType.Int or FixFieldType.Length or FixFieldType.NumInGroup or FixFieldType.SeqNum or FixFieldType.TagNum
                or FixFieldType.DayOfMonth => "1",
            FixFieldType.Float or FixFieldType.Price or FixFieldType.Qty or FixFieldType.Amt or FixFieldType.PriceOffset
                or FixFieldType.Percentage => "1.5",
            FixFieldType.Char => "A",
            FixFieldType.Boolean => "Y",
            FixFieldType.UtcTimestamp => "20260105-12:00:00",
            FixFieldType.UtcTimeOnly => "12:00:00",
            FixFieldType.UtcDateOnly or FixFieldType.LocalMktDate or FixFieldType.UtcDate => "20260105",
            FixFieldType.MonthYear => "202601",
            _ => "x",
        };
    }
}
