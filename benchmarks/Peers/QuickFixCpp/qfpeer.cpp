// QuickFIX C++ peer for the round-trip harness (benchmarks/FixEngine.Benchmarks/RoundTrip).
//
// Built against Debian's libquickfix-dev by build.sh (not by dotnet build). Two roles:
//
//   qfpeer acceptor  --port N --dict FIX44.xml
//       ThreadedSocketAcceptor (thread per session, blocking reads), memory store, no log; answers each
//       NewOrderSingle with an ExecutionReport (ExecType=New) echoing ClOrdID, like the harness's FixEngine responder.
//
//   qfpeer initiator --port N --dict FIX44.xml --rate R --warmup W --warmup-seconds S --measured M
//                    --seconds T --lag-limit-seconds L --reply-timeout-seconds X --out samples.bin
//       ThreadedSocketInitiator; the main thread is the sender. Warm-up: closed loop (one order in flight) until W
//       orders or S seconds, then 0.2 s open loop at R. Measured window: R > 0 paces min(M, R*T) orders open loop,
//       R = 0 is closed loop (at most M orders or T seconds). Each order's ClOrdID is its intended send time
//       (CLOCK_MONOTONIC ns); the ExecutionReport's arrival minus that time is the sample, so a stall is charged to
//       every order it delays (coordinated-omission corrected).
//
// Protocol with the harness (one line each way, stdout / stdin):
//   peer -> harness  PORT n                acceptor listening            | LOGON     initiator logged on
//                                          (PORT 0 after --port 0: the harness reads the bound port from /proc)
//   harness -> peer  BEGIN / END / JIT     acceptor: BEGUN / WINDOW n/a / JIT 0 (a native process has no GC or JIT)
//   peer -> harness  WARM                  initiator finished warm-up; waits for GO (the harness settles its heap)
//   harness -> peer  MORE                  (optional, repeatable) another 200 ms of closed-loop warm-up, then WARM
//   harness -> peer  GO
//   peer -> harness  DONE sent=.. received=.. errors=.. saturated=0|1 first=.. last=.. warmup=.. outstanding=..
//   harness -> peer  EXIT (or end of file) stop and exit
// Samples: --out gets one little-endian int64 (ns) per reply received in the measured window, in arrival order.
// Pacing uses the same wait as the harness's own sender (PreciseWait: nanosleep while more than 150 us ahead,
// then sched_yield, then a spin for the last 20 us), so the clients differ only in the FIX engine; --pacing spin
// spins on the clock for the whole interval instead (the harness's --pacing spin), which holds a core.

#include <quickfix/Application.h>
#include <quickfix/MessageStore.h>
#include <quickfix/Session.h>
#include <quickfix/SessionSettings.h>
#include <quickfix/SocketAcceptor.h>
#include <quickfix/ThreadedSocketAcceptor.h>
#include <quickfix/ThreadedSocketInitiator.h>
#include <quickfix/fix44/ExecutionReport.h>
#include <quickfix/fix44/NewOrderSingle.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>
#include <sched.h>

