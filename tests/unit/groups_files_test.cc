// The shipped metric-group files, checked without hardware: every file parses, every event exists
// in libpfm4's table for its PMU (real libpfm4; PMUs absent from this machine included), every
// formula gives the hand-computed value on recorded counts, and every MEM group reads every
// memory channel libpfm4 knows for its model.
//
// The groups directory comes from $RPROF_GROUPS_DIR (meson sets it), else from this file's place
// in the source tree.
#include <gtest/gtest.h>
#include <perfmon/pfmlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "counters/pmu/group_eval.h"
#include "counters/pmu/group_library.h"
#include "counters/pmu/metric_group.h"
#include "counters/pmu/pfm_events.h"

#if defined(RPROF_TEST_WITH_PAPI)
#include <papi.h>
#endif

namespace rprof {
namespace {

namespace fs = std::filesystem;

// libpfm4 only encodes events of PMUs it detected, unless told otherwise before it initialises.
// This runs before main(), so before the first pfm_initialize() in this process; it lets the test
// also check that each event's unit masks may be combined, which the table walk does not.
const bool kEncodeInactive = [] { return setenv("LIBPFM_ENCODE_INACTIVE", "1", 1) == 0; }();

std::string GroupsDir() {
  if (const char* env = std::getenv("RPROF_GROUPS_DIR"); env && *env) return env;
#ifdef RPROF_GROUPS_SOURCE_DIR
  return RPROF_GROUPS_SOURCE_DIR;
#else
  // From this file's place in the source tree: tests/unit/x.cc -> profiler/counters/groups.
  // __FILE__ is relative to the directory the compiler ran in (the build directory, an ancestor
  // of this executable's), so try it against each ancestor.
  const fs::path groups = fs::path(__FILE__).parent_path().parent_path().parent_path() /
                          "profiler" / "counters" / "groups";
  std::error_code ec;
  if (groups.is_absolute()) return groups.lexically_normal().string();
  for (fs::path dir = fs::read_symlink("/proc/self/exe", ec).parent_path(); !dir.empty();
       dir = dir.parent_path()) {
    if (fs::is_directory(dir / groups, ec)) return (dir / groups).lexically_normal().string();
    if (dir == dir.parent_path()) break;
  }
  return groups.string();
#endif
}

const std::vector<std::string> kModelPmus = {
    "skx", "icl", "icx", "spr", "amd64_fam19h_zen3", "amd64_fam19h_zen4"};
const std::vector<std::string> kGroups = {"FLOPS_DP", "FLOPS_SP", "MEM",    "L2",
                                          "L3",       "CACHE",    "BRANCH", "CPI"};

struct ShippedGroup {
  std::string pmu;
  std::string path;
};

std::vector<ShippedGroup> AllShippedFiles() {
  std::vector<ShippedGroup> files;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(GroupsDir(), ec)) {
    if (!dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(dir.path())) {
      if (file.path().extension() == ".txt")
        files.push_back({dir.path().filename().string(), file.path().string()});
    }
  }
  std::sort(files.begin(), files.end(),
            [](const ShippedGroup& a, const ShippedGroup& b) { return a.path < b.path; });
  return files;
}

MetricGroup LoadShipped(const std::string& pmu, const std::string& name) {
  // An empty user dir that does not exist, so a developer's own overrides do not leak in.
  GroupLibrary library(GroupsDir(), "/nonexistent/rprof-test-user-groups");
  MetricGroup group;
  Error err;
  EXPECT_TRUE(library.LoadGroup(pmu, name, &group, &err)) << err.message;
  return group;
}

// Counts given by event name (not alias), so the expectations below do not depend on the
// aliases a group file happens to choose.
EventCounts ByEvent(const MetricGroup& group, const std::map<std::string, double>& by_event) {
  EventCounts counts;
  for (const auto& [event, value] : by_event) {
    const GroupEvent* found = nullptr;
    for (const auto& e : group.events) {
      if (e.event == event) found = &e;
    }
    EXPECT_NE(found, nullptr) << group.origin << " has no event " << event;
    if (found) counts[found->alias] = EventCount{value, 1.0};
  }
  return counts;
}

const MetricResult* Find(const std::vector<MetricResult>& results, const std::string& name) {
  for (const auto& r : results) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

TEST(GroupsFiles, DirectoryFound) {
  EXPECT_TRUE(fs::is_directory(GroupsDir())) << GroupsDir() << " (set RPROF_GROUPS_DIR)";
  EXPECT_TRUE(fs::is_regular_file(fs::path(GroupsDir()) / "README.md"));
}

TEST(GroupsFiles, EveryShippedFileParses) {
  auto files = AllShippedFiles();
  ASSERT_GE(files.size(), (kModelPmus.size() + 1) * kGroups.size());
  for (const auto& file : files) {
    MetricGroup group;
    Error err;
    EXPECT_TRUE(LoadMetricGroupFile(file.path, &group, &err)) << err.message;
    EXPECT_EQ(group.pmu, file.pmu) << file.path << ": PMU line differs from its directory";
    EXPECT_FALSE(group.description.empty()) << file.path;
  }
}

TEST(GroupsFiles, EveryPmuHasEveryGroup) {
  GroupLibrary library(GroupsDir(), "/nonexistent/rprof-test-user-groups");
  auto pmus = kModelPmus;
  pmus.push_back("generic");
  for (const auto& pmu : pmus) {
    auto groups = library.ListGroups(pmu);
    for (const auto& name : kGroups) {
      EXPECT_NE(std::find(groups.begin(), groups.end(), name), groups.end())
          << pmu << " lacks " << name;
    }
  }
}

TEST(GroupsFiles, EveryEventExistsInLibpfm4Table) {
  Error pfm_err;
  ASSERT_TRUE(InitPfm(&pfm_err)) << pfm_err.message;
  ASSERT_TRUE(kEncodeInactive);
  for (const auto& file : AllShippedFiles()) {
    if (file.pmu == "generic") continue;
    MetricGroup group;
    Error err;
    ASSERT_TRUE(LoadMetricGroupFile(file.path, &group, &err)) << err.message;
    for (const auto& event : group.events) {
      Error why;
      EXPECT_TRUE(EventExistsInTable(event.event, &why))
          << file.path << ":" << event.line << ": " << why.message;
      // The full encoder also rejects unit masks that may not be combined.
      pfm_pmu_encode_arg_t arg;
      std::memset(&arg, 0, sizeof(arg));
      arg.size = sizeof(arg);
      int rc = pfm_get_os_event_encoding(event.event.c_str(), PFM_PLM3, PFM_OS_NONE, &arg);
      EXPECT_EQ(rc, PFM_SUCCESS) << file.path << ":" << event.line << ": libpfm4 cannot encode "
                                 << event.event << ": " << pfm_strerror(rc);
      free(arg.codes);
      free(arg.fstr);
    }
  }
}

TEST(GroupsFiles, GenericGroupsUseOnlyPapiPresets) {
  const std::set<std::string> kPresets = {
      "PAPI_DP_OPS", "PAPI_SP_OPS",  "PAPI_FP_OPS",  "PAPI_L1_DCM", "PAPI_L2_TCM",
      "PAPI_L3_TCM", "PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_BR_INS", "PAPI_BR_MSP"};
#if defined(RPROF_TEST_WITH_PAPI)
  ASSERT_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
#endif
  for (const auto& file : AllShippedFiles()) {
    if (file.pmu != "generic") continue;
    MetricGroup group;
    Error err;
    ASSERT_TRUE(LoadMetricGroupFile(file.path, &group, &err)) << err.message;
    for (const auto& event : group.events) {
      EXPECT_TRUE(kPresets.count(event.event)) << file.path << ": " << event.event;
#if defined(RPROF_TEST_WITH_PAPI)
      // PAPI knows every preset name, available on this CPU or not.
      int code = 0;
      EXPECT_EQ(PAPI_event_name_to_code(event.event.c_str(), &code), PAPI_OK) << event.event;
#endif
    }
  }
}

// ---------------------------------------------------------------------- formulas on known counts

struct Case {
  std::string group;
  std::map<std::string, double> counts;    // by event name, "{P}" stands for the PMU
  std::map<std::string, double> expected;  // metric -> value
};

std::string Expand(std::string text, const std::string& pmu) {
  for (size_t at; (at = text.find("{P}")) != std::string::npos;) text.replace(at, 3, pmu);
  return text;
}

void RunCase(const std::string& pmu, const Case& c) {
  SCOPED_TRACE(pmu + "/" + c.group);
  MetricGroup group = LoadShipped(pmu, c.group);
  std::map<std::string, double> counts;
  for (const auto& [event, value] : c.counts) counts[Expand(event, pmu)] = value;
  auto results = EvaluateGroup(group, ByEvent(group, counts), 2.0);
  for (const auto& [metric, value] : c.expected) {
    const MetricResult* r = Find(results, metric);
    ASSERT_NE(r, nullptr) << metric;
    ASSERT_TRUE(r->value.has_value()) << metric << ": " << r->reason;
    EXPECT_DOUBLE_EQ(*r->value, value) << metric << " = " << r->formula;
    EXPECT_DOUBLE_EQ(r->coverage, 1.0) << metric;
  }
}

const std::vector<std::string> kIntel = {"skx", "icl", "icx", "spr"};
const std::vector<std::string> kAmd = {"amd64_fam19h_zen3", "amd64_fam19h_zen4"};

TEST(GroupsFormulas, IntelFlops) {
  for (const auto& pmu : kIntel) {
    // scalar=10, 128-bit=5, 256-bit=3, 512-bit=1: DP 10 + 2*5 + 4*3 + 8*1 = 40.
    RunCase(pmu, {"FLOPS_DP",
                  {{"{P}::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE", 10},
                   {"{P}::FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE", 5},
                   {"{P}::FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE", 3},
                   {"{P}::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE", 1}},
                  {{"flops_dp", 40},
                   {"flops_dp_scalar", 10},
                   {"flops_dp_128", 10},
                   {"flops_dp_256", 12},
                   {"flops_dp_512", 8}}});
    // SP: 10 + 4*5 + 8*3 + 16*1 = 70.
    RunCase(pmu, {"FLOPS_SP",
                  {{"{P}::FP_ARITH_INST_RETIRED:SCALAR_SINGLE", 10},
                   {"{P}::FP_ARITH_INST_RETIRED:128B_PACKED_SINGLE", 5},
                   {"{P}::FP_ARITH_INST_RETIRED:256B_PACKED_SINGLE", 3},
                   {"{P}::FP_ARITH_INST_RETIRED:512B_PACKED_SINGLE", 1}},
                  {{"flops_sp", 70},
                   {"flops_sp_scalar", 10},
                   {"flops_sp_128", 20},
                   {"flops_sp_256", 24},
                   {"flops_sp_512", 16}}});
  }
}

TEST(GroupsFormulas, IntelCacheTrafficBranchCpi) {
  for (const auto& pmu : kIntel) {
    RunCase(pmu, {"L2",
                  {{"{P}::L1D:REPLACEMENT", 100}, {"{P}::L2_RQSTS:ALL_RFO", 30}},
                  {{"bytes_l2", 64 * 130}}});
    std::string wb = pmu == "spr" ? "{P}::L2_LINES_OUT:NON_SILENT" : "{P}::L2_TRANS:L2_WB";
    RunCase(pmu, {"L3", {{"{P}::L2_LINES_IN:ALL", 200}, {wb, 50}}, {{"bytes_l3", 64 * 250}}});
    RunCase(pmu, {"CACHE",
                  {{"{P}::L1D:REPLACEMENT", 1000},
                   {"{P}::L2_LINES_IN:ALL", 300},
                   {"{P}::LONGEST_LAT_CACHE:MISS", 70}},
                  {{"l1d_misses", 1000}, {"l2_misses", 300}, {"llc_misses", 70}}});
    RunCase(pmu,
            {"BRANCH",
             {{"{P}::BR_INST_RETIRED:ALL_BRANCHES", 500}, {"{P}::BR_MISP_RETIRED:ALL_BRANCHES", 7}},
             {{"branches", 500}, {"branch_misses", 7}}});
    RunCase(pmu, {"CPI",
                  {{"{P}::INSTRUCTION_RETIRED", 4000}, {"{P}::UNHALTED_CORE_CYCLES", 3000}},
                  {{"instructions", 4000}, {"cycles", 3000}}});
  }
}

TEST(GroupsFormulas, SkxMemSumsEverySocketChannel) {
  // rd_c = c + 1, wr_c = 10 (c + 1): sum 21 + 210 = 231 lines.
  std::map<std::string, double> counts;
  for (int c = 0; c < 6; ++c) {
    counts["skx_unc_imc" + std::to_string(c) + "::UNC_M_CAS_COUNT:RD"] = c + 1;
    counts["skx_unc_imc" + std::to_string(c) + "::UNC_M_CAS_COUNT:WR"] = 10 * (c + 1);
  }
  counts["skx::LONGEST_LAT_CACHE:MISS"] = 99;
  MetricGroup group = LoadShipped("skx", "MEM");
  auto results = EvaluateGroup(group, ByEvent(group, counts), 1.0);
  const MetricResult* dram = Find(results, "bytes_dram");
  ASSERT_NE(dram, nullptr);
  ASSERT_TRUE(dram->value) << dram->reason;
  EXPECT_DOUBLE_EQ(*dram->value, 64.0 * 231);
  EXPECT_TRUE(dram->uncore());
  EXPECT_FALSE(dram->approximated());
  EXPECT_TRUE(dram->fallbacks.empty());

  // One channel's write counter could not be opened: no partial sum, the labelled approximation.
  counts.erase("skx_unc_imc3::UNC_M_CAS_COUNT:WR");
  results = EvaluateGroup(group, ByEvent(group, counts), 1.0);
  dram = Find(results, "bytes_dram");
  ASSERT_TRUE(dram->value) << dram->reason;
  EXPECT_DOUBLE_EQ(*dram->value, 64.0 * 99);
  EXPECT_TRUE(dram->approximated());
  ASSERT_EQ(dram->fallbacks.size(), 1u);
  EXPECT_NE(dram->fallbacks[0].find("skx_unc_imc3::UNC_M_CAS_COUNT:WR"), std::string::npos)
      << dram->fallbacks[0];
}

TEST(GroupsFormulas, IntelMemWithoutUncoreIsLabelledApproximation) {
  for (const auto& pmu : {"icl", "icx", "spr"}) {
    RunCase(pmu, {"MEM", {{"{P}::LONGEST_LAT_CACHE:MISS", 1000}}, {{"bytes_dram", 64000}}});
    auto results = EvaluateGroup(LoadShipped(pmu, "MEM"), {{"llc", EventCount{1000, 1.0}}}, 1.0);
    const MetricResult* dram = Find(results, "bytes_dram");
    ASSERT_TRUE(dram && dram->value);
    EXPECT_TRUE(dram->approximated()) << pmu;
  }
}

TEST(GroupsFormulas, AmdFlopsHaveNoPrecisionSplit) {
  for (const auto& pmu : kAmd) {
    for (const std::string prec : {"dp", "sp"}) {
      std::string name = prec == "dp" ? "FLOPS_DP" : "FLOPS_SP";
      MetricGroup group = LoadShipped(pmu, name);
      ASSERT_EQ(group.events.size(), 1u);
      auto results = EvaluateGroup(group, {{group.events[0].alias, EventCount{1234, 1.0}}}, 1.0);
      const MetricResult* flops = Find(results, "flops");
      ASSERT_TRUE(flops && flops->value);
      EXPECT_DOUBLE_EQ(*flops->value, 1234);
      for (const std::string suffix : {"", "_scalar", "_128", "_256", "_512"}) {
        const MetricResult* split = Find(results, "flops_" + prec + suffix);
        ASSERT_NE(split, nullptr) << pmu << " " << name << " flops_" << prec << suffix;
        EXPECT_FALSE(split->value);
        EXPECT_TRUE(split->absent_by_design);
        EXPECT_NE(split->reason.find("no split by precision"), std::string::npos) << split->reason;
      }
    }
  }
}

TEST(GroupsFormulas, AmdMemoryCacheBranchCpi) {
  const std::map<std::string, std::map<std::string, std::string>> kSources = {
      {"amd64_fam19h_zen3",
       {{"all", "LCL_L2:INT_CACHE:EXT_CACHE_LCL:MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT"},
        {"far", "EXT_CACHE_LCL:MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT"},
        {"dram", "MEM_IO_LCL:MEM_IO_RMT"},
        {"l2pf", "L2_HW_PREFETCHER"}}},
      {"amd64_fam19h_zen4",
       {{"all",
         "LCL_L2:LOCAL_CCX:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:"
         "ALT_MEM_NEAR_FAR"},
        {"far", "NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR"},
        {"dram", "DRAM_IO_NEAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR"},
        {"l2pf", "L2_STREAM:L2_NEXT_LINE:L2_UP_DOWN:L2_BURST:L2_STRIDE"}}},
  };
  for (const auto& pmu : kAmd) {
    const auto& src = kSources.at(pmu);
    const std::string fills = "{P}::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:";
    const std::string l2miss = "{P}::CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C";
    RunCase(pmu,
            {"MEM",
             {{fills + src.at("dram"), 100}, {"{P}::L2_PREFETCH_MISS_L3:" + src.at("l2pf"), 50}},
             {{"bytes_dram", 64 * 150}}});
    RunCase(pmu, {"L2", {{fills + src.at("all"), 400}}, {{"bytes_l2", 64 * 400}}});
    RunCase(pmu, {"L3",
                  {{l2miss, 20},
                   {"{P}::L2_PREFETCH_HIT_L3:" + src.at("l2pf"), 30},
                   {"{P}::L2_PREFETCH_MISS_L3:" + src.at("l2pf"), 40}},
                  {{"bytes_l3", 64 * 90}}});
    RunCase(pmu, {"CACHE",
                  {{fills + src.at("all"), 400}, {l2miss, 20}, {fills + src.at("far"), 9}},
                  {{"l1d_misses", 400}, {"l2_misses", 20}, {"llc_misses", 9}}});
    RunCase(pmu, {"BRANCH",
                  {{"{P}::RETIRED_BRANCH_INSTRUCTIONS", 300},
                   {"{P}::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", 3}},
                  {{"branches", 300}, {"branch_misses", 3}}});
    RunCase(pmu, {"CPI",
                  {{"{P}::RETIRED_INSTRUCTIONS", 800}, {"{P}::CYCLES_NOT_IN_HALT", 600}},
                  {{"instructions", 800}, {"cycles", 600}}});
  }
}

TEST(GroupsFormulas, GenericPresets) {
  const std::string g = "generic";
  RunCase(
      g,
      {"FLOPS_DP", {{"PAPI_DP_OPS", 40}, {"PAPI_FP_OPS", 55}}, {{"flops_dp", 40}, {"flops", 55}}});
  RunCase(
      g,
      {"FLOPS_SP", {{"PAPI_SP_OPS", 70}, {"PAPI_FP_OPS", 55}}, {{"flops_sp", 70}, {"flops", 55}}});
  RunCase(g, {"MEM", {{"PAPI_L3_TCM", 10}}, {{"bytes_dram", 640}}});
  RunCase(g, {"L2", {{"PAPI_L1_DCM", 10}}, {{"bytes_l2", 640}}});
  RunCase(g, {"L3", {{"PAPI_L2_TCM", 10}}, {{"bytes_l3", 640}}});
  RunCase(g, {"CACHE",
              {{"PAPI_L1_DCM", 30}, {"PAPI_L2_TCM", 20}, {"PAPI_L3_TCM", 10}},
              {{"l1d_misses", 30}, {"l2_misses", 20}, {"llc_misses", 10}}});
  RunCase(g, {"BRANCH",
              {{"PAPI_BR_INS", 90}, {"PAPI_BR_MSP", 4}},
              {{"branches", 90}, {"branch_misses", 4}}});
  RunCase(g, {"CPI",
              {{"PAPI_TOT_INS", 900}, {"PAPI_TOT_CYC", 450}},
              {{"instructions", 900}, {"cycles", 450}}});
}

TEST(GroupsFormulas, MissingOptionalInputGivesNulloptWithReason) {
  // AMD Zen3 under PAPI 7.0 has no PAPI_L3_TCM: only llc_misses goes, with the event named.
  MetricGroup group = LoadShipped("generic", "CACHE");
  auto counts = ByEvent(group, {{"PAPI_L1_DCM", 30}, {"PAPI_L2_TCM", 20}});
  EXPECT_TRUE(MissingRequiredEvents(group, counts).empty());
  auto results = EvaluateGroup(group, counts, 1.0);
  const MetricResult* llc = Find(results, "llc_misses");
  ASSERT_NE(llc, nullptr);
  EXPECT_FALSE(llc->value);
  EXPECT_FALSE(llc->absent_by_design);
  EXPECT_NE(llc->reason.find("PAPI_L3_TCM"), std::string::npos) << llc->reason;
  EXPECT_NE(llc->reason.find("optional"), std::string::npos) << llc->reason;
  EXPECT_DOUBLE_EQ(llc->coverage, 0);
  ASSERT_TRUE(Find(results, "l1d_misses")->value);
  ASSERT_TRUE(Find(results, "l2_misses")->value);

  // A required one missing is reported before evaluation.
  counts.erase(group.events[0].alias);
  auto missing = MissingRequiredEvents(group, counts);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].find("PAPI_L1_DCM"), std::string::npos);
}

