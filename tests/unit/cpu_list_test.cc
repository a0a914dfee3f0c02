// --cpu-list: likwid-pin's and taskset's "0,2-3" parsed, written back canonical, checked
// against the CPUs this process may use, and pinning that reaches threads started before it.
#include "process/cpu_list.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace rprof {
namespace {

CpuList Parsed(const std::string& text) {
  CpuList list;
  Error why;
  EXPECT_TRUE(CpuList::Parse(text, &list, &why)) << text << ": " << why.message;
  return list;
}

std::string Refused(const std::string& text) {
  CpuList list;
  Error why;
  EXPECT_FALSE(CpuList::Parse(text, &list, &why)) << text << " gave " << list.Text();
  return why.message;
}

TEST(CpuList, ListsAndRangesAsLikwidWritesThem) {
  EXPECT_EQ(Parsed("0,2-3").cpus(), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(Parsed("5").cpus(), (std::vector<int>{5}));
  EXPECT_EQ(Parsed("7,1,3-4,1").cpus(), (std::vector<int>{1, 3, 4, 7}));  // sorted, once each
  EXPECT_EQ(Parsed("2-2").cpus(), (std::vector<int>{2}));
}

TEST(CpuList, TextIsCanonical) {
  EXPECT_EQ(Parsed("0,2-3").Text(), "0,2-3");
  EXPECT_EQ(Parsed("3,2,0").Text(), "0,2-3");
  EXPECT_EQ(Parsed("0,1").Text(), "0-1");
  EXPECT_EQ(Parsed("0-3,4-7,9").Text(), "0-7,9");
  EXPECT_EQ(CpuList().Text(), "");
}

TEST(CpuList, MalformedListsAreRefusedWithTheReason) {
  EXPECT_EQ(Refused(""), "no CPU named; write CPUs as 0,2-3");
  EXPECT_EQ(Refused("0,,1"), "an empty item in '0,,1'; write CPUs as 0,2-3");
  EXPECT_EQ(Refused("0,"), "an empty item in '0,'; write CPUs as 0,2-3");
  EXPECT_EQ(Refused("3-1"), "the range 3-1 ends before it starts; write 1-3");
  for (const char* bad : {"a", "-1", "1-", "0x1", " 1", "1.5", "1-2-3"})
    EXPECT_NE(Refused(bad).find("is not a CPU number"), std::string::npos) << bad;
  EXPECT_EQ(Refused("1024"), "CPU 1024 is past the 1024 CPUs rprof can pin");
  EXPECT_EQ(Refused("99999999999"), "CPU 99999999999 is past the 1024 CPUs rprof can pin");
}

TEST(CpuList, UsableOnlyWithinTheAllowedSet) {
  CpuList allowed = CpuList::Allowed();
  ASSERT_FALSE(allowed.empty());
  Error why;
  EXPECT_TRUE(allowed.Usable(&why)) << why.message;
  // A CPU past every allowed one.
  CpuList outside = Parsed(std::to_string(allowed.cpus().back() + 1));
  EXPECT_FALSE(outside.Usable(&why));
  EXPECT_EQ(why.message, "this process may not use CPU " + outside.Text() + " (it may use " +
                             allowed.Text() +
                             ": its affinity mask, within its cpuset); choose among those");
}

std::vector<int> MaskOfThisThread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

TEST(CpuList, PinningReachesThreadsStartedBeforeAndAfter) {
  CpuList allowed = CpuList::Allowed();
  CpuList first = Parsed(std::to_string(allowed.cpus().front()));
  // A thread that already runs (as OpenBLAS's pool does before a kernel's setup).
  std::atomic<bool> pinned{false}, done{false};
  std::vector<int> before_mask;
  std::thread before([&] {
    while (!pinned) std::this_thread::yield();
    before_mask = MaskOfThisThread();
    done = true;
  });
  Error why;
  ASSERT_TRUE(first.PinThisProcess(&why)) << why.message;
  pinned = true;
  before.join();
  std::vector<int> after_mask;
  std::thread after([&] { after_mask = MaskOfThisThread(); });
  after.join();
  EXPECT_EQ(MaskOfThisThread(), first.cpus());
  EXPECT_EQ(before_mask, first.cpus());
  EXPECT_EQ(after_mask, first.cpus());
  ASSERT_TRUE(allowed.PinThisProcess(&why))
      << why.message;  // as it was, for the tests after this one
}

}  // namespace
}  // namespace rprof
