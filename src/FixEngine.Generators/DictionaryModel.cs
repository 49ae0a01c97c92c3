using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Xml;
using System.Xml.Linq;

namespace FixEngine.Generators;

/// <summary>A defect in a dictionary file: the line (1-based, 0 when unknown) and the reason.</summary>
internal sealed class DictionaryError : Exception
{
    public DictionaryError(int line, string reason) : base(reason) => Line = line;

    public int Line { get; }
}

/// <summary>How a field is read and written by the generated code.</summary>
internal enum ValueKind
{
    Span,
    Int,
    Long,
    Decimal,
    Char,
    Bool,
    Timestamp,
    TimeOnly,
    Date,
    MonthYear,
    ByteEnum,
    IntEnum,
}

internal sealed class FieldDef
{
    public FieldDef(int tag, string name, string type, List<KeyValuePair<string, string>> values, int line)
    {
        Tag = tag;
        Name = name;
        Type = type;
        Values = values;
        Line = line;
        Kind = KindOf(type, values);
    }

    public int Tag { get; }

    public string Name { get; }

    public string Type { get; }

    /// <summary>Enum values: wire value → description, in dictionary order.</summary>
    public List<KeyValuePair<string, string>> Values { get; }

    public int Line { get; }

    public ValueKind Kind { get; }

    /// <summary>Name of the generated enum (set when <see cref="Kind"/> is an enum kind).</summary>
    public string? EnumName { get; set; }

    public bool IsEnum => Kind is ValueKind.ByteEnum or ValueKind.IntEnum;

    private static ValueKind KindOf(string type, List<KeyValuePair<string, string>> values)
    {
        ValueKind plain = type switch
        {
            "INT" or "LENGTH" or "NUMINGROUP" or "TAGNUM" or "DAYOFMONTH" => ValueKind.Int,
            "SEQNUM" => ValueKind.Long,
            "FLOAT" or "PRICE" or "QTY" or "QUANTITY" or "AMT" or "PRICEOFFSET" or "PERCENTAGE" => ValueKind.Decimal,
            "CHAR" => ValueKind.Char,
            "BOOLEAN" => ValueKind.Bool,
            "UTCTIMESTAMP" => ValueKind.Timestamp,
            "UTCTIMEONLY" => ValueKind.TimeOnly,
            "UTCDATEONLY" or "UTCDATE" or "LOCALMKTDATE" or "DATE" => ValueKind.Date,
            "MONTHYEAR" => ValueKind.MonthYear,
            _ => ValueKind.Span,
        };
        if (values.Count == 0 || type.StartsWith("MULTIPLE", StringComparison.Ordinal) || plain == ValueKind.Bool) return plain;
        if (plain is ValueKind.Char or ValueKind.Span && values.All(v => v.Key.Length == 1 && v.Key[0] > ' ' && v.Key[0] < 0x7F))
        {
            return ValueKind.ByteEnum;
        }
        if (plain == ValueKind.Int && values.All(v => int.TryParse(v.Key, NumberStyles.None, CultureInfo.InvariantCulture, out _)))
        {
            return ValueKind.IntEnum;
        }
        return plain;
    }
}

/// <summary>One member of a flat level: a field or a repeating group (components are already expanded).</summary>
internal sealed class Member
{
    public Member(FieldDef field, bool required, GroupShape? group)
    {
        Field = field;
        Required = required;
        Group = group;
    }

    public FieldDef Field { get; }

    public bool Required { get; }

    public GroupShape? Group { get; }
}

internal sealed class Level
{
    private readonly HashSet<int> _tags = new();

    public List<Member> Members { get; } = new();

    public void Add(Member member)
    {
        if (_tags.Add(member.Field.Tag)) Members.Add(member);
    }
}

/// <summary>A repeating group's entry shape; equal shapes found in several places share one generated type.</summary>
internal sealed class GroupShape
{
    public GroupShape(FieldDef count, Level entry)
    {
        Count = count;
        Entry = entry;
        Signature = count.Tag + ":" + string.Join(",", entry.Members.Select(m => (m.Required ? "!" : "") + m.Field.Tag + (m.Group is null ? "" : "{" + m.Group.Signature + "}")));
    }

    public FieldDef Count { get; }

    public Level Entry { get; }

    public FieldDef Delimiter => Entry.Members[0].Field;

    public string Signature { get; }

    /// <summary>Name of the generated static class (unique in the dictionary).</summary>
    public string TypeName { get; set; } = "";
}

internal sealed class MessageDef
{
    public MessageDef(string name, string msgType, bool isAdmin, Level body)
    {
        Name = name;
        MsgType = msgType;
        IsAdmin = isAdmin;
        Body = body;
    }

    public string Name { get; }

    public string MsgType { get; }

    public bool IsAdmin { get; }

    public Level Body { get; }

    public string TypeName { get; set; } = "";
}

