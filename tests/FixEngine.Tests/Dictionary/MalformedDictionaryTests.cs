using System;
using System.IO;
using System.Linq;
using System.Text;
using FixEngine.Dictionary;

namespace FixEngine.Tests.Dictionary;

public sealed class MalformedDictionaryTests
{
    private const string Fields = """
         <fields>
          <field number='8' name='BeginString' type='STRING' />
          <field number='10' name='CheckSum' type='STRING' />
          <field number='11' name='ClOrdID' type='STRING' />
          <field number='35' name='MsgType' type='STRING' />
          <field number='54' name='Side' type='CHAR'>
           <value enum='1' description='BUY' />
           <value enum='2' description='SELL' />
          </field>
          <field number='55' name='Symbol' type='STRING' />
          <field number='48' name='SecurityID' type='STRING' />
          <field number='453' name='NoPartyIDs' type='NUMINGROUP' />
          <field number='448' name='PartyID' type='STRING' />
          <field number='447' name='PartyIDSource' type='CHAR' />
          <field number='70000' name='VenueTag' type='INT' />
         </fields>
        """;

    private static string Dictionary(string messages, string components = "<components />", string fields = Fields) => $"""
        <fix type='FIX' major='4' minor='4' servicepack='0'>
         <header>
          <field name='BeginString' required='Y' />
          <field name='MsgType' required='Y' />
         </header>
         <trailer>
          <field name='CheckSum' required='Y' />
         </trailer>
         <messages>
        {messages}
         </messages>
        {components}
        {fields}
        </fix>
        """;

    private static DataDictionaryException Fails(string xml)
        => Assert.Throws<DataDictionaryException>(() => DataDictionary.Parse(xml, "venue.xml"));

    [Fact]
    public void ValidSnippetCompiles()
    {
        DataDictionary dd = DataDictionary.Parse(Dictionary("""
              <message name='NewOrderSingle' msgtype='D' msgcat='app'>
               <field name='ClOrdID' required='Y' />
               <component name='Instrument' required='Y' />
               <component name='Parties' required='N' />
               <field name='VenueTag' required='N' />
              </message>
            """, """
             <components>
              <component name='Instrument'>
               <field name='Symbol' required='Y' />
               <field name='SecurityID' required='N' />
              </component>
              <component name='Parties'>
               <group name='NoPartyIDs' required='Y'>
                <field name='PartyID' required='Y' />
                <field name='PartyIDSource' required='N' />
               </group>
              </component>
             </components>
            """), "venue.xml");
        MessageDefinition d = dd.GetMessage(Encoding.ASCII.GetBytes("D"))!;
        // Required fields of a required component are required at the top level; those of an optional one are not.
        Assert.Equal(new[] { 11, 55 }, d.RequiredFields.ToArray());
        Assert.Equal(new[] { 11, 55, 48, 453, 70000 }, d.Fields.ToArray());
        Assert.True(d.IsAllowed(70000));
        Assert.True(dd.IsDefinedField(70000));
        Assert.Equal(FixFieldType.Int, dd.GetFieldType(70000));
        GroupDefinition parties = d.GetGroup(453)!;
        Assert.Equal(new[] { 448 }, parties.RequiredFields.ToArray());
        Assert.Equal("venue.xml", dd.FileName);
    }

    [Fact]
    public void UnknownFieldInMessage()
    {
        DataDictionaryException e = Fails(Dictionary("""
              <message name='NewOrderSingle' msgtype='D' msgcat='app'>
               <field name='ClOrdID' required='Y' />
               <field name='NoSuchField' required='Y' />
              </message>
            """));
        Assert.Equal("venue.xml", e.FileName);
        Assert.Equal(12, e.LineNumber);
        Assert.Equal("<field name='NoSuchField'>", e.Element);
        Assert.Equal("unknown field 'NoSuchField'", e.Reason);
        Assert.Equal("venue.xml(12): <field name='NoSuchField'>: unknown field 'NoSuchField'", e.Message);
    }

    [Fact]
    public void MissingFieldNumber()
    {
        DataDictionaryException e = Fails(Dictionary("", fields: """
             <fields>
              <field name='BeginString' type='STRING' />
             </fields>
            """));
        Assert.Equal(14, e.LineNumber);
        Assert.Equal("missing attribute 'number'", e.Reason);
        Assert.Equal("<field name='BeginString'>", e.Element);
    }

