// The pmu session on perf_event_open itself, the one rprof counts with where PAPI's CPU
// component is off (a CPU newer than the distribution's libpfm4): tested directly, so that it is
// tested on every machine, not only where PAPI cannot count.
#include "counters/perf/perf_event_session.h"

#include <gtest/gtest.h>
#include <time.h>

#include <string>
#include <vector>

#include "counters/pmu_diagnosis.h"
#include "rprof_config.h"

namespace rprof {
namespace {

// Burns `ms` of this thread's CPU time (TASK-CLOCK counts CPU time, not wall time).
void SpinFor(double ms) {
  auto thread_cpu_ms = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
  };
  double end = thread_cpu_ms() + ms;
  volatile unsigned sink = 0;
  while (thread_cpu_ms() < end) sink = sink + 1;
}

class PerfEventSessionTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!RPROF_HAVE_PAPI) GTEST_SKIP() << "built with PAPI and libpfm4 only";
  }
};

TEST_F(PerfEventSessionTest, TaskClockCountsOnlyTheRepetitions) {
  Error err;
  auto session = CreatePerfEventSession({"perf::TASK-CLOCK", "perf::PAGE-FAULTS"}, false, &err);
  ASSERT_NE(session, nullptr) << err.message;
  EXPECT_EQ(session->source(), Source::kPmu);
  // Before any repetition every opened event reads 0: how callers see what opened.
  std::vector<Metric> before = session->Results(1);
  ASSERT_EQ(before.size(), 2u);
  ASSERT_TRUE(before[0].value.has_value());
  EXPECT_EQ(*before[0].value, 0);
  Error why;
  for (int rep = 0; rep < 3; ++rep) {
    ASSERT_TRUE(session->Start(&why)) << why.message;
    SpinFor(10);
    ASSERT_TRUE(session->Stop(&why)) << why.message;
    SpinFor(30);  // outside the repetitions: not counted
  }
  std::vector<Metric> results = session->Results(1);
  const Metric& clock = results[0];
  EXPECT_EQ(clock.unit, "ns");
  ASSERT_TRUE(clock.value.has_value()) << clock.note;
  EXPECT_GT(*clock.value, 3 * 9e6) << "three repetitions of 10 ms of CPU time";
  EXPECT_LT(*clock.value, 60e6) << "the 90 ms between the repetitions were counted";
  EXPECT_TRUE(clock.spread_pct.has_value()) << "three repetitions have a spread";
  ASSERT_TRUE(results[1].value.has_value());
  EXPECT_GE(*results[1].value, 0);
  // Per call: the same totals over two calls are half as much each.
  EXPECT_DOUBLE_EQ(*session->Results(2)[0].value, *clock.value / 2);
}

TEST_F(PerfEventSessionTest, UnknownEventIsCalledNoSuchEvent) {
  Error err;
  EXPECT_EQ(CreatePerfEventSession({"NO_SUCH_EVENT_XYZ"}, false, &err), nullptr);
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_NE(err.message.find("NO_SUCH_EVENT_XYZ"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("no such event"), std::string::npos) << err.message;
}

TEST_F(PerfEventSessionTest, HardwareEventCountedOrAbsentWithTheCause) {
  Error err;
  auto session = CreatePerfEventSession({"perf::INSTRUCTIONS"}, true, &err);
  ASSERT_NE(session, nullptr) << err.message;
  Error why;
  ASSERT_TRUE(session->Start(&why)) << why.message;
  SpinFor(5);
  ASSERT_TRUE(session->Stop(&why)) << why.message;
  const Metric instructions = session->Results(1)[0];
  if (DiagnosePmu().hardware_counters) {
    ASSERT_TRUE(instructions.value.has_value()) << instructions.note;
    EXPECT_GT(*instructions.value, 1e5) << "5 ms of a loop retires more instructions";
  } else {
    EXPECT_FALSE(instructions.value.has_value());
    EXPECT_EQ(instructions.note, WhyNoHardwareEvent(DiagnosePmu()));
  }
}

TEST_F(PerfEventSessionTest, TooManyEventsIsAUsageError) {
  std::vector<std::string> events(33, "perf::TASK-CLOCK");
  Error err;
  EXPECT_EQ(CreatePerfEventSession(events, true, &err), nullptr);
  EXPECT_EQ(err.kind, ErrorKind::kUsage);
}

}  // namespace
}  // namespace rprof