TEST(GroupsFormulas, CoverageIsTheMinimumOverTheInputsUsed) {
  MetricGroup group = LoadShipped("icx", "FLOPS_DP");
  auto counts = ByEvent(group, {{"icx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE", 10},
                                {"icx::FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE", 5},
                                {"icx::FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE", 3},
                                {"icx::FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE", 1}});
  counts["scalar"].coverage = 0.5;
  counts["p256"].coverage = 0.25;
  auto results = EvaluateGroup(group, counts, 1.0);
  EXPECT_DOUBLE_EQ(Find(results, "flops_dp")->coverage, 0.25);
  EXPECT_DOUBLE_EQ(Find(results, "flops_dp_scalar")->coverage, 0.5);
  EXPECT_DOUBLE_EQ(Find(results, "flops_dp_128")->coverage, 1.0);
  // Values are the caller's scaled counts, untouched by coverage.
  EXPECT_DOUBLE_EQ(*Find(results, "flops_dp")->value, 40);

  // An event that never ran has no count, whatever value the caller passed.
  counts["p512"] = EventCount{0, 0.0};
  results = EvaluateGroup(group, counts, 1.0);
  EXPECT_FALSE(Find(results, "flops_dp")->value);
  EXPECT_NE(Find(results, "flops_dp")->reason.find("never ran"), std::string::npos);
  EXPECT_FALSE(Find(results, "flops_dp_512")->value);
  EXPECT_TRUE(Find(results, "flops_dp_256")->value);
}

