// rprof calibrate's arithmetic and storage on recorded counter values: the plan parser, the
// working set of each level, measured / expected per point, the verdicts (a half-counting FLOP
// event, as on early Zen5 kernels, must come out untrusted), the store and the metric_trust view,
// and the trust notes a run gets from its metrics and this machine's calibration.
#include "calibrate/calibration.h"

#include <gtest/gtest.h>

#include <map>

#include "calibrate/calibration_plan.h"
#include "calibrate/calibration_store.h"
#include "calibrate/run_trust.h"
#include "counters/pmu/metric_group.h"
#include "store/run_store.h"
#include "targets/kernel_catalog.h"
#include "temp_files.h"

namespace rprof {
namespace {

using testing_support::TempDir;

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

std::vector<CalibrationCheck> Plan(const std::string& text) {
  std::vector<CalibrationCheck> plan;
  Error err;
  EXPECT_TRUE(ParseCalibrationPlan(text, "test", &plan, &err)) << err.message;
  return plan;
}

std::string PlanError(const std::string& text) {
  std::vector<CalibrationCheck> plan;
  Error err;
  EXPECT_FALSE(ParseCalibrationPlan(text, "test", &plan, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  return err.message;
}

TEST(CalibrationPlanTest, ParsesColumnsAndComments) {
  auto plan = Plan("# comment\n\ntriad n=ws/24 flops_dp 2*n l1 dram  # trailing\n");
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].kernel, "triad");
  EXPECT_EQ(plan[0].size_param, "n");
  EXPECT_EQ(plan[0].bytes_per_unit, 24);
  EXPECT_EQ(plan[0].metric, "flops_dp");
  EXPECT_EQ(plan[0].expected.text(), "2*n");
  EXPECT_EQ(plan[0].levels, (std::vector<std::string>{"l1", "dram"}));
  EXPECT_EQ(plan[0].line, 3);
}

TEST(CalibrationPlanTest, MalformedLinesNameTheLineAndCause) {
  EXPECT_EQ(PlanError("triad n=ws/24 flops_dp 2*n\n"),
            "test:1: expected: kernel size metric expected levels...");
  EXPECT_EQ(PlanError("\ntriad n=24 flops_dp 2*n l1\n"),
            "test:2: size 'n=24' is not PARAM=ws/BYTES");
  EXPECT_EQ(PlanError("triad n=ws/0 flops_dp 2*n l1\n"),
            "test:1: size 'n=ws/0' is not PARAM=ws/BYTES");
  EXPECT_NE(PlanError("triad n=ws/24 flops_dp 2*(n l1\n").find("test:1: expected '2*(n'"),
            std::string::npos);
  EXPECT_EQ(PlanError("triad n=ws/24 flops_dp 2*n l4\n"),
            "test:1: level 'l4' is not l1, l2, l3 or dram");
  EXPECT_EQ(PlanError("# nothing\n"), "test: no checks");
}

TEST(CalibrationPlanTest, TheShippedPlanLoadsAndNamesBuiltinKernels) {
  std::vector<CalibrationCheck> plan;
  Error err;
  ASSERT_TRUE(LoadCalibrationPlan(&plan, &err)) << err.message;
  Error e;
  for (const CalibrationCheck& c : plan)
    EXPECT_NE(BuiltinCatalog().Resolve(c.kernel, &e), nullptr) << c.kernel << ": " << e.message;
}

std::vector<CacheLevel> Caches(std::vector<uint64_t> sizes) {
  std::vector<CacheLevel> caches;
  int level = 1;
  for (uint64_t s : sizes) {
    CacheLevel c;
    c.level = level++;
    c.type = c.level == 1 ? "data" : "unified";
    c.size_bytes = s;
    c.line_bytes = 64;
    caches.push_back(c);
  }
  return caches;
}

TEST(CalibrationLevelsTest, HalfOfEachCacheAndDramBeyondTheLast) {
  auto levels = CalibrationLevels(Caches({32 * kKiB, 512 * kKiB, 32 * kMiB}));
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0].level, "l1");
  EXPECT_EQ(levels[0].working_set_bytes, 16 * kKiB);
  EXPECT_EQ(levels[1].working_set_bytes, 256 * kKiB);
  EXPECT_EQ(levels[2].working_set_bytes, 16 * kMiB);
  EXPECT_EQ(levels[3].level, "dram");
  EXPECT_EQ(levels[3].working_set_bytes, 128 * kMiB);
  // A small last level still sends DRAM far past every cache.
  auto small = CalibrationLevels(Caches({32 * kKiB, 1 * kMiB}));
  ASSERT_EQ(small.size(), 3u);
  EXPECT_EQ(small[2].working_set_bytes, 64 * kMiB);
}

