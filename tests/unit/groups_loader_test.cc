// The group-file parser (errors name the file and line), the library (override folder, "did you
// mean"), the evaluator's alternatives and reasons, and the libpfm4 wrapper, on small files
// written by the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "counters/pmu/canonical_metrics.h"
#include "counters/pmu/group_eval.h"
#include "counters/pmu/group_library.h"
#include "counters/pmu/metric_group.h"
#include "counters/pmu/pfm_events.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

const char* kValid = R"(# a comment
FORMAT 1
SHORT  Double-precision FLOPs
PMU    icx

EVENTS
scalar  icx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE
p512    icx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE   optional

METRICS
flops_dp [FLOP] = scalar + 8*p512
    note: FMA counts twice
flops_dp [FLOP] = scalar
    approximation: scalar only
flops_dp_512 [FLOP] = 8 * p512
    uncore: not really, for the test

ABSENT
flops_sp   counted by FLOPS_SP

LONG
Free text: # not a comment here.

)";

bool Parse(const std::string& text, MetricGroup* group, Error* err) {
  return ParseMetricGroup(text, "TEST", "t/TEST.txt", group, err);
}

// The error for text with one line replaced (1-based), or with a line appended when line is 0.
std::string ErrorWith(int line, const std::string& replacement) {
  std::string text = kValid;
  if (line == 0) {
    text += replacement + "\n";
  } else {
    size_t start = 0;
    for (int i = 1; i < line; ++i) start = text.find('\n', start) + 1;
    size_t end = text.find('\n', start);
    text.replace(start, end - start, replacement);
  }
  MetricGroup group;
  Error err;
  EXPECT_FALSE(Parse(text, &group, &err)) << "accepted:\n" << text;
  return err.message;
}

TEST(MetricGroupParse, ValidFile) {
  MetricGroup group;
  Error err;
  ASSERT_TRUE(Parse(kValid, &group, &err)) << err.message;
  EXPECT_EQ(group.name, "TEST");
  EXPECT_EQ(group.pmu, "icx");
  EXPECT_EQ(group.description, "Double-precision FLOPs");
  ASSERT_EQ(group.events.size(), 2u);
  EXPECT_EQ(group.events[0].alias, "scalar");
  EXPECT_EQ(group.events[0].event, "icx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE");
  EXPECT_TRUE(group.events[0].required);
  EXPECT_FALSE(group.events[1].required);
  EXPECT_EQ(group.events[1].line, 8);
  ASSERT_EQ(group.metrics.size(), 3u);
  EXPECT_EQ(group.metrics[0].name, "flops_dp");
  EXPECT_EQ(group.metrics[0].unit, "FLOP");
  EXPECT_EQ(group.metrics[0].formula.text(), "scalar + 8*p512");
  ASSERT_EQ(group.metrics[0].notes.size(), 1u);
  EXPECT_EQ(group.metrics[0].notes[0].kind, MetricNote::Kind::kNote);
  EXPECT_EQ(group.metrics[0].notes[0].text, "FMA counts twice");
  EXPECT_TRUE(group.metrics[1].approximated());
  EXPECT_TRUE(group.metrics[2].uncore());
  ASSERT_EQ(group.absent.size(), 1u);
  EXPECT_EQ(group.absent[0].name, "flops_sp");
  EXPECT_EQ(group.absent[0].reason, "counted by FLOPS_SP");
  EXPECT_EQ(group.details, "Free text: # not a comment here.\n");
  EXPECT_EQ(group.MetricNames(),
            (std::vector<std::string>{"flops_dp", "flops_dp_512", "flops_sp"}));
}