namespace {

int64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Same thresholds as the harness's PreciseWait; with spin pacing, a pure spin on the clock.
bool g_spinPacing = false;

void waitUntil(int64_t deadlineNs) {
  const int64_t spinMarginNs = 120000;
  int64_t now;
  while ((now = nowNs()) < deadlineNs) {
    if (g_spinPacing) continue;
    int64_t remaining = deadlineNs - now;
    if (remaining > spinMarginNs + 30000) {
      int64_t sleepNs = remaining - spinMarginNs;
      timespec req{time_t(sleepNs / 1000000000LL), long(sleepNs % 1000000000LL)};
      clock_nanosleep(CLOCK_MONOTONIC, 0, &req, nullptr);
    } else if (remaining > 20000) {
      sched_yield();
    }
  }
}

struct Options {
  std::string role;
  int port = 0;
  std::string dict;
  long rate = 0;
  long warmup = 10000;
  double warmupSeconds = 0.4;
  long measured = 40000;
  double seconds = 1.0;
  double lagLimitSeconds = 1.0;
  double replyTimeoutSeconds = 30.0;
  std::string out;
  bool spin = false;
  // Scale harness (acceptor only): sessions BROKER01 <- CLIENT00001..N instead of CLIENT01, HeartBtInt, and the
  // acceptor kind (threaded: ThreadedSocketAcceptor, reactor: SocketAcceptor).
  int sessions = 0;
  int heartbeat = 30;
  std::string acceptorMode = "threaded";
};

[[noreturn]] void usage(const std::string& message) {
  std::cerr << "qfpeer: " << message << "\n"
            << "usage: qfpeer acceptor --port N --dict FIX44.xml [--sessions N --heartbeat S --acceptor-mode threaded|reactor]\n"
            << "       qfpeer initiator --port N --dict FIX44.xml --rate R --warmup W --warmup-seconds S --measured M\n"
            << "              --seconds T --lag-limit-seconds L --reply-timeout-seconds X --out samples.bin [--pacing wait|spin]\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("missing role");
  o.role = argv[1];
  if (o.role != "acceptor" && o.role != "initiator") usage("unknown role '" + o.role + "'");
  for (int i = 2; i < argc; i++) {
    std::string a = argv[i];
    if (i + 1 >= argc) usage(a + " needs a value");
    std::string v = argv[++i];
    char* end = nullptr;
    errno = 0;
    auto number = [&](double min) {
      double d = std::strtod(v.c_str(), &end);
      if (errno != 0 || end == v.c_str() || *end != '\0' || d < min) usage(a + ": '" + v + "' is not a number >= " + std::to_string(min));
      return d;
    };
    if (a == "--port") o.port = int(number(0));
    else if (a == "--dict") o.dict = v;
    else if (a == "--rate") o.rate = long(number(0));
    else if (a == "--warmup") o.warmup = long(number(0));
    else if (a == "--warmup-seconds") o.warmupSeconds = number(0);
    else if (a == "--measured") o.measured = long(number(1));
    else if (a == "--seconds") o.seconds = number(0);
    else if (a == "--lag-limit-seconds") o.lagLimitSeconds = number(0);
    else if (a == "--reply-timeout-seconds") o.replyTimeoutSeconds = number(0);
    else if (a == "--out") o.out = v;
    else if (a == "--sessions") o.sessions = int(number(1));
    else if (a == "--heartbeat") o.heartbeat = int(number(1));
    else if (a == "--acceptor-mode") {
      if (v != "threaded" && v != "reactor") usage("--acceptor-mode: '" + v + "' is not threaded or reactor");
      o.acceptorMode = v;
    }
    else if (a == "--pacing") {
      if (v != "spin" && v != "wait") usage("--pacing: '" + v + "' is not spin or wait");
      o.spin = v == "spin";
    }
    else usage("unknown argument '" + a + "'");
  }
  // An acceptor may take port 0 (the system picks one as it binds; it prints PORT 0 and the harness reads the port from
  // /proc); an initiator needs the acceptor's port.
  if (o.port < 0 || o.port > 65535 || (o.port == 0 && o.role == "initiator"))
    usage("--port is required (acceptor 0..65535, 0: any free port; initiator 1..65535)");
  if (o.dict.empty()) usage("--dict is required (path to FIX44.xml)");
  if (o.role == "initiator" && o.out.empty()) usage("--out is required for the initiator");
  return o;
}

std::string settingsText(const Options& o) {
  std::ostringstream s;
  s << "[DEFAULT]\n"
    << "ConnectionType=" << o.role << "\n"
    << "HeartBtInt=" << o.heartbeat << "\nStartTime=00:00:00\nEndTime=00:00:00\nResetOnLogon=Y\nSocketNodelay=Y\nReconnectInterval=1\n"
    // The scale harness's sessions run without a dictionary, as its FixEngine acceptor does (QuickFIX C++ 1.15 loads
    // the dictionary once per session: about 2.5 MB each).
    << (o.sessions > 0 ? std::string("UseDataDictionary=N\n") : "UseDataDictionary=Y\nDataDictionary=" + o.dict + "\n");
  if (o.role == "acceptor") s << "SocketAcceptPort=" << o.port << "\n";
  else s << "SocketConnectHost=127.0.0.1\nSocketConnectPort=" << o.port << "\n";
  if (o.role == "acceptor" && o.sessions > 0) {
    char id[24];
    for (int i = 1; i <= o.sessions; i++) {
      std::snprintf(id, sizeof id, "CLIENT%05d", i);
      s << "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=BROKER01\nTargetCompID=" << id << "\n";
    }
    return s.str();
  }
  s << "[SESSION]\nBeginString=FIX.4.4\n";
  if (o.role == "acceptor") s << "SenderCompID=BROKER01\nTargetCompID=CLIENT01\n";
  else s << "SenderCompID=CLIENT01\nTargetCompID=BROKER01\n";
  return s.str();
}

void say(const std::string& line) {
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------------------------
// Acceptor: answers NewOrderSingle with ExecutionReport on the session's own thread.
class Responder : public FIX::Application {
 public:
  std::atomic<long> orders{0};
  std::atomic<long> errors{0};

  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID&) override {}
  void onLogout(const FIX::SessionID&) override {}
  void toAdmin(FIX::Message&, const FIX::SessionID&) override {}
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message&, const FIX::SessionID&)
      throw(FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue, FIX::RejectLogon) override {}

