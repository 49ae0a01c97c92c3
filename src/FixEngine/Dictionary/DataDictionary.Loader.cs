using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;
using System.Xml;
using System.Xml.Linq;

namespace FixEngine.Dictionary;

public sealed partial class DataDictionary
{
    /// <summary>Loads and compiles the dictionary at <paramref name="path"/>.</summary>
    /// <exception cref="DataDictionaryException">The file is missing, not XML, or not a valid dictionary.</exception>
    /// <remarks>Load-time only: allocates the compiled tables.</remarks>
    public static DataDictionary Load(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        FileStream stream;
        try
        {
            stream = File.OpenRead(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new DataDictionaryException(path, 0, "", "cannot open the file: " + e.Message, e);
        }
        using (stream)
        {
            return Load(stream, path);
        }
    }

    /// <summary>Loads and compiles a dictionary from <paramref name="stream"/>; <paramref name="displayName"/> names it in errors.</summary>
    /// <exception cref="DataDictionaryException">The content is not XML or not a valid dictionary.</exception>
    public static DataDictionary Load(Stream stream, string displayName)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ArgumentNullException.ThrowIfNull(displayName);
        var settings = new XmlReaderSettings { DtdProcessing = DtdProcessing.Prohibit, XmlResolver = null };
        XDocument doc;
        try
        {
            using XmlReader reader = XmlReader.Create(stream, settings);
            doc = XDocument.Load(reader, LoadOptions.SetLineInfo);
        }
        catch (XmlException e)
        {
            throw new DataDictionaryException(displayName, e.LineNumber, "", "malformed XML: " + e.Message, e);
        }
        return new Compiler(displayName).Compile(doc);
    }

    /// <summary>Compiles a dictionary from XML text; <paramref name="displayName"/> names it in errors.</summary>
    /// <exception cref="DataDictionaryException">The text is not XML or not a valid dictionary.</exception>
    public static DataDictionary Parse(string xml, string displayName = "<inline>")
    {
        ArgumentNullException.ThrowIfNull(xml);
        using var stream = new MemoryStream(Encoding.UTF8.GetBytes(xml));
        return Load(stream, displayName);
    }

    /// <summary>Turns the XML tree into the flat tables; one instance per load.</summary>
    private sealed class Compiler(string fileName)
    {
        private readonly Dictionary<string, FieldDefinition> _fieldsByName = new(StringComparer.Ordinal);
        private readonly Dictionary<string, XElement> _components = new(StringComparer.Ordinal);
        private readonly List<string> _componentStack = [];

        public DataDictionary Compile(XDocument doc)
        {
            XElement root = doc.Root!;
            if (root.Name.LocalName != "fix") throw Error(root, "the root element must be <fix>");
            string fixType = RequiredAttribute(root, "type");
            if (fixType is not ("FIX" or "FIXT")) throw Error(root, $"type '{fixType}' must be FIX or FIXT");
            int major = IntAttribute(root, "major", required: true);
            int minor = IntAttribute(root, "minor", required: true);
            int servicePack = IntAttribute(root, "servicepack", required: false);

            FieldDefinition[] fields = CompileFields(Single(root, "fields"));
            XElement? components = root.Element("components");
            if (components is not null) CollectComponents(components);

            SectionDefinition header = CompileSection(Single(root, "header"));
            SectionDefinition trailer = CompileSection(Single(root, "trailer"));
            MessageDefinition[] messages = CompileMessages(Single(root, "messages"));

            // Expand every component once so a cycle or unknown name is reported even when no message uses the component.
            foreach (XElement component in _components.Values)
            {
                _componentStack.Add(component.Attribute("name")!.Value);
                ExpandInto(component, new LevelBuilder(), contextRequired: false);
                _componentStack.Clear();
            }

            LinkDataFields(fields);
            return new DataDictionary(fileName, fixType, major, minor, servicePack, fields, header, trailer, messages);
        }