TEST(MetricGroupParse, ErrorsNameFileAndLine) {
  EXPECT_EQ(ErrorWith(2, "FORMAT 2"),
            "t/TEST.txt:2: FORMAT 2 is not readable by this rprof (it reads FORMAT 1); update "
            "rprof or rewrite the file");
  EXPECT_EQ(ErrorWith(2, "# no format"), "t/TEST.txt:3: the file must start with 'FORMAT 1'");
  EXPECT_EQ(ErrorWith(4, "PMU    Icx!"),
            "t/TEST.txt:4: PMU needs a libpfm4 PMU model name such as 'icx' or 'generic', got "
            "'Icx!'");
  EXPECT_EQ(ErrorWith(8, "scalar  icx::FP_ARITH_INST_RETIRED:SCALAR_SINGLE"),
            "t/TEST.txt:8: event alias 'scalar' declared twice");
  EXPECT_EQ(ErrorWith(8, "p512    skx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE"),
            "t/TEST.txt:8: event 'skx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE' belongs to PMU "
            "'skx', not to this group's PMU 'icx' or one of its uncore PMUs ('icx_...')");
  EXPECT_EQ(ErrorWith(8, "p512    FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE"),
            "t/TEST.txt:8: event 'FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE' must be qualified with "
            "its PMU as libpfm4 names it, e.g. 'icx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE'");
  EXPECT_EQ(ErrorWith(8, "p512    icx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE  sometimes"),
            "t/TEST.txt:8: after the event name only 'optional' or 'required' may follow, got "
            "'sometimes'");
  EXPECT_EQ(ErrorWith(8, "time_s  icx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE"),
            "t/TEST.txt:8: 'time_s' is reserved for the run's wall time");
  EXPECT_EQ(ErrorWith(8, "p-512  icx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE"),
            "t/TEST.txt:8: event alias 'p-512' must be a letter or '_' followed by letters, digits "
            "or '_'");
  EXPECT_EQ(ErrorWith(11, "flops_dbl [FLOP] = scalar"),
            "t/TEST.txt:11: 'flops_dbl' is not a canonical metric name; did you mean 'flops_dp'?");
  EXPECT_EQ(ErrorWith(11, "flops_dp [B] = scalar"),
            "t/TEST.txt:11: metric flops_dp is in [FLOP], not [B]");
  EXPECT_EQ(ErrorWith(11, "flops_dp = scalar"),
            "t/TEST.txt:11: metric 'flops_dp' needs a unit in brackets before '=', e.g. "
            "'bytes_dram [B] = ...'");
  EXPECT_EQ(ErrorWith(11, "flops_dp [] = scalar"),
            "t/TEST.txt:11: metric flops_dp has an empty unit");
  EXPECT_EQ(ErrorWith(11, "flops_dp [FLOP] = scalr + 8*p512"),
            "t/TEST.txt:11: formula of flops_dp reads 'scalr', which is neither a declared event "
            "alias nor time_s; did you mean 'scalar'?");
  EXPECT_EQ(ErrorWith(11, "flops_dp [FLOP] = scalar + "),
            "t/TEST.txt:11: formula of flops_dp 'scalar +': formula ends where a number, a name or "
            "'(' was expected at column 9");
  EXPECT_EQ(ErrorWith(11, "flops_dp [FLOP] ="),
            "t/TEST.txt:11: metric flops_dp has no formula after '='");
  EXPECT_EQ(ErrorWith(12, "    warning: hm"),
            "t/TEST.txt:12: unknown note 'warning:'; notes are 'note:', 'approximation:' or "
            "'uncore:'");
  EXPECT_EQ(ErrorWith(19, "flops_dp   no"),
            "t/TEST.txt:19: metric flops_dp is declared absent but defined on line 11");
  EXPECT_EQ(ErrorWith(19, "flops_sp"), "t/TEST.txt:19: absent metric flops_sp needs its reason");
}

