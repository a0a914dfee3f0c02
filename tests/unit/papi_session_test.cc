// The pmu source on real PAPI: a software event really counts, a hardware event is counted where
// the machine has a PMU and is refused (or kept as absent, when allowed) with the diagnosed
// reason where it has none, and an unknown event name is called what it is.
#include "counters/papi/papi_session.h"

#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <string>
#include <vector>

#include "counters/pmu_diagnosis.h"
#include "rprof_config.h"

namespace rprof {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Burns this much CPU time in this thread. Counted by the thread's own CPU clock, not the wall
// clock: on a loaded machine 20 ms of wall time may hold only a few ms of CPU time, and
// TASK-CLOCK counts CPU time.
void SpinFor(std::chrono::milliseconds cpu_time) {
  auto thread_cpu_ms = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
  };
  double end = thread_cpu_ms() + static_cast<double>(cpu_time.count());
  volatile unsigned sink = 0;
  while (thread_cpu_ms() < end) sink = sink + 1;
}

const Metric* Find(const std::vector<Metric>& metrics, const std::string& name) {
  return FindMetric(metrics, name, Source::kPmu);
}

class PapiSessionTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!RPROF_HAVE_PAPI) GTEST_SKIP() << "rprof was built without PAPI (the stub is tested below)";
  }
};

TEST_F(PapiSessionTest, TaskClockCountsTheTimedRegion) {
  Error err;
  auto session = CreatePmuSession({"perf::TASK-CLOCK"}, false, &err);
  ASSERT_NE(session, nullptr) << err.message;
  EXPECT_EQ(session->source(), Source::kPmu);
  Error why;
  ASSERT_TRUE(session->Start(&why)) << why.message;
  SpinFor(std::chrono::milliseconds(20));
  ASSERT_TRUE(session->Stop(&why)) << why.message;

  std::vector<Metric> results = session->Results(1);
  ASSERT_EQ(results.size(), 1u);
  const Metric& clock = results[0];
  EXPECT_EQ(clock.name, "perf::TASK-CLOCK");
  EXPECT_EQ(clock.source, Source::kPmu);
  EXPECT_EQ(clock.unit, "ns");
  ASSERT_TRUE(clock.value.has_value()) << clock.note;
  EXPECT_GT(*clock.value, 1e6) << "20 ms of CPU time is more than 1 ms of task time";
  EXPECT_GT(*clock.value, 18e6) << "TASK-CLOCK counts the thread's CPU time";
  EXPECT_LT(*clock.value, 5e9) << "far more task time than the region could hold";

  // Results are per call: the same totals over two calls are half as much each.
  std::vector<Metric> halves = session->Results(2);
  ASSERT_TRUE(halves[0].value.has_value());
  EXPECT_DOUBLE_EQ(*halves[0].value, *clock.value / 2);
}

TEST_F(PapiSessionTest, TotalsAddUpOverRepetitions) {
  Error err;
  auto session = CreatePmuSession({"perf::TASK-CLOCK", "perf::CONTEXT-SWITCHES"}, false, &err);
  ASSERT_NE(session, nullptr) << err.message;
  Error why;
  for (int rep = 0; rep < 3; ++rep) {
    ASSERT_TRUE(session->Start(&why)) << why.message;
    SpinFor(std::chrono::milliseconds(10));
    ASSERT_TRUE(session->Stop(&why)) << why.message;
    SpinFor(std::chrono::milliseconds(30));  // outside the timed region: must not count
  }
  std::vector<Metric> results = session->Results(1);
  const Metric* clock = Find(results, "perf::TASK-CLOCK");
  ASSERT_NE(clock, nullptr);
  ASSERT_TRUE(clock->value.has_value());
  EXPECT_GT(*clock->value, 3 * 9e6) << "three regions of 10 ms CPU time";
  EXPECT_LT(*clock->value, 60e6) << "the 90 ms outside the regions were counted";
  const Metric* switches = Find(results, "perf::CONTEXT-SWITCHES");
  ASSERT_NE(switches, nullptr);
  ASSERT_TRUE(switches->value.has_value());
  EXPECT_GE(*switches->value, 0);
  EXPECT_EQ(switches->unit, "count");
}