// Recorded counts: for each (kernel, level) what the counters said, as a fraction of the truth.
struct FakeCounters {
  std::map<std::string, double> factor;  // metric → measured / true; absent: not counted
  std::map<std::string, std::string> absent_reason;  // metric → counted but no value
  std::vector<CalibrationTask> tasks;

  CalibrationMeasure Measure() {
    return [this](const CalibrationTask& t, std::vector<Metric>* out, Error*) {
      tasks.push_back(t);
      double n = static_cast<double>(t.args.values[0]);
      std::map<std::string, double> truth = {{"flops_dp", 2 * n}, {"bytes_l2", 32 * n}};
      for (const auto& [metric, f] : factor)
        out->push_back({metric, truth.at(metric) * f, "x", Source::kPmu, "", ""});
      for (const auto& [metric, why] : absent_reason)
        out->push_back({metric, std::nullopt, "x", Source::kPmu, "", why});
      out->push_back({"flops_dp", 2 * n, "FLOP", Source::kModel, "", ""});
      return true;
    };
  }
};

const std::vector<CalibrationLevel> kLevels = {
    {"l1", 16 * kKiB}, {"l2", 256 * kKiB}, {"l3", 16 * kMiB}, {"dram", 128 * kMiB}};

CalibrationRequest PmuRequest() {
  CalibrationRequest r;
  r.source = Source::kPmu;
  r.group_of = [](const std::string& metric) {
    return metric == "flops_dp"   ? std::string("FLOPS_DP")
           : metric == "bytes_l2" ? std::string("L2")
                                  : std::string();
  };
  return r;
}

TEST(CalibrateTest, ExactCountsAreTrustedAndSizedPerLevel) {
  auto plan = Plan("triad n=ws/24 flops_dp 2*n l1 l2 dram\n");
  FakeCounters counters;
  counters.factor = {{"flops_dp", 1.0}};
  CalibrationResult result;
  Error err;
  ASSERT_TRUE(
      Calibrate(plan, kLevels, BuiltinCatalog(), PmuRequest(), counters.Measure(), &result, &err))
      << err.message;
  ASSERT_EQ(result.points.size(), 3u);
  // n = working set / 24, rounded down to a multiple of 64.
  EXPECT_EQ(counters.tasks[0].args.values[0], 640);
  EXPECT_EQ(result.points[0].working_set_bytes, 640u * 24);
  EXPECT_EQ(result.points[0].group, "FLOPS_DP");
  EXPECT_EQ(result.points[0].expected, 1280);
  EXPECT_EQ(result.points[2].level, "dram");
  auto verdicts = Verdicts(result);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_TRUE(verdicts[0].trusted);
  EXPECT_EQ(verdicts[0].min_ratio, 1.0);
}