TEST(MetricGroupParse, WholeFileProblems) {
  MetricGroup group;
  Error err;
  EXPECT_FALSE(
      Parse("FORMAT 1\nPMU icx\nEVENTS\na icx::X\nMETRICS\ncycles [count] = a\n", &group, &err));
  EXPECT_EQ(err.message, "t/TEST.txt: no SHORT line (a one-line description)");
  EXPECT_FALSE(Parse("FORMAT 1\nSHORT s\nPMU icx\nEVENTS\na icx::X\n", &group, &err));
  EXPECT_EQ(err.message, "t/TEST.txt: no METRICS section with at least one metric");
  EXPECT_FALSE(
      Parse("FORMAT 1\nSHORT s\nPMU icx\nEVENTS\na icx::X\nb icx::Y\nMETRICS\n"
            "cycles [count] = a\n",
            &group, &err));
  EXPECT_EQ(err.message,
            "t/TEST.txt:6: event 'b' (icx::Y) is read by no metric; remove it or use it");
  EXPECT_FALSE(Parse("FORMAT 1\nSHORT s\nPMU generic\nEVENTS\na icx::X\n", &group, &err));
  EXPECT_EQ(err.message,
            "t/TEST.txt:5: the generic set uses PAPI presets (PAPI_TOT_INS, ...), got 'icx::X'");
  EXPECT_FALSE(ParseMetricGroup(kValid, "flops", "t/flops.txt", &group, &err));
  EXPECT_EQ(err.message,
            "t/flops.txt: group name 'flops' must be upper-case letters, digits and '_' (the "
            "file name without .txt)");
  // Uncore PMUs of the group's model are fine; time_s may be read; CRLF line ends are accepted.
  EXPECT_TRUE(
      Parse("FORMAT 1\r\nSHORT s\r\nPMU skx\r\nEVENTS\r\nrd skx_unc_imc0::UNC_M_CAS_COUNT:RD"
            "\r\nMETRICS\r\nbytes_dram [B] = 64 * rd * time_s / time_s\r\n",
            &group, &err))
      << err.message;
}

// ----------------------------------------------------------------------------------- evaluation

TEST(GroupEval, AlternativesFirstComputableWinsAndSaysWhy) {
  MetricGroup group;
  Error err;
  ASSERT_TRUE(Parse(kValid, &group, &err)) << err.message;
  // p512 (optional) missing: the first definition cannot be computed, the second can.
  auto results = EvaluateGroup(group, {{"scalar", {10, 1.0}}}, 1.0);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].name, "flops_dp");
  ASSERT_TRUE(results[0].value);
  EXPECT_DOUBLE_EQ(*results[0].value, 10);
  EXPECT_TRUE(results[0].approximated());
  EXPECT_EQ(results[0].formula, "scalar");
  ASSERT_EQ(results[0].fallbacks.size(), 1u);
  EXPECT_EQ(results[0].fallbacks[0],
            "scalar + 8*p512: no count for p512 (icx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE, "
            "optional)");
  EXPECT_EQ(results[1].name, "flops_dp_512");
  EXPECT_FALSE(results[1].value);
  EXPECT_EQ(results[1].reason,
            "no count for p512 (icx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE, optional)");
  EXPECT_EQ(results[2].name, "flops_sp");
  EXPECT_TRUE(results[2].absent_by_design);
  EXPECT_EQ(results[2].reason, "counted by FLOPS_SP");
  EXPECT_EQ(results[2].unit, "FLOP");

  // Nothing counted: every alternative's reason is given.
  results = EvaluateGroup(group, {}, 1.0);
  EXPECT_EQ(
      results[0].reason,
      "scalar + 8*p512: no count for scalar (icx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE), p512 "
      "(icx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE, optional); scalar: no count for scalar "
      "(icx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE)");
  EXPECT_TRUE(results[0].fallbacks.empty());
}

TEST(GroupEval, TimeAndDivisionByZero) {
  MetricGroup group;
  Error err;
  ASSERT_TRUE(
      Parse("FORMAT 1\nSHORT s\nPMU icx\nEVENTS\na icx::X\nb icx::Y optional\nMETRICS\n"
            "cycles [count] = a / time_s\ninstructions [count] = a / b\n",
            &group, &err))
      << err.message;
  auto results = EvaluateGroup(group, {{"a", {6, 0.5}}, {"b", {0, 1.0}}}, std::nullopt);
  EXPECT_FALSE(results[0].value);
  EXPECT_EQ(results[0].reason, "no count for time_s (the run's wall time)");
  EXPECT_FALSE(results[1].value);
  EXPECT_EQ(results[1].reason, "division by zero");
  results = EvaluateGroup(group, {{"a", {6, 0.5}}}, 2.0);
  ASSERT_TRUE(results[0].value);
  EXPECT_DOUBLE_EQ(*results[0].value, 3);
  EXPECT_DOUBLE_EQ(results[0].coverage, 0.5);
}