TEST_F(PapiSessionTest, SoftwareEventsShareOnePassCountedThroughout) {
  Error err;
  auto session = CreatePmuSession(
      {"perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES"}, false, &err);
  ASSERT_NE(session, nullptr) << err.message;
  EXPECT_EQ(session->MinRepetitions(), 1) << "software events take no hardware counter";
  Error why;
  for (int rep = 0; rep < 2; ++rep) {
    ASSERT_TRUE(session->Start(&why)) << why.message;
    SpinFor(std::chrono::milliseconds(5));
    ASSERT_TRUE(session->Stop(&why)) << why.message;
  }
  std::vector<Metric> results = session->Results(1);
  ASSERT_EQ(results.size(), 3u);
  for (const Metric& m : results) {
    ASSERT_TRUE(m.value.has_value()) << m.name << ": " << m.note;
    EXPECT_FALSE(m.coverage.has_value()) << m.name << " was counted throughout";
    EXPECT_EQ(m.note, "") << m.name;
  }
}

// More of perf's generic hardware events than any PMU has general counters; those a CPU lacks
// are allowed to be missing.
const std::vector<std::string>& ManyHardwareEvents() {
  static const std::vector<std::string> events = {"perf::CYCLES",
                                                  "perf::INSTRUCTIONS",
                                                  "perf::BRANCH-INSTRUCTIONS",
                                                  "perf::BRANCH-MISSES",
                                                  "perf::CACHE-REFERENCES",
                                                  "perf::CACHE-MISSES",
                                                  "perf::L1-DCACHE-LOADS",
                                                  "perf::L1-DCACHE-LOAD-MISSES",
                                                  "perf::DTLB-LOAD-MISSES",
                                                  "perf::ITLB-LOAD-MISSES",
                                                  "perf::L1-ICACHE-LOAD-MISSES",
                                                  "perf::BRANCH-LOADS",
                                                  "perf::BRANCH-LOAD-MISSES",
                                                  "perf::LLC-LOADS",
                                                  "perf::LLC-LOAD-MISSES",
                                                  "perf::LLC-STORES",
                                                  "perf::L1-DCACHE-STORES",
                                                  "perf::DTLB-LOADS",
                                                  "perf::ITLB-LOADS",
                                                  "perf::REF-CYCLES"};
  return events;
}

// More hardware events than the PMU has counters: they take turns, one pass per repetition, and
// each is scaled by the share of the time it was counted.
TEST_F(PapiSessionTest, MoreHardwareEventsThanCountersTakeTurns) {
  if (!DiagnosePmu().hardware_counters)
    GTEST_SKIP() << "no hardware counters here: " << DiagnosePmu().cause;
  Error err;
  auto session = CreatePmuSession(ManyHardwareEvents(), true, &err);
  ASSERT_NE(session, nullptr) << err.message;
  int passes = session->MinRepetitions();
  if (passes == 1) GTEST_SKIP() << "every event fits on this PMU's counters at once";
  Error why;
  for (int rep = 0; rep < 2 * passes; ++rep) {
    ASSERT_TRUE(session->Start(&why)) << why.message;
    SpinFor(std::chrono::milliseconds(5));
    ASSERT_TRUE(session->Stop(&why)) << why.message;
  }
  for (const Metric& m : session->Results(1)) {
    if (!m.value) continue;  // not on this CPU
    ASSERT_TRUE(m.coverage.has_value()) << m.name << ": " << m.note;
    EXPECT_GT(*m.coverage, 0) << m.name;
    EXPECT_LT(*m.coverage, 1) << m.name;
    EXPECT_TRUE(Contains(m.note, "multiplexed: counted")) << m.name << ": " << m.note;
  }
  const Metric* cycles = Find(session->Results(1), "perf::CYCLES");
  ASSERT_NE(cycles, nullptr);
  ASSERT_TRUE(cycles->value.has_value()) << cycles->note;
  EXPECT_GT(*cycles->value, 0);
}

// An explicit repetition count below the schedule's: the passes that never had their turn say
// how many repetitions they need.
TEST_F(PapiSessionTest, PassThatNeverRanSaysWhatItNeeds) {
  if (!DiagnosePmu().hardware_counters)
    GTEST_SKIP() << "no hardware counters here: " << DiagnosePmu().cause;
  Error err;
  auto session = CreatePmuSession(ManyHardwareEvents(), true, &err);
  ASSERT_NE(session, nullptr) << err.message;
  if (session->MinRepetitions() == 1)
    GTEST_SKIP() << "every event fits on this PMU's counters at once";
  Error why;
  ASSERT_TRUE(session->Start(&why)) << why.message;
  SpinFor(std::chrono::milliseconds(5));
  ASSERT_TRUE(session->Stop(&why)) << why.message;
  int never_ran = 0;
  for (const Metric& m : session->Results(1))
    if (!m.value && Contains(m.note, "but only 1 repetition ran")) ++never_ran;
  EXPECT_GT(never_ran, 0);
}

