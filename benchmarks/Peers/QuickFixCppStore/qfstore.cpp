// The store harness's QuickFIX C++ counterpart: FIX::FileStore (Debian's libquickfix-dev) with the same long history
// as `FixEngine.Benchmarks store`: write N messages of ~230 bytes, reopen (the constructor reads the whole header file
// into its std::map index), measure the heap the index holds, read back the last R messages.
// Usage: qfstore <dir> [count=10000000] [size=230] [reopens=5] [read=100000]
#include <quickfix/FileStore.h>
#include <quickfix/SessionID.h>
#include <malloc.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static double seconds(std::chrono::steady_clock::time_point since)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

static long heapInUse()
{
  struct mallinfo2 m = mallinfo2();
  return static_cast<long>(m.uordblks + m.hblkhd);
}

static std::string executionReport(int size)
{
  std::string s = "8=FIX.4.4\0019=000\00135=8\00134=1\00149=SELLSIDE\00152=20261206-06:00:00.000000\00156=BUYSIDE\001"
                  "37=ORD-0000001\00111=CL-0000001\00117=EXEC-0000001\001150=F\00139=1\00155=MSFT\00154=1\00138=1000\001"
                  "32=100\00131=415.25\001151=900\00114=100\0016=415.25\00160=20261206-06:00:00.000\001";
  int text = size - 7 - static_cast<int>(s.size()) - 4;
  if (text > 0) s += "58=" + std::string(text, 'x') + "\001";
  s += "10=000\001";
  return s;
}

int main(int argc, char** argv)
{
  if (argc < 2)
  {
    std::fprintf(stderr, "usage: qfstore <dir> [count] [size] [reopens] [read]\n");
    return 2;
  }
  std::string dir = argv[1];
  int count = argc > 2 ? std::atoi(argv[2]) : 10000000;
  int size = argc > 3 ? std::atoi(argv[3]) : 230;
  int reopens = argc > 4 ? std::atoi(argv[4]) : 5;
  int read = argc > 5 ? std::atoi(argv[5]) : 100000;
  FIX::SessionID id("FIX.4.4", "SELLSIDE", "BUYSIDE");
  std::string message = executionReport(size);

  auto start = std::chrono::steady_clock::now();
  {
    FIX::FileStore store(dir, id);
    store.reset();
    for (int seq = 1; seq <= count; ++seq)
    {
      store.set(seq, message);
      store.incrNextSenderMsgSeqNum();
      if (seq % 1000000 == 0) std::fprintf(stderr, "qfstore: wrote %d in %.1f s\n", seq, seconds(start));
    }
    double s = seconds(start);
    std::printf("write: %d messages of %zu bytes in %.2f s = %.0f/s\n", count, message.size(), s, count / s);
  }

  std::vector<double> times;
  for (int r = 0; r < reopens; ++r)
  {
    malloc_trim(0);
    long before = heapInUse();
    start = std::chrono::steady_clock::now();
    FIX::FileStore* store = new FIX::FileStore(dir, id);
    double s = seconds(start);
    long held = heapInUse() - before;
    times.push_back(s);
    std::printf("reopen %d: %.3f s, heap held %ld bytes = %.2f bytes/message, next sender %d\n", r + 1, s, held,
                static_cast<double>(held) / count, store->getNextSenderMsgSeqNum());
    if (r == reopens - 1)
    {
      std::vector<std::string> messages;
      start = std::chrono::steady_clock::now();
      store->get(count - read + 1, count, messages);
      s = seconds(start);
      long bytes = 0;
      for (const std::string& m : messages) bytes += static_cast<long>(m.size());
      std::printf("read last %d: %zu messages, %ld bytes in %.3f s = %.0f MB/s\n", read, messages.size(), bytes, s, bytes / s / 1e6);
    }
    delete store;
  }
  std::sort(times.begin(), times.end());
  std::printf("reopen median: %.3f s (min %.3f, max %.3f) over %d\n", times[times.size() / 2], times.front(), times.back(), reopens);
  return 0;
}