  void fromApp(const FIX::Message& message, const FIX::SessionID& session)
      throw(FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue, FIX::UnsupportedMessageType) override {
    FIX::MsgType msgType;
    message.getHeader().getField(msgType);
    if (msgType != FIX::MsgType_NewOrderSingle) {
      errors++;
      throw FIX::UnsupportedMessageType();
    }
    FIX::ClOrdID clOrdId;
    FIX::Symbol symbol;
    FIX::Side side;
    FIX::OrderQty quantity;
    FIX::Price price;
    message.getField(clOrdId);
    message.getField(symbol);
    message.getField(side);
    message.getField(quantity);
    message.getField(price);
    FIX44::ExecutionReport report(
        FIX::OrderID(clOrdId.getValue()), FIX::ExecID(clOrdId.getValue()), FIX::ExecType(FIX::ExecType_NEW),
        FIX::OrdStatus(FIX::OrdStatus_NEW), side, FIX::LeavesQty(quantity.getValue()), FIX::CumQty(0), FIX::AvgPx(0));
    report.set(clOrdId);
    FIX::Account account;
    if (message.getFieldIfSet(account)) report.set(account);
    report.set(symbol);
    report.set(quantity);
    report.set(FIX::OrdType(FIX::OrdType_LIMIT));
    report.set(price);
    report.set(FIX::TransactTime(FIX::UtcTimeStamp(), 6));
    orders++;
    FIX::Session::sendToTarget(report, session);
  }
};

int runAcceptor(const Options& o) {
  std::istringstream text(settingsText(o));
  FIX::SessionSettings settings(text);
  FIX::MemoryStoreFactory store;
  Responder app;
  std::unique_ptr<FIX::Acceptor> acceptor;
  if (o.acceptorMode == "reactor") acceptor.reset(new FIX::SocketAcceptor(app, store, settings));
  else acceptor.reset(new FIX::ThreadedSocketAcceptor(app, store, settings));
  acceptor->start();
  say("PORT " + std::to_string(o.port));
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "BEGIN") say("BEGUN");
    else if (line == "END") say("WINDOW n/a");
    else if (line == "JIT") say("JIT 0");
    else if (line == "EXIT") break;
    else std::cerr << "qfpeer acceptor: unknown command '" << line << "'\n";
  }
  acceptor->stop();
  std::cerr << "qfpeer acceptor: " << app.orders.load() << " orders answered, " << app.errors.load() << " errors\n";
  return app.errors.load() == 0 ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------------------------
// Initiator: the main thread sends; the session thread records replies.
class Client : public FIX::Application {
 public:
  explicit Client(size_t capacity) : samples(capacity) {}