TEST(GroupEval, CanonicalTableIsConsistent) {
  for (const auto& metric : CanonicalMetrics()) {
    EXPECT_EQ(FindCanonicalMetric(metric.name), &metric);
    EXPECT_FALSE(metric.unit.empty()) << metric.name;
  }
  EXPECT_EQ(FindCanonicalMetric("flops_dp_512")->unit, "FLOP");
  EXPECT_EQ(FindCanonicalMetric("llc_misses")->unit, "count");
  EXPECT_EQ(FindCanonicalMetric("bytes_dram")->unit, "B");
  EXPECT_EQ(FindCanonicalMetric("time_s"), nullptr);  // supplied by the caller, not by groups
}

// -------------------------------------------------------------------------------------- library

class GroupLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("rprof_groups_test_" + std::to_string(getpid()));
    fs::remove_all(root_);
    Write("data/icx/FLOPS_DP.txt", kValid);
    Write("data/icx/CPI.txt", Cpi("icx", "shipped"));
    Write("data/generic/CPI.txt",
          "FORMAT 1\nSHORT generic\nPMU generic\nEVENTS\ni PAPI_TOT_INS\nMETRICS\n"
          "instructions [count] = i\n");
    Write("user/icx/CPI.txt", Cpi("icx", "user"));
    Write("user/icx/MY_GROUP.txt", Cpi("icx", "mine"));
    Write("data/icx/not_a_group.md", "x");
  }
  void TearDown() override { fs::remove_all(root_); }

  static std::string Cpi(const std::string& pmu, const std::string& what) {
    return "FORMAT 1\nSHORT " + what + "\nPMU " + pmu + "\nEVENTS\ni " + pmu +
           "::INSTRUCTION_RETIRED\nMETRICS\ninstructions [count] = i\n";
  }
  void Write(const std::string& rel, const std::string& text) {
    fs::path path = root_ / rel;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  GroupLibrary Library() const {
    return GroupLibrary((root_ / "data").string(), (root_ / "user").string());
  }

  fs::path root_;
};

TEST_F(GroupLibraryTest, ListsUnionOfShippedAndUser) {
  auto library = Library();
  EXPECT_EQ(library.ListGroups("icx"), (std::vector<std::string>{"CPI", "FLOPS_DP", "MY_GROUP"}));
  EXPECT_EQ(library.ListGroups("generic"), (std::vector<std::string>{"CPI"}));
  EXPECT_TRUE(library.ListGroups("spr").empty());
  EXPECT_TRUE(library.ListGroups("../data/icx").empty());
  EXPECT_EQ(library.ListPmus(), (std::vector<std::string>{"generic", "icx"}));
}

TEST_F(GroupLibraryTest, UserFileOverridesByName) {
  auto library = Library();
  MetricGroup group;
  Error err;
  ASSERT_TRUE(library.LoadGroup("icx", "CPI", &group, &err)) << err.message;
  EXPECT_EQ(group.description, "user");
  EXPECT_EQ(group.origin, (root_ / "user/icx/CPI.txt").string());
  ASSERT_TRUE(library.LoadGroup("icx", "FLOPS_DP", &group, &err)) << err.message;
  EXPECT_EQ(group.origin, (root_ / "data/icx/FLOPS_DP.txt").string());
  ASSERT_TRUE(library.LoadGroup("icx", "MY_GROUP", &group, &err)) << err.message;
  EXPECT_EQ(group.description, "mine");
  // Case-insensitive when unambiguous.
  ASSERT_TRUE(library.LoadGroup("icx", "flops_dp", &group, &err)) << err.message;
  EXPECT_EQ(group.name, "FLOPS_DP");
}