        private FieldDefinition[] CompileFields(XElement section)
        {
            var byNumber = new Dictionary<int, FieldDefinition>();
            var list = new List<FieldDefinition>();
            foreach (XElement e in section.Elements())
            {
                if (e.Name.LocalName != "field") throw Error(e, "only <field> elements are allowed in <fields>");
                string name = RequiredAttribute(e, "name");
                int number = IntAttribute(e, "number", required: true);
                if (number <= 0) throw Error(e, $"number {number} must be positive");
                string typeName = RequiredAttribute(e, "type");
                if (!FixFieldTypeNames.TryParse(typeName, out FixFieldType type)) throw Error(e, $"unknown type '{typeName}'");
                if (byNumber.TryGetValue(number, out FieldDefinition? other))
                {
                    throw Error(e, $"duplicate field number {number} (already used by '{other.Name}')");
                }
                if (_fieldsByName.ContainsKey(name)) throw Error(e, $"duplicate field name '{name}'");

                var values = new List<FieldEnumValue>();
                var seen = new HashSet<string>(StringComparer.Ordinal);
                foreach (XElement v in e.Elements())
                {
                    if (v.Name.LocalName != "value") throw Error(v, "only <value> elements are allowed in <field>");
                    string value = RequiredAttribute(v, "enum");
                    if (value.Length == 0) throw Error(v, "empty enum value");
                    foreach (char c in value)
                    {
                        if (c > 0x7E || c < 0x20) throw Error(v, $"enum value '{value}' is not printable ASCII");
                    }
                    if (seen.Add(value)) values.Add(new FieldEnumValue(value, v.Attribute("description")?.Value ?? ""));
                }
                var field = new FieldDefinition(number, name, type, values.ToArray());
                byNumber.Add(number, field);
                _fieldsByName.Add(name, field);
                list.Add(field);
            }
            return list.ToArray();
        }

        private void CollectComponents(XElement section)
        {
            foreach (XElement e in section.Elements())
            {
                if (e.Name.LocalName != "component") throw Error(e, "only <component> elements are allowed in <components>");
                string name = RequiredAttribute(e, "name");
                if (!_components.TryAdd(name, e)) throw Error(e, $"duplicate component '{name}'");
            }
        }

        private SectionDefinition CompileSection(XElement section)
        {
            var level = new LevelBuilder();
            ExpandInto(section, level, contextRequired: true);
            return new SectionDefinition(section.Name.LocalName, level.Fields.ToArray(), level.Required.ToArray(), level.Groups);
        }

        private MessageDefinition[] CompileMessages(XElement section)
        {
            var list = new List<MessageDefinition>();
            var byType = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (XElement e in section.Elements())
            {
                if (e.Name.LocalName != "message") throw Error(e, "only <message> elements are allowed in <messages>");
                string name = RequiredAttribute(e, "name");
                string msgType = RequiredAttribute(e, "msgtype");
                if (msgType.Length == 0) throw Error(e, "empty msgtype");
                foreach (char c in msgType)
                {
                    if (c > 0x7E || c <= 0x20) throw Error(e, $"msgtype '{msgType}' is not printable ASCII");
                }
                if (!byType.TryAdd(msgType, name)) throw Error(e, $"duplicate msgtype '{msgType}' (already used by '{byType[msgType]}')");
                string category = e.Attribute("msgcat")?.Value ?? "app";
                if (category is not ("app" or "admin")) throw Error(e, $"msgcat '{category}' must be app or admin");

                var level = new LevelBuilder();
                ExpandInto(e, level, contextRequired: true);
                list.Add(new MessageDefinition(name, msgType, category == "admin", level.Fields.ToArray(), level.Required.ToArray(), level.Groups));
            }
            return list.ToArray();
        }

