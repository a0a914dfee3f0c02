// --events names: perf's names stand for what rprof counts, from one table, and a name no event
// table knows is a usage error with the closest known name, before any counter is opened.
#include "counters/event_names.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "counters/papi/papi_presets.h"
#include "counters/pmu/pfm_events.h"

namespace rprof {
namespace {

TEST(PerfEventNames, TheCommonOnesMapToWhatRprofCounts) {
  EXPECT_EQ(EventForName("cycles"), "PAPI_TOT_CYC");
  EXPECT_EQ(EventForName("instructions"), "PAPI_TOT_INS");
  EXPECT_EQ(EventForName("cache-misses"), "perf::CACHE-MISSES");
  EXPECT_EQ(EventForName("cache-references"), "perf::CACHE-REFERENCES");
  EXPECT_EQ(EventForName("branches"), "perf::BRANCHES");
  EXPECT_EQ(EventForName("branch-misses"), "perf::BRANCH-MISSES");
  EXPECT_EQ(EventForName("task-clock"), "perf::TASK-CLOCK");
  EXPECT_EQ(EventForName("page-faults"), "perf::PAGE-FAULTS");
  EXPECT_EQ(EventForName("context-switches"), "perf::CONTEXT-SWITCHES");
  EXPECT_EQ(EventForName("cpu-migrations"), "perf::CPU-MIGRATIONS");
  EXPECT_EQ(EventForName("Task-Clock"), "perf::TASK-CLOCK") << "perf ignores case";
  EXPECT_EQ(EventForName("PAPI_TOT_INS"), "PAPI_TOT_INS") << "other names pass unchanged";
}

TEST(PerfEventNames, EachNameOnceAndEveryEventOneRprofKnows) {
  std::set<std::string> seen;
  for (const PerfEventName& n : PerfEventNames()) {
    EXPECT_TRUE(seen.insert(n.perf).second) << n.perf << " twice";
    Error err;
    EXPECT_TRUE(CheckEventName(n.event, &err))
        << n.perf << " -> " << n.event << ": " << err.message;
  }
}

class CheckEventNameTest : public testing::Test {
 protected:
  void SetUp() override {
    std::vector<PapiPreset> presets;
    Error papi_why;
    Error why;
    if (!ListPapiPresets(&presets, &papi_why) || !InitPfm(&why))
      GTEST_SKIP() << "without PAPI and libpfm4 every name passes: " << papi_why.message
                   << why.message;
  }
  std::string Refused(const std::string& name) {
    Error err;
    EXPECT_FALSE(CheckEventName(name, &err)) << name;
    EXPECT_EQ(err.kind, ErrorKind::kUsage) << name;
    return err.message;
  }
};

TEST_F(CheckEventNameTest, KnownNamesPassWhetherOrNotThisMachineCountsThem) {
  for (const char* name :
       {"PAPI_TOT_INS", "PAPI_DP_OPS", "perf::TASK-CLOCK", "perf::CYCLES", "perf::PAGE-FAULTS",
        "skx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE", "rapl:::PACKAGE_ENERGY:PACKAGE0"}) {
    Error err;
    EXPECT_TRUE(CheckEventName(name, &err)) << name << ": " << err.message;
  }
}

TEST_F(CheckEventNameTest, TyposAreRefusedWithTheClosestName) {
  EXPECT_EQ(Refused("PAPI_TOT_INZ"),
            "PAPI_TOT_INZ: PAPI has no such preset; did you mean 'PAPI_TOT_INS'? (`rprof events` "
            "lists the events, --all every native one)");
  EXPECT_NE(Refused("perf::TASK-CLOCKS").find("did you mean 'TASK-CLOCK'?"), std::string::npos);
  EXPECT_NE(Refused("cache-mises").find("did you mean 'cache-misses'?"), std::string::npos);
  EXPECT_NE(Refused("nosuchpmu::CYCLES").find("no PMU 'nosuchpmu'"), std::string::npos);
}

}  // namespace
}  // namespace rprof