TEST_F(PapiSessionTest, HardwareInstructionsCountedOrRefusedWithTheCause) {
  const PmuDiagnosis& pmu = DiagnosePmu();
  Error err;
  if (pmu.hardware_counters) {
    auto session = CreatePmuSession({"PAPI_TOT_INS"}, false, &err);
    ASSERT_NE(session, nullptr) << err.message;
    Error why;
    ASSERT_TRUE(session->Start(&why)) << why.message;
    SpinFor(std::chrono::milliseconds(5));
    ASSERT_TRUE(session->Stop(&why)) << why.message;
    const Metric* ins = Find(session->Results(1), "PAPI_TOT_INS");
    ASSERT_NE(ins, nullptr);
    ASSERT_TRUE(ins->value.has_value()) << ins->note;
    EXPECT_GT(*ins->value, 0);
    return;
  }
  ASSERT_FALSE(pmu.cause.empty()) << "no hardware counters, yet no cause";
  auto session = CreatePmuSession({"PAPI_TOT_INS"}, false, &err);
  EXPECT_EQ(session, nullptr);
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, "PAPI_TOT_INS")) << err.message;
  EXPECT_TRUE(Contains(err.message, pmu.cause)) << err.message;
  // The way out is named, and the command line words it (--allow-missing-events).
  EXPECT_EQ(err.remedy, Remedy::kAllowMissingEvents) << err.message;
}

TEST_F(PapiSessionTest, AllowMissingKeepsTheEventAsAbsentWithItsReason) {
  if (DiagnosePmu().hardware_counters)
    GTEST_SKIP() << "this machine counts PAPI_TOT_INS, so nothing is missing";
  Error err;
  auto session = CreatePmuSession({"perf::TASK-CLOCK", "PAPI_TOT_INS"}, true, &err);
  ASSERT_NE(session, nullptr) << err.message;
  Error why;
  ASSERT_TRUE(session->Start(&why)) << why.message;
  SpinFor(std::chrono::milliseconds(5));
  ASSERT_TRUE(session->Stop(&why)) << why.message;
  std::vector<Metric> results = session->Results(1);
  ASSERT_EQ(results.size(), 2u);
  const Metric* ins = Find(results, "PAPI_TOT_INS");
  ASSERT_NE(ins, nullptr);
  EXPECT_FALSE(ins->value.has_value()) << "a missing event is absent, never 0";
  EXPECT_FALSE(ins->note.empty());
  EXPECT_TRUE(Contains(ins->note, DiagnosePmu().cause)) << ins->note;
  const Metric* clock = Find(results, "perf::TASK-CLOCK");
  ASSERT_NE(clock, nullptr);
  ASSERT_TRUE(clock->value.has_value());
  EXPECT_GT(*clock->value, 0);
}

TEST_F(PapiSessionTest, OnlyMissingEventsStillStartAndStop) {
  if (DiagnosePmu().hardware_counters)
    GTEST_SKIP() << "this machine counts PAPI_TOT_INS, so nothing is missing";
  Error err;
  auto session = CreatePmuSession({"PAPI_TOT_INS"}, true, &err);
  ASSERT_NE(session, nullptr) << err.message;
  Error why;
  EXPECT_TRUE(session->Start(&why)) << why.message;
  EXPECT_TRUE(session->Stop(&why)) << why.message;
  std::vector<Metric> results = session->Results(1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].value.has_value());
}

TEST_F(PapiSessionTest, UnknownEventIsCalledNoSuchEvent) {
  Error err;
  auto session = CreatePmuSession({"NO_SUCH_EVENT_XYZ"}, false, &err);
  EXPECT_EQ(session, nullptr);
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, "NO_SUCH_EVENT_XYZ")) << err.message;
  EXPECT_TRUE(Contains(err.message, "no such event")) << err.message;
}

TEST_F(PapiSessionTest, DefaultEventsStartWithSoftwareEvents) {
  const std::vector<std::string>& events = DefaultPmuEvents();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0], "perf::TASK-CLOCK");
  // The default set never fails a run: with missing ones allowed it always opens.
  Error err;
  auto session = CreatePmuSession(events, true, &err);
  ASSERT_NE(session, nullptr) << err.message;
  EXPECT_EQ(session->Results(1).size(), events.size());
}

TEST(PapiSessionStub, ExplainsTheMissingBuild) {
  if (RPROF_HAVE_PAPI) GTEST_SKIP() << "rprof was built with PAPI";
  Error err;
  EXPECT_EQ(CreatePmuSession({"perf::TASK-CLOCK"}, true, &err), nullptr);
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, "without PAPI")) << err.message;
}

}  // namespace
}  // namespace rprof