TEST(CalibrateTest, AHalfCountingFlopEventIsUntrusted) {
  auto plan = Plan("triad n=ws/24 flops_dp 2*n l1 l2\ntriad n=ws/24 bytes_l2 32*n l2\n");
  FakeCounters counters;
  counters.factor = {{"flops_dp", 0.5}, {"bytes_l2", 1.03}};
  CalibrationResult result;
  Error err;
  ASSERT_TRUE(
      Calibrate(plan, kLevels, BuiltinCatalog(), PmuRequest(), counters.Measure(), &result, &err));
  // One measurement per kernel, level and group: flops at l1 and l2, bytes at l2.
  EXPECT_EQ(counters.tasks.size(), 3u);
  auto verdicts = Verdicts(result);
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0].metric, "flops_dp");
  EXPECT_FALSE(verdicts[0].trusted);
  EXPECT_DOUBLE_EQ(*verdicts[0].max_ratio, 0.5);
  EXPECT_EQ(verdicts[1].metric, "bytes_l2");
  EXPECT_TRUE(verdicts[1].trusted);  // 3 % off is within 5 %
}

TEST(CalibrateTest, UncountedMetricsAreSkippedAndAbsentValuesUntrusted) {
  auto plan = Plan(
      "triad n=ws/24 flops_dp 2*n l1\n"
      "triad n=ws/24 bytes_l3 32*n l3\n"    // no group defines it
      "triad n=ws/24 bytes_l2 32*n l2\n");  // the group runs but has no value
  FakeCounters counters;
  counters.factor = {{"flops_dp", 1.0}};
  counters.absent_reason = {{"bytes_l2", "cannot count L2_LINES_IN.ALL: no counter left"}};
  CalibrationRequest request = PmuRequest();
  CalibrationResult result;
  Error err;
  ASSERT_TRUE(
      Calibrate(plan, kLevels, BuiltinCatalog(), request, counters.Measure(), &result, &err));
  ASSERT_EQ(result.skipped.size(), 1u);
  EXPECT_EQ(result.skipped[0], "bytes_l3: no metric group of this machine defines it");
  ASSERT_EQ(result.points.size(), 2u);
  EXPECT_FALSE(result.points[1].measured);
  EXPECT_EQ(result.points[1].note, "cannot count L2_LINES_IN.ALL: no counter left");
  auto verdicts = Verdicts(result);
  EXPECT_TRUE(verdicts[0].trusted);
  EXPECT_FALSE(verdicts[1].trusted);
}

TEST(CalibrateTest, LevelsTheMachineLacksAreSkippedAndFiltersApply) {
  auto plan = Plan("triad n=ws/24 flops_dp 2*n l1 l3 dram\n");
  FakeCounters counters;
  counters.factor = {{"flops_dp", 1.0}};
  std::vector<CalibrationLevel> two = {{"l1", 16 * kKiB}, {"l2", 256 * kKiB}, {"dram", 64 * kMiB}};
  CalibrationRequest request = PmuRequest();
  request.levels = {"dram"};
  CalibrationResult result;
  Error err;
  ASSERT_TRUE(Calibrate(plan, two, BuiltinCatalog(), request, counters.Measure(), &result, &err));
  ASSERT_EQ(result.points.size(), 1u);
  EXPECT_EQ(result.points[0].level, "dram");
  EXPECT_EQ(result.skipped,
            std::vector<std::string>{"flops_dp in l3: this machine has no such cache level"});
}

TEST(CalibrateTest, UnknownKernelOrParameterIsAnError) {
  FakeCounters counters;
  CalibrationResult result;
  Error err;
  EXPECT_FALSE(Calibrate(Plan("no-such-kernel n=ws/8 flops_dp n l1\n"), kLevels, BuiltinCatalog(),
                         PmuRequest(), counters.Measure(), &result, &err));
  EXPECT_FALSE(Calibrate(Plan("triad m=ws/8 flops_dp m l1\n"), kLevels, BuiltinCatalog(),
                         PmuRequest(), counters.Measure(), &result, &err));
  EXPECT_NE(err.message.find("triad has no parameter m"), std::string::npos) << err.message;
}

MachineRecord Machine(const std::string& fingerprint) {
  return {fingerprint, "Test CPU", 2, "L1d 32K", "6.1", "host"};
}