/// <summary>A QuickFIX XML dictionary compiled for code generation (same rules as the runtime's DataDictionary).</summary>
internal sealed class DictionaryModel
{
    private readonly Dictionary<string, FieldDef> _fieldsByName = new(StringComparer.Ordinal);
    private readonly Dictionary<string, XElement> _components = new(StringComparer.Ordinal);
    private readonly List<string> _componentStack = new();
    private readonly Dictionary<string, GroupShape> _shapes = new(StringComparer.Ordinal);

    private DictionaryModel()
    {
    }

    public string FixType { get; private set; } = "";

    public string Version { get; private set; } = "";

    public List<FieldDef> Fields { get; } = new();

    public Level Header { get; private set; } = new();

    public List<MessageDef> Messages { get; } = new();

    /// <summary>Distinct group shapes in the order they were first met.</summary>
    public List<GroupShape> Groups { get; } = new();

    /// <exception cref="DictionaryError">The text is not XML or not a valid dictionary.</exception>
    public static DictionaryModel Parse(string xml)
    {
        XDocument doc;
        try
        {
            doc = XDocument.Parse(xml, LoadOptions.SetLineInfo);
        }
        catch (XmlException e)
        {
            throw new DictionaryError(e.LineNumber, "malformed XML: " + e.Message);
        }
        var model = new DictionaryModel();
        model.Compile(doc.Root!);
        return model;
    }

    private void Compile(XElement root)
    {
        if (root.Name.LocalName != "fix") throw Error(root, "the root element must be <fix>");
        FixType = RequiredAttribute(root, "type");
        if (FixType is not ("FIX" or "FIXT")) throw Error(root, $"type '{FixType}' must be FIX or FIXT");
        int major = IntAttribute(root, "major", true);
        int minor = IntAttribute(root, "minor", true);
        int sp = IntAttribute(root, "servicepack", false);
        Version = sp > 0 ? $"{FixType}.{major}.{minor}SP{sp}" : $"{FixType}.{major}.{minor}";

        CompileFields(Single(root, "fields"));
        XElement? components = root.Element("components");
        if (components is not null)
        {
            foreach (XElement e in components.Elements())
            {
                if (e.Name.LocalName != "component") throw Error(e, "only <component> elements are allowed in <components>");
                string name = RequiredAttribute(e, "name");
                if (_components.ContainsKey(name)) throw Error(e, $"duplicate component '{name}'");
                _components.Add(name, e);
            }
        }
        Header = new Level();
        ExpandInto(Single(root, "header"), Header, true);
        ExpandInto(Single(root, "trailer"), new Level(), true);
        var types = new Dictionary<string, string>(StringComparer.Ordinal);
        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (XElement e in Single(root, "messages").Elements())
        {
            if (e.Name.LocalName != "message") throw Error(e, "only <message> elements are allowed in <messages>");
            string name = RequiredAttribute(e, "name");
            string msgType = RequiredAttribute(e, "msgtype");
            if (msgType.Length == 0 || msgType.Any(c => c <= ' ' || c > '~')) throw Error(e, $"msgtype '{msgType}' is not printable ASCII");
            if (types.TryGetValue(msgType, out string? other)) throw Error(e, $"duplicate msgtype '{msgType}' (already used by '{other}')");
            if (!names.Add(name)) throw Error(e, $"duplicate message name '{name}'");
            types.Add(msgType, name);
            string category = e.Attribute("msgcat")?.Value ?? "app";
            if (category is not ("app" or "admin")) throw Error(e, $"msgcat '{category}' must be app or admin");
            var body = new Level();
            ExpandInto(e, body, true);
            Messages.Add(new MessageDef(name, msgType, category == "admin", body));
        }
        foreach (XElement component in _components.Values)
        {
            _componentStack.Add(component.Attribute("name")!.Value);
            ExpandInto(component, new Level(), false);
            _componentStack.Clear();
        }
    }

    private void CompileFields(XElement section)
    {
        var byNumber = new Dictionary<int, FieldDef>();
        foreach (XElement e in section.Elements())
        {
            if (e.Name.LocalName != "field") throw Error(e, "only <field> elements are allowed in <fields>");
            string name = RequiredAttribute(e, "name");
            if (!Naming.IsIdentifier(name)) throw Error(e, $"field name '{name}' is not an identifier");
            int number = IntAttribute(e, "number", true);
            if (number <= 0) throw Error(e, $"number {number} must be positive");
            string type = RequiredAttribute(e, "type").ToUpperInvariant();
            if (!KnownTypes.Contains(type)) throw Error(e, $"unknown type '{type}'");
            if (byNumber.TryGetValue(number, out FieldDef? other)) throw Error(e, $"duplicate field number {number} (already used by '{other.Name}')");
            if (_fieldsByName.ContainsKey(name)) throw Error(e, $"duplicate field name '{name}'");
            var values = new List<KeyValuePair<string, string>>();
            var seen = new HashSet<string>(StringComparer.Ordinal);
            foreach (XElement v in e.Elements())
            {
                if (v.Name.LocalName != "value") throw Error(v, "only <value> elements are allowed in <field>");
                string value = RequiredAttribute(v, "enum");
                if (value.Length == 0) throw Error(v, "empty enum value");
                if (value.Any(c => c < ' ' || c > '~')) throw Error(v, $"enum value '{value}' is not printable ASCII");
                if (seen.Add(value)) values.Add(new KeyValuePair<string, string>(value, v.Attribute("description")?.Value ?? ""));
            }
            var field = new FieldDef(number, name, type, values, LineOf(e));
            byNumber.Add(number, field);
            _fieldsByName.Add(name, field);
            Fields.Add(field);
        }
    }