    [Fact]
    public void DuplicateFieldNumber()
    {
        DataDictionaryException e = Fails(Dictionary("", fields: Fields.Replace("number='55'", "number='11'")));
        Assert.Equal("duplicate field number 11 (already used by 'ClOrdID')", e.Reason);
        Assert.Equal(22, e.LineNumber);
    }

    [Fact]
    public void UnknownComponent()
    {
        DataDictionaryException e = Fails(Dictionary("""
              <message name='NewOrderSingle' msgtype='D' msgcat='app'>
               <component name='Instrument' required='Y' />
              </message>
            """));
        Assert.Equal("unknown component 'Instrument'", e.Reason);
        Assert.Equal(11, e.LineNumber);
    }

    [Fact]
    public void ComponentCycle()
    {
        DataDictionaryException e = Fails(Dictionary("", """
             <components>
              <component name='A'>
               <field name='Symbol' required='N' />
               <component name='B' required='N' />
              </component>
              <component name='B'>
               <component name='A' required='N' />
              </component>
             </components>
            """));
        Assert.Equal("component cycle: A -> B -> A", e.Reason);
        Assert.Equal("<component name='A'>", e.Element);
        Assert.Equal(18, e.LineNumber);
    }

    [Fact]
    public void BadType()
    {
        DataDictionaryException e = Fails(Dictionary("", fields: Fields.Replace("name='Symbol' type='STRING'", "name='Symbol' type='STRIGN'")));
        Assert.Equal("unknown type 'STRIGN'", e.Reason);
        Assert.Equal("<field name='Symbol' number='55'>", e.Element);
    }

    [Fact]
    public void MissingMsgType()
    {
        DataDictionaryException e = Fails(Dictionary("""
              <message name='NewOrderSingle' msgcat='app'>
              </message>
            """));
        Assert.Equal("missing attribute 'msgtype'", e.Reason);
        Assert.Equal("<message name='NewOrderSingle'>", e.Element);
        Assert.Equal(10, e.LineNumber);
    }

    [Fact]
    public void DuplicateMsgType()
    {
        DataDictionaryException e = Fails(Dictionary("""
              <message name='A1' msgtype='D' msgcat='app' />
              <message name='A2' msgtype='D' msgcat='app' />
            """));
        Assert.Equal("duplicate msgtype 'D' (already used by 'A1')", e.Reason);
        Assert.Equal(11, e.LineNumber);
    }

    [Fact]
    public void BadRequiredFlagAndBadMsgcat()
    {
        Assert.Equal("required='X' must be Y or N", Fails(Dictionary("""
              <message name='A1' msgtype='D' msgcat='app'>
               <field name='ClOrdID' required='X' />
              </message>
            """)).Reason);
        Assert.Equal("msgcat 'session' must be app or admin", Fails(Dictionary("""
              <message name='A1' msgtype='D' msgcat='session' />
            """)).Reason);
    }

    [Fact]
    public void EmptyGroup()
    {
        DataDictionaryException e = Fails(Dictionary("""
              <message name='A1' msgtype='D' msgcat='app'>
               <group name='NoPartyIDs' required='N' />
              </message>
            """));
        Assert.Equal("group 'NoPartyIDs' has no fields", e.Reason);
        Assert.Equal(11, e.LineNumber);
    }

    [Fact]
    public void MissingSectionAndBadRoot()
    {
        DataDictionaryException e = Fails("<fix type='FIX' major='4' minor='2'><header/><trailer/><fields/></fix>");
        Assert.Equal("missing <messages> section", e.Reason);
        Assert.Equal("root element must be <fix>", Fails("<fox/>").Reason.Replace("the ", ""));
        Assert.Equal("missing attribute 'major'", Fails("<fix type='FIX' minor='2'/>").Reason);
        Assert.Equal("type 'FOO' must be FIX or FIXT", Fails("<fix type='FOO' major='4' minor='2'/>").Reason);
    }

    [Fact]
    public void MalformedXmlNamesLine()
    {
        DataDictionaryException e = Fails("<fix type='FIX' major='4' minor='2'>\n<header>\n</fix>");
        Assert.Equal(3, e.LineNumber);
        Assert.StartsWith("malformed XML", e.Reason);
    }

    [Fact]
    public void MissingFileIsReported()
    {
        string path = Path.Combine(Path.GetTempPath(), "no-such-dictionary-" + Guid.NewGuid() + ".xml");
        DataDictionaryException e = Assert.Throws<DataDictionaryException>(() => DataDictionary.Load(path));
        Assert.Equal(path, e.FileName);
        Assert.StartsWith("cannot open the file", e.Reason);
    }
}