// -------------------------------------------------------------------- every memory channel read

// The IMC channel PMUs libpfm4 knows for a model: <model>_unc_imc0, _unc_imc1, ...
std::vector<std::string> ImcPmus(const std::string& model) {
  std::vector<std::string> pmus;
  const std::string prefix = model + "_unc_imc";
  for (const auto& pmu : ListPmus()) {
    std::string_view rest = std::string_view(pmu.name);
    if (rest.substr(0, prefix.size()) != prefix) continue;
    rest.remove_prefix(prefix.size());
    if (!rest.empty() &&
        std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; }))
      pmus.push_back(pmu.name);
  }
  return pmus;
}

// The channel PMUs whose CAS reads or writes the group's exact bytes_dram formula does not read;
// empty when it reads every one.
std::vector<std::string> ChannelsNotSummed(const MetricGroup& group,
                                           const std::vector<std::string>& imc_pmus) {
  const GroupMetric* exact = nullptr;
  for (const auto& m : group.metrics) {
    if (m.name == "bytes_dram" && !exact) exact = &m;
  }
  std::vector<std::string> missing;
  for (const auto& pmu : imc_pmus) {
    for (const std::string cas : {"RD", "WR"}) {
      std::string event = pmu + "::UNC_M_CAS_COUNT:" + cas;
      bool read = false;
      for (const auto& e : group.events) {
        if (e.event != event || !exact) continue;
        const auto& names = exact->formula.names();
        read = std::find(names.begin(), names.end(), e.alias) != names.end();
      }
      if (!read) missing.push_back(event);
    }
  }
  return missing;
}