    private void ExpandInto(XElement container, Level level, bool contextRequired)
    {
        foreach (XElement e in container.Elements())
        {
            switch (e.Name.LocalName)
            {
                case "field":
                    level.Add(new Member(ResolveField(e), contextRequired && IsRequired(e), null));
                    break;
                case "group":
                {
                    // The count field is usually NUMINGROUP, but FIX42.xml declares some as INT (NoIOIQualifiers): both are read as int.
                    FieldDef count = ResolveField(e);
                    var entry = new Level();
                    ExpandInto(e, entry, true);
                    if (entry.Members.Count == 0) throw Error(e, $"group '{count.Name}' has no fields");
                    var shape = new GroupShape(count, entry);
                    if (_shapes.TryGetValue(shape.Signature, out GroupShape? known))
                    {
                        shape = known;
                    }
                    else
                    {
                        _shapes.Add(shape.Signature, shape);
                        Groups.Add(shape);
                    }
                    level.Add(new Member(count, contextRequired && IsRequired(e), shape));
                    break;
                }
                case "component":
                {
                    string name = RequiredAttribute(e, "name");
                    if (!_components.TryGetValue(name, out XElement? definition)) throw Error(e, $"unknown component '{name}'");
                    if (_componentStack.Contains(name)) throw Error(e, $"component cycle: {string.Join(" -> ", _componentStack)} -> {name}");
                    _componentStack.Add(name);
                    ExpandInto(definition, level, contextRequired && IsRequired(e));
                    _componentStack.RemoveAt(_componentStack.Count - 1);
                    break;
                }
                default:
                    throw Error(e, $"unexpected element <{e.Name.LocalName}> (expected field, group or component)");
            }
        }
    }

    private FieldDef ResolveField(XElement e)
    {
        string name = RequiredAttribute(e, "name");
        return _fieldsByName.TryGetValue(name, out FieldDef? f) ? f : throw Error(e, $"unknown field '{name}'");
    }

    private static bool IsRequired(XElement e) => e.Attribute("required")?.Value switch
    {
        null or "N" or "n" => false,
        "Y" or "y" => true,
        string other => throw Error(e, $"required='{other}' must be Y or N"),
    };

    private static XElement Single(XElement root, string name)
    {
        XElement? found = null;
        foreach (XElement e in root.Elements(name))
        {
            if (found is not null) throw Error(e, $"more than one <{name}> section");
            found = e;
        }
        return found ?? throw Error(root, $"missing <{name}> section");
    }

    private static string RequiredAttribute(XElement e, string name) => e.Attribute(name)?.Value ?? throw Error(e, $"<{e.Name.LocalName}> is missing attribute '{name}'");

    private static int IntAttribute(XElement e, string name, bool required)
    {
        string? text = e.Attribute(name)?.Value;
        if (text is null) return required ? throw Error(e, $"<{e.Name.LocalName}> is missing attribute '{name}'") : 0;
        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int value)
            ? value
            : throw Error(e, $"attribute {name}='{text}' is not a non-negative integer");
    }

    private static int LineOf(XElement e) => ((IXmlLineInfo)e).HasLineInfo() ? ((IXmlLineInfo)e).LineNumber : 0;

    private static DictionaryError Error(XElement e, string reason)
    {
        string? name = e.Attribute("name")?.Value;
        return new DictionaryError(LineOf(e), name is null ? $"<{e.Name.LocalName}>: {reason}" : $"<{e.Name.LocalName} name='{name}'>: {reason}");
    }

    private static readonly HashSet<string> KnownTypes = new(StringComparer.Ordinal)
    {
        "INT", "LENGTH", "SEQNUM", "NUMINGROUP", "TAGNUM", "DAYOFMONTH", "FLOAT", "PRICE", "QTY", "QUANTITY", "AMT",
        "PRICEOFFSET", "PERCENTAGE", "CHAR", "BOOLEAN", "STRING", "MULTIPLEVALUESTRING", "MULTIPLESTRINGVALUE",
        "MULTIPLECHARVALUE", "EXCHANGE", "CURRENCY", "COUNTRY", "LANGUAGE", "UTCTIMESTAMP", "UTCTIMEONLY", "UTCDATEONLY",
        "UTCDATE", "LOCALMKTDATE", "LOCALMKTTIME", "MONTHYEAR", "DATA", "XMLDATA", "TIME", "DATE", "TZTIMEONLY",
        "TZTIMESTAMP", "XID", "XIDREF", "RESERVED100PLUS", "RESERVED1000PLUS", "RESERVED4000PLUS", "PATTERN", "TENOR",
    };
}
