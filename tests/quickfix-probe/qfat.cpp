// qfat: QuickFIX C++ (Debian's libquickfix, 1.15.1) as the acceptor of the session acceptance scenarios, so that
// tests/acceptance/<version>/*.def (and ../shared/fix-at's definitions) can be run against QuickFIX itself and their
// expectations checked to be what QuickFIX sends, message for message (`run_at.py --mode strict`).
//
// Usage: qfat <settings file>   (the [DEFAULT]/[SESSION] file .ci/acceptance.sh writes; SocketAcceptPort must be set)
// Prints "listening on port P" once the acceptor runs, and stops on SIGTERM/SIGINT or end of stdin.
//
// The application answers as the acceptance scenarios expect of their acceptor: a NewOrderSingle, SecurityDefinition
// or Email is echoed back to its sender, except a NewOrderSingle with PossResend=Y whose ClOrdID the session has
// already seen; any other application message is refused with UnsupportedMessageType, which QuickFIX answers with
// a BusinessMessageReject (a Reject before FIX.4.2).
#include <quickfix/Application.h>
#include <quickfix/FileStore.h>
#include <quickfix/Session.h>
#include <quickfix/SessionSettings.h>
#include <quickfix/SocketAcceptor.h>

#include <csignal>
#include <iostream>
#include <iterator>
#include <mutex>
#include <set>
#include <string>
#include <unistd.h>
#include <utility>

namespace
{
volatile std::sig_atomic_t g_stop = 0;

void onSignal(int) { g_stop = 1; }

class Echo : public FIX::Application
{
 public:
  void onCreate(const FIX::SessionID&) override {}
  // Each Logon starts the session over (the scenarios reset on Logon): ClOrdIDs seen before are forgotten.
  void onLogon(const FIX::SessionID& session) override
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto i = m_orders.begin(); i != m_orders.end();)
      i = i->second == session.toString() ? m_orders.erase(i) : std::next(i);
  }
  void onLogout(const FIX::SessionID&) override {}
  void toAdmin(FIX::Message&, const FIX::SessionID&) override {}
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message&, const FIX::SessionID&)
      throw(FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue, FIX::RejectLogon) override {}

  void fromApp(const FIX::Message& message, const FIX::SessionID& session)
      throw(FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue, FIX::UnsupportedMessageType) override
  {
    FIX::MsgType type;
    message.getHeader().getField(type);
    const std::string& t = type.getValue();
    if (t == "D")
    {
      FIX::PossResend possResend(false);
      message.getHeader().getFieldIfSet(possResend);
      FIX::ClOrdID id;
      message.getField(id);
      std::pair<std::string, std::string> key(id.getValue(), session.toString());
      std::lock_guard<std::mutex> lock(m_mutex);
      bool seen = !m_orders.insert(key).second;
      if (possResend && seen) return;
    }
    else if (t != "d" && t != "C")
    {
      throw FIX::UnsupportedMessageType();
    }
    FIX::Message echo = message;
    FIX::Session::sendToTarget(echo, session);
  }

 private:
  std::mutex m_mutex;
  std::set<std::pair<std::string, std::string>> m_orders;
};
}

int main(int argc, char** argv)
{
  if (argc != 2)
  {
    std::cerr << "usage: qfat <settings file>\n";
    return 2;
  }
  try
  {
    FIX::SessionSettings settings(argv[1]);
    Echo application;
    FIX::FileStoreFactory store(settings);
    FIX::SocketAcceptor acceptor(application, store, settings);
    std::signal(SIGTERM, onSignal);
    std::signal(SIGINT, onSignal);
    acceptor.start();
    std::cout << "listening on port " << settings.get().getInt("SocketAcceptPort") << std::endl;
    while (!g_stop) usleep(100000);
    acceptor.stop(true);
    return 0;
  }
  catch (std::exception& e)
  {
    std::cerr << "qfat: " << e.what() << "\n";
    return 1;
  }
}