  std::vector<int64_t> samples;      // written by the session thread only while recording
  std::atomic<long> recorded{0};     // samples[0..recorded) valid
  std::atomic<long> received{0};     // every reply, warm-up included
  std::atomic<long> errors{0};
  std::atomic<int64_t> lastReplyNs{0};
  std::atomic<bool> recording{false};
  std::atomic<bool> loggedOn{false};
  FIX::SessionID session;

  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID& id) override {
    session = id;
    loggedOn.store(true);
  }
  void onLogout(const FIX::SessionID&) override { loggedOn.store(false); }
  void toAdmin(FIX::Message&, const FIX::SessionID&) override {}
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message&, const FIX::SessionID&)
      throw(FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue, FIX::RejectLogon) override {}

  void fromApp(const FIX::Message& message, const FIX::SessionID&)
      throw(FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue, FIX::UnsupportedMessageType) override {
    int64_t now = nowNs();
    FIX::MsgType msgType;
    message.getHeader().getField(msgType);
    FIX::ClOrdID clOrdId;
    if (msgType != FIX::MsgType_ExecutionReport || !message.getFieldIfSet(clOrdId)) {
      errors++;
      return;
    }
    const std::string& text = clOrdId.getValue();
    char* end = nullptr;
    long long intended = std::strtoll(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0') {
      errors++;
      return;
    }
    if (recording.load(std::memory_order_relaxed)) {
      long i = recorded.load(std::memory_order_relaxed);
      if (size_t(i) < samples.size()) {
        samples[size_t(i)] = now - intended;
        recorded.store(i + 1, std::memory_order_release);
      }
    }
    lastReplyNs.store(now, std::memory_order_relaxed);
    received.fetch_add(1, std::memory_order_release);
  }
};

void sendOrder(Client& app, int64_t intendedNs) {
  FIX44::NewOrderSingle order(FIX::ClOrdID(std::to_string(intendedNs)), FIX::Side(FIX::Side_BUY),
                              FIX::TransactTime(FIX::UtcTimeStamp(), 6), FIX::OrdType(FIX::OrdType_LIMIT));
  order.set(FIX::Account("ACCT0001"));
  order.set(FIX::HandlInst('1'));
  order.set(FIX::Symbol("MSFT"));
  order.set(FIX::OrderQty(100));
  order.set(FIX::Price(123.45));
  order.set(FIX::TimeInForce(FIX::TimeInForce_DAY));
  FIX::Session::sendToTarget(order, app.session);
}

// Waits until `target` replies arrived in all; false after the timeout.
bool waitForReplies(Client& app, long target, double timeoutSeconds) {
  int64_t deadline = nowNs() + int64_t(timeoutSeconds * 1e9);
  int spins = 0;
  while (app.received.load(std::memory_order_acquire) < target) {
    if (++spins < 50) continue;
    sched_yield();
    if ((spins & 1023) == 0 && nowNs() > deadline) return false;
  }
  return true;
}

// Closed loop: one order in flight. Returns false when a reply did not come.
bool closedLoop(Client& app, long count, int64_t deadlineNs, long& sent, double timeoutSeconds) {
  for (long i = 0; i < count; i++) {
    int64_t now = nowNs();
    if (now >= deadlineNs) break;
    sendOrder(app, now);
    sent++;
    if (!waitForReplies(app, sent, timeoutSeconds)) return false;
  }
  return true;
}

// Open loop; returns false when the sender fell lagLimitNs behind and stopped.
bool openLoop(Client& app, long count, int64_t startNs, double rate, int64_t lagLimitNs, long& sent) {
  double intervalNs = 1e9 / rate;
  for (long i = 0; i < count; i++) {
    int64_t intended = startNs + int64_t(double(i) * intervalNs);
    waitUntil(intended);
    if (lagLimitNs > 0 && nowNs() - intended > lagLimitNs) return false;
    sendOrder(app, intended);
    sent++;
  }
  return true;
}

bool readCommand(const char* expected) {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == expected) return true;
    if (line == "EXIT") return false;
    std::cerr << "qfpeer initiator: unexpected command '" << line << "'\n";
  }
  return false;
}

// 1 for GO, 2 for MORE, 0 for EXIT or end of file.
int readGoOrMore() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "GO") return 1;
    if (line == "MORE") return 2;
    if (line == "EXIT") return 0;
    std::cerr << "qfpeer initiator: unexpected command '" << line << "'\n";
  }
  return 0;
}

