// qfvalidate: which defect QuickFIX C++ (Debian's libquickfix, 1.15.1) reports for a message, validated as its Session
// validates an inbound message (the message parsed with the session and application dictionaries, then
// DataDictionary::validate). Used to record the expected answers in tests/FixEngine.Tests/Session/QuickFixValidationCases.txt.
//
// stdin: lines "<session dictionary>[,Key=Y...] <application dictionary or -> <message> ...", the message with | for SOH and
// without BodyLength(9) and CheckSum(10), which are added; dictionaries are file names in <dictionary dir> (argv[1]).
// Blank lines and lines starting with # are echoed as they are. stdout: "<SessionRejectReason> <RefTagID>", "11 -" for
// an unknown MsgType, or "valid", one line per input message.
#include <quickfix/DataDictionary.h>
#include <quickfix/Message.h>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

namespace
{
std::string g_dir;
std::map<std::string, std::shared_ptr<FIX::DataDictionary>> g_dictionaries;

// name: a file name, optionally followed by ",Key=Y" settings (AllowUnknownMsgFields, ValidateUserDefinedFields,
// ValidateFieldsHaveValues, ValidateFieldsOutOfOrder) applied as QuickFIX's Session applies them to its dictionaries.
FIX::DataDictionary& dictionary(const std::string& name, const std::string& options)
{
  std::shared_ptr<FIX::DataDictionary>& d = g_dictionaries[name + options];
  if (!d)
  {
    d = std::make_shared<FIX::DataDictionary>(g_dir + "/" + name);
    std::istringstream list(options);
    std::string option;
    while (std::getline(list, option, ','))
    {
      if (option.empty()) continue;
      std::string::size_type eq = option.find('=');
      std::string key = option.substr(0, eq);
      bool on = eq != std::string::npos && option.substr(eq + 1) == "Y";
      if (key == "AllowUnknownMsgFields") d->allowUnknownMsgFields(on);
      else if (key == "ValidateUserDefinedFields") d->checkUserDefinedFields(on);
      else if (key == "ValidateFieldsHaveValues") d->checkFieldsHaveValues(on);
      else if (key == "ValidateFieldsOutOfOrder") d->checkFieldsOutOfOrder(on);
      else throw std::runtime_error("unknown option " + key);
    }
  }
  return *d;
}

std::string frame(std::string text)
{
  for (char& c : text) if (c == '|') c = '\x01';
  std::string::size_type first = text.find('\x01');
  std::string body = text.substr(first + 1);
  std::string out = text.substr(0, first + 1) + "9=" + std::to_string(body.size()) + "\x01" + body;
  unsigned sum = 0;
  for (unsigned char c : out) sum += c;
  char checksum[8];
  std::snprintf(checksum, sizeof checksum, "%03u", sum % 256);
  return out + "10=" + checksum + "\x01";
}

std::string answer(std::string session, std::string app, const std::string& text)
{
  try
  {
    std::string options;
    std::string::size_type comma = session.find(',');
    if (comma != std::string::npos)
    {
      options = session.substr(comma);
      session = session.substr(0, comma);
    }
    FIX::DataDictionary& s = dictionary(session, options);
    if (app == "-")
    {
      FIX::Message message(frame(text), s, false);
      s.validate(message);
    }
    else
    {
      FIX::DataDictionary& a = dictionary(app, options);
      FIX::Message message(frame(text), s, a, false);
      FIX::DataDictionary::validate(message, &s, &a);
    }
    return "valid";
  }
  catch (FIX::InvalidTagNumber& e) { return "0 " + std::to_string(e.field); }
  catch (FIX::RequiredTagMissing& e) { return "1 " + std::to_string(e.field); }
  catch (FIX::TagNotDefinedForMessage& e) { return "2 " + std::to_string(e.field); }
  catch (FIX::NoTagValue& e) { return "4 " + std::to_string(e.field); }
  catch (FIX::IncorrectTagValue& e) { return "5 " + std::to_string(e.field); }
  catch (FIX::IncorrectDataFormat& e) { return "6 " + std::to_string(e.field); }
  catch (FIX::InvalidMessageType&) { return "11 -"; }
  catch (FIX::RepeatedTag& e) { return "13 " + std::to_string(e.field); }
  catch (FIX::TagOutOfOrder& e) { return "14 " + std::to_string(e.field); }
  catch (FIX::RepeatingGroupCountMismatch& e) { return "16 " + std::to_string(e.field); }
  catch (FIX::Exception& e) { return std::string("error ") + e.what(); }
  catch (std::exception& e) { return std::string("error ") + e.what(); }
}
}

int main(int argc, char** argv)
{
  if (argc != 2)
  {
    std::cerr << "usage: qfvalidate <dictionary dir> < cases\n";
    return 2;
  }
  g_dir = argv[1];
  std::string line;
  while (std::getline(std::cin, line))
  {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string session, app, text;
    fields >> session >> app >> text;
    std::cout << answer(session, app, text) << "\n";
  }
  return 0;
}