CalibrationResult Recorded(Source source, double flops_ratio, double bytes_ratio) {
  CalibrationResult r;
  r.source = source;
  r.points.push_back({"flops_dp",
                      "FLOPS_DP",
                      "triad",
                      {{"n", "640"}},
                      "l1",
                      15360,
                      1280,
                      1280 * flops_ratio,
                      flops_ratio,
                      ""});
  r.points.push_back({"bytes_l2",
                      "L2",
                      "triad",
                      {{"n", "10880"}},
                      "l2",
                      261120,
                      348160,
                      348160 * bytes_ratio,
                      bytes_ratio,
                      ""});
  r.points.push_back(
      {"bytes_l2", "L2", "dot", {{"n", "16384"}}, "l2", 262144, 262144, 262144.0, 1.0, ""});
  return r;
}

TEST(CalibrationStoreTest, NewestCalibrationPerSourceDecides) {
  TempDir dir;
  RunStore store;
  Error err;
  ASSERT_TRUE(store.Open({dir.File("runs.db"), false}, &err)) << err.message;
  int64_t first = 0, second = 0, sim = 0, other = 0;
  ASSERT_TRUE(StoreCalibration(&store, Machine("m1"), "icx", Recorded(Source::kPmu, 0.5, 1.0),
                               &first, &err))
      << err.message;
  ASSERT_TRUE(StoreCalibration(&store, Machine("m1"), "icx", Recorded(Source::kPmu, 1.0, 0.75),
                               &second, &err));
  ASSERT_TRUE(StoreCalibration(&store, Machine("m1"), "rprofsim", Recorded(Source::kSim, 1.0, 1.0),
                               &sim, &err));
  ASSERT_TRUE(StoreCalibration(&store, Machine("m2"), "icx", Recorded(Source::kPmu, 0.5, 0.5),
                               &other, &err));
  EXPECT_LT(first, second);

  std::vector<MetricTrust> trust;
  ASSERT_TRUE(LoadMetricTrust(&store, "m1", &trust, &err)) << err.message;
  std::map<std::string, MetricTrust> by;  // "source metric"
  for (const MetricTrust& t : trust) by[std::string(SourceName(t.source)) + " " + t.metric] = t;
  ASSERT_EQ(by.size(), 4u);
  // The second pmu calibration replaced the first: flops now right, bytes_l2 off on one point.
  EXPECT_TRUE(by["pmu flops_dp"].trusted);
  EXPECT_FALSE(by["pmu bytes_l2"].trusted);
  EXPECT_EQ(by["pmu bytes_l2"].points, 2);
  EXPECT_DOUBLE_EQ(*by["pmu bytes_l2"].min_ratio, 0.75);
  EXPECT_DOUBLE_EQ(*by["pmu bytes_l2"].max_ratio, 1.0);
  EXPECT_TRUE(by["sim bytes_l2"].trusted);

  std::vector<MetricTrust> none;
  ASSERT_TRUE(LoadMetricTrust(&store, "never-calibrated", &none, &err));
  EXPECT_TRUE(none.empty());
}

// rprofsim and callgrind count bytes_l2 differently: the newest calibration of one simulator
// does not replace the other's verdicts, and a run takes only its own simulator's.
TEST(CalibrationStoreTest, SimVerdictsArePerSimulator) {
  TempDir dir;
  RunStore store;
  Error err;
  ASSERT_TRUE(store.Open({dir.File("runs.db"), false}, &err)) << err.message;
  int64_t id = 0;
  ASSERT_TRUE(StoreCalibration(&store, Machine("m1"), "rprofsim", Recorded(Source::kSim, 1.0, 1.0),
                               &id, &err));
  ASSERT_TRUE(StoreCalibration(&store, Machine("m1"), "callgrind",
                               Recorded(Source::kSim, 1.0, 0.75), &id, &err));
  std::vector<MetricTrust> trust;
  ASSERT_TRUE(LoadMetricTrust(&store, "m1", &trust, &err)) << err.message;
  std::map<std::string, MetricTrust> by;  // "set metric"
  for (const MetricTrust& t : trust) by[t.counter_set + " " + t.metric] = t;
  ASSERT_EQ(by.size(), 4u);
  EXPECT_TRUE(by["rprofsim bytes_l2"].trusted);
  EXPECT_FALSE(by["callgrind bytes_l2"].trusted);

  RunRecord run;
  run.metrics = {{"bytes_l2", 3000, "B", Source::kSim, "", ""}};
  TrustContext context;
  context.checked = {"bytes_l2"};
  context.calibration = trust;
  auto untrusted = [&](const std::string& simulator) {
    context.simulator = simulator;
    for (const TrustNote& n : RunTrustNotes(run, context))
      if (n.kind == "untrusted") return true;
    return false;
  };
  EXPECT_FALSE(untrusted("rprofsim"));
  EXPECT_TRUE(untrusted("callgrind"));
}