TEST(GroupsMemChannels, EveryMemGroupReadsEveryImcChannel) {
  // Channels per socket as the hardware has them; LIKWID's ICX MEM group missed two for years.
  const std::map<std::string, size_t> kKnownChannels = {{"skx", 6}, {"icx", 8}, {"spr", 16}};
  for (const auto& [model, channels] : kKnownChannels) {
    SCOPED_TRACE(model);
    MetricGroup group = LoadShipped(model, "MEM");
    auto imcs = ImcPmus(model);
    if (imcs.empty()) {
      // This libpfm4 cannot name the channels: the group may only approximate, and must say so.
      for (const auto& m : group.metrics) {
        if (m.name == "bytes_dram") {
          EXPECT_TRUE(m.approximated()) << m.formula.text();
        }
      }
      continue;
    }
    EXPECT_GE(imcs.size(), channels) << "libpfm4 lists fewer IMC PMUs than the model has channels";
    auto missing = ChannelsNotSummed(group, imcs);
    std::string list;
    for (const auto& m : missing) list += " " + m;
    EXPECT_TRUE(missing.empty())
        << "libpfm4 " << PfmVersion() << " names " << imcs.size() << " IMC PMUs for " << model
        << "; the first bytes_dram formula of " << group.origin << " must read CAS RD and WR of "
        << "each (put the exact sum first, keep the approximation after it). Not read:" << list;
  }
}

TEST(GroupsMemChannels, CheckCatchesAMissingChannel) {
  // The same check on skx/MEM.txt with channel 4's write counter left out of the formula.
  std::string path = GroupsDir() + "/skx/MEM.txt";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string edited = text.str();
  const std::string kTerm = " + wr4";
  size_t at = edited.find(kTerm);
  ASSERT_NE(at, std::string::npos);
  edited.erase(at, kTerm.size());
  // The formula no longer reads wr4, so wr4 would be an unused event: drop its line too.
  size_t line = edited.find("wr4 ");
  ASSERT_NE(line, std::string::npos);
  edited.erase(line, edited.find('\n', line) - line + 1);
  MetricGroup group;
  Error err;
  ASSERT_TRUE(ParseMetricGroup(edited, "MEM", "edited skx/MEM.txt", &group, &err)) << err.message;
  auto missing = ChannelsNotSummed(group, ImcPmus("skx"));
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], "skx_unc_imc4::UNC_M_CAS_COUNT:WR");
}

}  // namespace
}  // namespace rprof