int runInitiator(const Options& o) {
  long measured = o.rate > 0 && o.seconds > 0 ? std::max(1L, std::min(o.measured, long(double(o.rate) * o.seconds))) : o.measured;
  std::istringstream text(settingsText(o));
  FIX::SessionSettings settings(text);
  FIX::MemoryStoreFactory store;
  Client app(size_t(measured) + 16);
  FIX::ThreadedSocketInitiator initiator(app, store, settings);
  initiator.start();
  int64_t logonDeadline = nowNs() + 15000000000LL;
  while (!app.loggedOn.load()) {
    if (nowNs() > logonDeadline) {
      std::cerr << "qfpeer initiator: no logon within 15 s\n";
      initiator.stop(true);
      return 3;
    }
    sched_yield();
  }
  say("LOGON");

  long sent = 0;
  int64_t lagLimitNs = int64_t(o.lagLimitSeconds * 1e9);
  int64_t warmStart = nowNs();
  int64_t warmDeadline = o.warmupSeconds > 0 ? warmStart + int64_t(o.warmupSeconds * 1e9) : INT64_MAX;
  bool ok = closedLoop(app, o.warmup, warmDeadline, sent, o.replyTimeoutSeconds);
  if (ok && o.rate > 0) {
    openLoop(app, std::max(1L, long(double(o.rate) * 0.2)), nowNs() + 100000, double(o.rate), lagLimitNs, sent);
    ok = waitForReplies(app, sent, o.replyTimeoutSeconds);
  }
  // The harness may ask for more warm-up (MORE: another 200 ms closed loop) while its own JIT is still compiling.
  say("WARM");
  while (true) {
    int command = readGoOrMore();
    if (command == 0) {
      initiator.stop(true);
      return 4;
    }
    if (command == 1) break;
    if (ok) ok = closedLoop(app, LONG_MAX, nowNs() + 200000000LL, sent, o.replyTimeoutSeconds);
    say("WARM");
  }
  long warmupSent = sent;

  long receivedBefore = app.received.load();
  app.recording.store(true);
  int64_t first = nowNs();
  bool saturated = false;
  bool completed = ok;
  if (ok && o.rate <= 0) {
    int64_t deadline = o.seconds > 0 ? first + int64_t(o.seconds * 1e9) : INT64_MAX;
    completed = closedLoop(app, measured, deadline, sent, o.replyTimeoutSeconds);
  } else if (ok) {
    first = nowNs() + 100000;
    saturated = !openLoop(app, measured, first, double(o.rate), lagLimitNs, sent);
    completed = waitForReplies(app, sent, o.replyTimeoutSeconds);
  }
  app.recording.store(false);
  long received = app.received.load() - receivedBefore;
  long recorded = app.recorded.load(std::memory_order_acquire);

  FILE* f = std::fopen(o.out.c_str(), "wb");
  if (f == nullptr || std::fwrite(app.samples.data(), sizeof(int64_t), size_t(recorded), f) != size_t(recorded)) {
    std::cerr << "qfpeer initiator: cannot write " << o.out << ": " << std::strerror(errno) << "\n";
    if (f) std::fclose(f);
    initiator.stop(true);
    return 5;
  }
  std::fclose(f);
  std::ostringstream done;
  done << "DONE sent=" << (sent - warmupSent) << " received=" << received << " errors=" << app.errors.load()
       << " saturated=" << (saturated ? 1 : 0) << " completed=" << (completed ? 1 : 0) << " first=" << first
       << " last=" << app.lastReplyNs.load() << " warmup=" << warmupSent
       << " outstanding=" << (sent - app.received.load());
  say(done.str());
  readCommand("EXIT");
  initiator.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  g_spinPacing = o.spin;
  try {
    return o.role == "acceptor" ? runAcceptor(o) : runInitiator(o);
  } catch (const FIX::ConfigError& e) {
    std::cerr << "qfpeer " << o.role << ": configuration error: " << e.what() << "\n";
    return 3;
  } catch (const FIX::RuntimeError& e) {
    std::cerr << "qfpeer " << o.role << ": " << e.what() << "\n";
    return 3;
  }
}