MetricGroup Group(const std::string& text, const std::string& name) {
  MetricGroup g;
  Error err;
  EXPECT_TRUE(ParseMetricGroup(text, name, name, &g, &err)) << err.message;
  return g;
}

TEST(RunTrustTest, NotesSayWhatIsLessThanExact) {
  GroupPlan plan;
  plan.pmu = "icx";
  plan.groups.push_back(
      Group("FORMAT 1\nSHORT DRAM bytes\nPMU icx\n\nEVENTS\nllc  icx::LONGEST_LAT_CACHE:MISS\n\n"
            "METRICS\nbytes_dram [B] = 64 * llc\n    approximation: LLC misses x 64\n",
            "MEM"));
  RunRecord run;
  run.metrics = {
      {"bytes_dram", 6400, "B", Source::kPmu, "", "group MEM: 64 * llc; LLC misses x 64", 0.5,
       "MEM"},
      {"icx::LONGEST_LAT_CACHE:MISS", 100, "count", Source::kPmu, "", "multiplexed", 0.5},
      {"PAPI_TOT_CYC", std::nullopt, "count", Source::kPmu, "", "no counter left"},
      {"flops_dp", 1000, "FLOP", Source::kPmu, "", "group FLOPS_DP: ...", std::nullopt, "FLOPS_DP"},
      {"bytes_l2", 3000, "B", Source::kSim, "", ""},
      {"flops_dp", 1000, "FLOP", Source::kModel, "", ""},
  };
  TrustContext context;
  context.groups = &plan;
  context.virtual_machine = true;
  context.checked = {"flops_dp", "bytes_dram", "bytes_l2"};
  MetricTrust off;
  off.source = Source::kSim;
  off.metric = "bytes_l2";
  off.trusted = false;
  off.min_ratio = 0.75;
  off.max_ratio = 1.0;
  off.points = 6;
  off.measured_points = 6;
  off.created_at = "2026-11-30T03:00:00.000Z";
  context.calibration = {off};

  std::map<std::string, std::string> notes;
  for (const TrustNote& n : RunTrustNotes(run, context)) notes[n.kind] = n.detail;
  ASSERT_EQ(notes.size(), 6u) << ::testing::PrintToString(notes);
  EXPECT_NE(notes["multiplexed"].find("least: bytes_dram, 50 %"), std::string::npos);
  EXPECT_EQ(notes["approximated"].rfind("bytes_dram:", 0), 0u);
  EXPECT_NE(notes["events_missing"].find("PAPI_TOT_CYC"), std::string::npos);
  EXPECT_NE(notes["hypervisor"].find("virtual machine"), std::string::npos);
  EXPECT_EQ(notes["untrusted"].rfind("bytes_l2 (sim) is untrusted on this machine: rprof "
                                     "calibrate 2026-11-30 measured 0.75 to 1",
                                     0),
            0u)
      << notes["untrusted"];
  // pmu values with no pmu calibration at all.
  EXPECT_EQ(notes["uncalibrated"].rfind("bytes_dram, flops_dp: this machine's counters were "
                                        "never calibrated",
                                        0),
            0u)
      << notes["uncalibrated"];
}