TEST_F(GroupLibraryTest, UnknownGroupSaysDidYouMean) {
  auto library = Library();
  MetricGroup group;
  Error err;
  EXPECT_FALSE(library.LoadGroup("icx", "FLOPS_PD", &group, &err));
  EXPECT_EQ(err.message,
            "unknown metric group 'FLOPS_PD' for icx (groups: CPI, FLOPS_DP, MY_GROUP); did you "
            "mean 'FLOPS_DP'?");
  EXPECT_FALSE(library.LoadGroup("icx", "flops_pd", &group, &err));
  EXPECT_NE(err.message.find("; did you mean 'FLOPS_DP'?"), std::string::npos) << err.message;
  EXPECT_FALSE(library.LoadGroup("icx", "ZZZZZZZZ", &group, &err));
  EXPECT_EQ(err.message,
            "unknown metric group 'ZZZZZZZZ' for icx (groups: CPI, FLOPS_DP, MY_GROUP)");
  EXPECT_FALSE(library.LoadGroup("icz", "CPI", &group, &err));
  EXPECT_NE(err.message.find("no metric groups for PMU 'icz'"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("; did you mean 'icx'?"), std::string::npos) << err.message;
}

TEST_F(GroupLibraryTest, BrokenUserFileIsAnErrorNotASilentFallback) {
  Write("user/icx/CPI.txt", "FORMAT 1\nSHORT x\nPMU icx\nEVENTS\ni icx::A\nMETRICS\ncpi [x] = i\n");
  MetricGroup group;
  Error err;
  EXPECT_FALSE(Library().LoadGroup("icx", "CPI", &group, &err));
  EXPECT_EQ(err.message,
            (root_ / "user/icx/CPI.txt").string() + ":7: 'cpi' is not a canonical metric name");
}

TEST_F(GroupLibraryTest, PmuLineMustMatchDirectory) {
  Write("user/icx/CPI.txt", Cpi("skx", "wrong dir"));
  MetricGroup group;
  Error err;
  EXPECT_FALSE(Library().LoadGroup("icx", "CPI", &group, &err));
  EXPECT_NE(err.message.find("the file says PMU skx but lives in the directory of icx"),
            std::string::npos)
      << err.message;
}

TEST_F(GroupLibraryTest, ResolvePmuFallsBackToGeneric) {
  auto library = Library();
  EXPECT_EQ(library.ResolvePmu("icx"), "icx");
  EXPECT_EQ(library.ResolvePmu("amd64_fam17h_zen2"), "generic");
  EXPECT_EQ(library.ResolvePmu(""), "generic");
}

TEST(GroupLibraryDefaults, UserDirFollowsXdg) {
  const char* old_xdg = std::getenv("XDG_CONFIG_HOME");
  std::string saved = old_xdg ? old_xdg : "";
  setenv("XDG_CONFIG_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(GroupLibrary::DefaultUserDir(), "/tmp/xdg-test/rprof/groups");
  setenv("XDG_CONFIG_HOME", "relative/is/ignored", 1);
  const char* home = std::getenv("HOME");
  if (home && *home) {
    EXPECT_EQ(GroupLibrary::DefaultUserDir(), std::string(home) + "/.config/rprof/groups");
  }
  if (old_xdg) {
    setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  } else {
    unsetenv("XDG_CONFIG_HOME");
  }
}

// -------------------------------------------------------------------------------------- libpfm4

// Without libpfm4 (the stub) these have nothing to check.
#define SKIP_WITHOUT_LIBPFM4()                               \
  do {                                                       \
    Error pfm_err;                                           \
    if (!InitPfm(&pfm_err)) GTEST_SKIP() << pfm_err.message; \
  } while (0)

TEST(PfmEvents, TablesOfAbsentPmus) {
  SKIP_WITHOUT_LIBPFM4();
  EXPECT_EQ(PfmVersion().rfind("4.", 0), 0u) << PfmVersion();
  Error why;
  EXPECT_TRUE(EventExistsInTable("icx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE", &why)) << why.message;
  EXPECT_TRUE(EventExistsInTable("skx_unc_imc5::UNC_M_CAS_COUNT:WR", &why)) << why.message;
  EXPECT_TRUE(EventExistsInTable("icx::INSTRUCTION_RETIRED", &why)) << why.message;
  EXPECT_TRUE(EventExistsInTable("amd64_fam19h_zen3::RETIRED_SSE_AVX_FLOPS:ANY:u", &why))
      << why.message;
  EXPECT_TRUE(EventExistsInTable("icx::L1D:REPLACEMENT:c=1", &why)) << why.message;

  EXPECT_FALSE(EventExistsInTable("icx::FP_ARITH_INST_RETIRED:SCALAR_DUBLE", &why));
  EXPECT_EQ(why.message,
            "icx::FP_ARITH_INST_RETIRED has no unit mask or modifier 'SCALAR_DUBLE'; did you "
            "mean 'SCALAR_DOUBLE'?");
  EXPECT_FALSE(EventExistsInTable("icx::FP_ARITH_INST_RETIRE:SCALAR_DOUBLE", &why));
  EXPECT_EQ(why.message, "icx has no event 'FP_ARITH_INST_RETIRE' in libpfm4 " + PfmVersion() +
                             "; did you mean 'FP_ARITH_INST_RETIRED'?");
  EXPECT_FALSE(EventExistsInTable("icy::L1D:REPLACEMENT", &why));
  EXPECT_NE(why.message.find("has no PMU 'icy'"), std::string::npos) << why.message;
  EXPECT_FALSE(EventExistsInTable("L1D:REPLACEMENT", &why));
  EXPECT_NE(why.message.find("not qualified"), std::string::npos) << why.message;
  // libpfm4 4.13 has no Ice Lake-SP memory-controller PMU (see icx/MEM.txt).
  if (PfmVersion() == "4.13") {
    EXPECT_FALSE(EventExistsInTable("icx_unc_imc0::UNC_M_CAS_COUNT:RD", &why));
  }
}

TEST(PfmEvents, ListsPmusAndEvents) {
  SKIP_WITHOUT_LIBPFM4();
  auto pmus = ListPmus();
  bool saw_icx = false, saw_imc = false;
  for (const auto& pmu : pmus) {
    if (pmu.name == "icx") saw_icx = pmu.type == PfmPmu::Type::kCore && pmu.num_events > 0;
    if (pmu.name == "skx_unc_imc0") saw_imc = pmu.type == PfmPmu::Type::kUncore;
  }
  EXPECT_TRUE(saw_icx);
  EXPECT_TRUE(saw_imc);
  std::vector<PfmEvent> events;
  Error err;
  ASSERT_TRUE(ListPmuEvents("spr", &events, &err)) << err.message;
  bool found = false;
  for (const auto& e : events) {
    if (e.name != "FP_ARITH_INST_RETIRED") continue;
    for (const auto& u : e.umasks) found = found || u.name == "512B_PACKED_DOUBLE";
  }
  EXPECT_TRUE(found);
  EXPECT_FALSE(ListPmuEvents("sprr", &events, &err));
  EXPECT_NE(err.message.find("; did you mean 'spr'?"), std::string::npos) << err.message;
}

TEST(PfmEvents, HostCorePmuNeedsTheKernelPmu) {
  SKIP_WITHOUT_LIBPFM4();
  Error why;
  std::string host = HostCorePmuName(&why);
  bool kernel_pmu = fs::exists("/sys/bus/event_source/devices/cpu") ||
                    fs::exists("/sys/bus/event_source/devices/cpu_core");
  if (!kernel_pmu) {
    // A VM without vPMU (like the development machine): no PMU, and the reason says why.
    EXPECT_EQ(host, "");
    EXPECT_NE(why.message.find("the kernel exposes no CPU PMU"), std::string::npos) << why.message;
  } else {
    EXPECT_EQ(host, CpuidCorePmuName());
  }
}

}  // namespace
}  // namespace rprof