        /// <summary>Adds the children of <paramref name="container"/> to one flat level, expanding components in place.</summary>
        private void ExpandInto(XElement container, LevelBuilder level, bool contextRequired)
        {
            foreach (XElement e in container.Elements())
            {
                switch (e.Name.LocalName)
                {
                    case "field":
                    {
                        FieldDefinition field = ResolveField(e);
                        level.Add(field.Tag, contextRequired && IsRequired(e));
                        break;
                    }
                    case "group":
                    {
                        FieldDefinition count = ResolveField(e);
                        var entry = new LevelBuilder();
                        ExpandInto(e, entry, contextRequired: true);
                        if (entry.Fields.Count == 0) throw Error(e, $"group '{count.Name}' has no fields");
                        var group = new GroupDefinition(count.Name, count.Tag, entry.Fields[0], entry.Fields.ToArray(), entry.Required.ToArray(), entry.Groups)
                        {
                            QuickFixRequiredFields = QuickFixRequired(e),
                        };
                        level.Add(count.Tag, contextRequired && IsRequired(e));
                        level.Groups.TryAdd(count.Tag, group);
                        break;
                    }
                    case "component":
                    {
                        string name = RequiredAttribute(e, "name");
                        if (!_components.TryGetValue(name, out XElement? definition)) throw Error(e, $"unknown component '{name}'");
                        if (_componentStack.Contains(name))
                        {
                            throw Error(e, $"component cycle: {string.Join(" -> ", _componentStack)} -> {name}");
                        }
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

        // The members QuickFIX C++ requires in each entry of group e: its own field and group children marked required,
        // and only when the group itself is marked required (fields of components inside the group are not among them).
        private int[] QuickFixRequired(XElement e)
        {
            if (!IsRequired(e)) return [];
            var tags = new List<int>();
            foreach (XElement child in e.Elements())
            {
                if (child.Name.LocalName is "field" or "group" && IsRequired(child))
                {
                    int tag = ResolveField(child).Tag;
                    if (!tags.Contains(tag)) tags.Add(tag);
                }
            }
            tags.Sort();
            return tags.ToArray();
        }

        private FieldDefinition ResolveField(XElement e)
        {
            string name = RequiredAttribute(e, "name");
            if (!_fieldsByName.TryGetValue(name, out FieldDefinition? field)) throw Error(e, $"unknown field '{name}'");
            return field;
        }

        private bool IsRequired(XElement e)
        {
            string? value = e.Attribute("required")?.Value;
            return value switch
            {
                null or "N" or "n" => false,
                "Y" or "y" => true,
                _ => throw Error(e, $"required='{value}' must be Y or N"),
            };
        }

        private void LinkDataFields(FieldDefinition[] fields)
        {
            var byTag = new Dictionary<int, FieldDefinition>();
            foreach (FieldDefinition f in fields) byTag[f.Tag] = f;
            foreach (FieldDefinition f in fields)
            {
                if (!f.IsDataField) continue;
                if (byTag.TryGetValue(f.Tag - 1, out FieldDefinition? previous) && previous.Type == FixFieldType.Length)
                {
                    f.LengthTag = previous.Tag;
                    continue;
                }
                foreach (string candidate in (ReadOnlySpan<string>)[f.Name + "Len", f.Name + "Length"])
                {
                    if (_fieldsByName.TryGetValue(candidate, out FieldDefinition? length) && length.Type == FixFieldType.Length)
                    {
                        f.LengthTag = length.Tag;
                        break;
                    }
                }
            }
        }

        private XElement Single(XElement root, string name)
        {
            XElement? found = null;
            foreach (XElement e in root.Elements(name))
            {
                if (found is not null) throw Error(e, $"more than one <{name}> section");
                found = e;
            }
            return found ?? throw Error(root, $"missing <{name}> section");
        }

        private string RequiredAttribute(XElement e, string name)
            => e.Attribute(name)?.Value ?? throw Error(e, $"missing attribute '{name}'");

        private int IntAttribute(XElement e, string name, bool required)
        {
            string? text = e.Attribute(name)?.Value;
            if (text is null)
            {
                if (required) throw Error(e, $"missing attribute '{name}'");
                return 0;
            }
            if (!int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int value))
            {
                throw Error(e, $"attribute {name}='{text}' is not a non-negative integer");
            }
            return value;
        }

        private DataDictionaryException Error(XElement e, string reason)
        {
            int line = ((IXmlLineInfo)e).HasLineInfo() ? ((IXmlLineInfo)e).LineNumber : 0;
            return new DataDictionaryException(fileName, line, Describe(e), reason);
        }

        private static string Describe(XElement e)
        {
            var sb = new StringBuilder("<").Append(e.Name.LocalName);
            foreach (string attr in (ReadOnlySpan<string>)["name", "number", "msgtype", "enum"])
            {
                string? v = e.Attribute(attr)?.Value;
                if (v is not null) sb.Append(' ').Append(attr).Append("='").Append(v).Append('\'');
            }
            return sb.Append('>').ToString();
        }
    }

    /// <summary>Accumulates one level (message body, group entry, header, trailer) while components are expanded.</summary>
    private sealed class LevelBuilder
    {
        private readonly HashSet<int> _seen = [];
        private readonly HashSet<int> _requiredSeen = [];

        public List<int> Fields { get; } = [];

        public List<int> Required { get; } = [];

        public Dictionary<int, GroupDefinition> Groups { get; } = [];

        public void Add(int tag, bool required)
        {
            if (_seen.Add(tag)) Fields.Add(tag);
            if (required && _requiredSeen.Add(tag)) Required.Add(tag);
        }
    }
}