// Uncore and group provenance come from the metric's fields, not from its note's wording.
TEST(RunTrustTest, UncoreAndApproximationAreReadFromFieldsNotNotes) {
  GroupPlan plan;
  plan.pmu = "icx";
  plan.groups.push_back(
      Group("FORMAT 1\nSHORT DRAM bytes\nPMU icx\n\nEVENTS\nllc  icx::LONGEST_LAT_CACHE:MISS\n\n"
            "METRICS\nbytes_dram [B] = 64 * llc\n    approximation: LLC misses x 64\n",
            "MEM"));
  RunRecord run;
  Metric imc{"icx_unc_imc0::CAS_COUNT:RD", 10, "count", Source::kPmu, "", "reworded note"};
  imc.socket_wide = true;
  Metric dram{"bytes_dram", 640, "B", Source::kPmu, "", "a note that names no group"};
  dram.group = "MEM";
  Metric worded{"flops", 5, "FLOP", Source::kPmu, "", "socket-wide: group MEM: 64 * llc"};
  run.metrics = {imc, dram, worded};
  TrustContext context;
  context.groups = &plan;
  std::map<std::string, std::string> notes;
  for (const TrustNote& n : RunTrustNotes(run, context)) notes[n.kind] = n.detail;
  EXPECT_EQ(notes["uncore"].rfind("icx_unc_imc0::CAS_COUNT:RD:", 0), 0u) << notes["uncore"];
  EXPECT_EQ(notes["approximated"].rfind("bytes_dram:", 0), 0u) << notes["approximated"];
  EXPECT_EQ(notes["uncore"].find("flops"), std::string::npos) << notes["uncore"];
}

TEST(RunTrustTest, RegionsRepeatingAMetricGiveOneNote) {
  RunRecord run;
  for (const char* region : {"", "a", "b"})
    run.metrics.push_back({"bytes_l2", 3000, "B", Source::kSim, region, ""});
  TrustContext context;
  context.checked = {"bytes_l2"};
  MetricTrust off;
  off.source = Source::kSim;
  off.metric = "bytes_l2";
  off.min_ratio = off.max_ratio = 0.75;
  off.points = off.measured_points = 1;
  context.calibration = {off};
  std::vector<TrustNote> notes = RunTrustNotes(run, context);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].kind, "untrusted");
}

// A machine without a PMU, as DiagnosePmu finds a VM without vPMU.
PmuDiagnosis NoPmu() {
  PmuDiagnosis d;
  d.virtual_machine = true;
  d.cause = "no hardware PMU in this virtual machine";
  d.sim_helps = true;
  d.other_remedy = "enable the virtual PMU in the hypervisor";
  d.remedy = PmuRemedy(d, SimOutcome::kNotAsked);
  return d;
}

TEST(PmuRemedyTest, AdvisesSimOnlyToARunSimDidNotCount) {
  PmuDiagnosis d = NoPmu();
  EXPECT_EQ(d.remedy, "run with --counters sim, or enable the virtual PMU in the hypervisor");
  EXPECT_EQ(PmuRemedy(d, SimOutcome::kCounted),
            "sim counted this run instead; for hardware counts, enable the virtual PMU in the "
            "hypervisor");
  d.other_remedy.clear();  // perf_event_open failed otherwise: sim is the only way out
  EXPECT_EQ(PmuRemedy(d, SimOutcome::kNotAsked), "run with --counters sim");
  EXPECT_EQ(PmuRemedy(d, SimOutcome::kCounted), "sim counted this run instead");
  // Asked for and refused (an AVX-512 instruction valgrind cannot run): never advised again.
  EXPECT_EQ(PmuRemedy(d, SimOutcome::kGaveNothing),
            "sim was asked for and gave no counts for this run (its note says why)");
  // perf_event_paranoid: sim is not the advice at all.
  PmuDiagnosis paranoid;
  paranoid.other_remedy = "sudo sysctl kernel.perf_event_paranoid=1";
  EXPECT_EQ(PmuRemedy(paranoid, SimOutcome::kNotAsked), paranoid.other_remedy);
  EXPECT_EQ(PmuRemedy(paranoid, SimOutcome::kCounted), paranoid.other_remedy);
}

// Issue 13: a --counters sim run carried "events_missing … run with --counters sim". The advice
// follows what the run did, read from its metrics' sources, never from a note's words.
TEST(RunTrustTest, MissingEventsNeverAdviseSimToARunSimCounted) {
  PmuDiagnosis d = NoPmu();
  std::string pmu_note = d.cause + "; " + d.remedy;  // what the pmu source wrote
  RunRecord run;
  run.metrics = {{"PAPI_TOT_INS", std::nullopt, "count", Source::kPmu, "", pmu_note},
                 {"perf::TASK-CLOCK", 1e6, "ns", Source::kPmu, "", ""},
                 {"flops_dp", 2000, "FLOP", Source::kSim, "", ""}};
  TrustContext context;
  context.pmu = &d;
  std::map<std::string, std::string> notes;
  for (const TrustNote& n : RunTrustNotes(run, context)) notes[n.kind] = n.detail;
  ASSERT_EQ(notes.count("events_missing"), 1u);
  const std::string& detail = notes["events_missing"];
  EXPECT_EQ(detail.find("--counters sim"), std::string::npos) << detail;
  EXPECT_NE(detail.find("PAPI_TOT_INS"), std::string::npos) << detail;
  EXPECT_NE(detail.find("no hardware PMU in this virtual machine"), std::string::npos) << detail;
  EXPECT_NE(detail.find("sim counted this run instead"), std::string::npos) << detail;
  EXPECT_NE(detail.find("enable the virtual PMU"), std::string::npos) << detail;

  // The same run without sim values (auto skipped it): sim is the advice.
  run.metrics.pop_back();
  notes.clear();
  for (const TrustNote& n : RunTrustNotes(run, context)) notes[n.kind] = n.detail;
  EXPECT_NE(notes["events_missing"].find("run with --counters sim"), std::string::npos)
      << notes["events_missing"];

  // A sim metric that has no value did not count the run either.
  run.metrics.push_back({"flops_dp", std::nullopt, "FLOP", Source::kSim, "", "not counted"});
  notes.clear();
  for (const TrustNote& n : RunTrustNotes(run, context)) notes[n.kind] = n.detail;
  EXPECT_NE(notes["events_missing"].find("run with --counters sim"), std::string::npos)
      << notes["events_missing"];
}

TEST(RunTrustTest, MissingEventsOnAMachineWithAPmuKeepTheirOwnReason) {
  PmuDiagnosis d;
  d.hardware_counters = true;
  RunRecord run;
  run.metrics = {{"PAPI_TOT_CYC", std::nullopt, "count", Source::kPmu, "", "no counter left"},
                 {"flops_dp", 2000, "FLOP", Source::kSim, "", ""}};
  TrustContext context;
  context.pmu = &d;
  std::map<std::string, std::string> notes;
  for (const TrustNote& n : RunTrustNotes(run, context)) notes[n.kind] = n.detail;
  EXPECT_NE(notes["events_missing"].find(": no counter left"), std::string::npos)
      << notes["events_missing"];
}

TEST(RunTrustTest, AnExactRunHasNoNotes) {
  RunRecord run;
  run.metrics = {{"perf::TASK-CLOCK", 1e6, "ns", Source::kPmu, "", ""},
                 {"flops_dp", 1000, "FLOP", Source::kSim, "", ""}};
  TrustContext context;
  context.virtual_machine = true;  // software events only: nothing the hypervisor touches
  context.checked = {"flops_dp"};
  MetricTrust ok;
  ok.source = Source::kSim;
  ok.metric = "flops_dp";
  ok.trusted = true;
  context.calibration = {ok};
  EXPECT_TRUE(RunTrustNotes(run, context).empty());
}

}  // namespace
}  // namespace rprof
