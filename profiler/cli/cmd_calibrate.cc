// rprof calibrate: the built-in kernels whose counts are known (calibration_plan.txt) at working
// sets that live in L1, L2, L3 and DRAM, counted with each metric group of this machine (pmu) or
// under valgrind (sim); measured / expected per metric is stored for this machine, and a metric
// off by more than the tolerance is shown as untrusted in every later run here.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "calibrate/calibration.h"
#include "calibrate/calibration_plan.h"
#include "calibrate/calibration_store.h"
#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/options.h"
#include "core/json.h"
#include "core/memory_level.h"
#include "counters/group_session.h"
#include "counters/groups_location.h"
#include "counters/pmu/group_library.h"
#include "counters/pmu/pfm_events.h"
#include "counters/pmu_diagnosis.h"
#include "counters/sim_cache_sizes.h"
#include "counters/sim_source.h"
#include "counters/source_registry.h"
#include "machine/current_machine.h"
#include "machine/hierarchy.h"
#include "machine/topology.h"
#include "pipeline/sim_inputs.h"
#include "report/render.h"
#include "store/run_store.h"
#include "targets/kernel_catalog.h"
#include "targets/kernel_target.h"
#include "targets/measure.h"

namespace rprof {

namespace {

std::string RatioText(const std::optional<double>& r) {
  if (!r) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", *r);
  return text;
}

std::string RangeText(const std::optional<double>& lo, const std::optional<double>& hi) {
  if (!lo) return "";
  std::string low = RatioText(lo), high = RatioText(hi);
  return low == high ? low : low + " to " + high;
}

// For each metric, the first group of this machine's set (in `wanted` order when given, else
// the library's) that defines it. Groups that do not load are left out and said so.
struct PmuGroups {
  std::string pmu;
  std::map<std::string, std::string> group_of;  // metric → group
};

bool FindPmuGroups(const std::vector<std::string>& wanted, PmuGroups* out, Error* err) {
  GroupLibrary library(GroupsDataDir());
  out->pmu = library.ResolvePmu(HostCorePmuName());
  std::vector<std::string> names = wanted.empty() ? library.ListGroups(out->pmu) : wanted;
  for (const std::string& name : names) {
    MetricGroup group;
    Error why;
    if (!library.LoadGroup(out->pmu, name, &group, &why))
      return Fail(err, wanted.empty() ? ErrorKind::kEnvironment : ErrorKind::kUsage,
                  "--group " + name + " (" + out->pmu + "): " + why.message);
    for (const GroupMetric& m : group.metrics) out->group_of.emplace(m.name, group.name);
  }
  return true;
}

// Counts one task with its group on the pmu source: a normal kernel run, not stored.
bool MeasureWithGroup(const CalibrationTask& task, double min_time_s, std::vector<Metric>* out,
                      Error* err) {
  GroupPlan plan;
  if (!LoadGroupPlan({task.group}, &plan, err)) return false;
  CounterRequest request;
  request.groups = &plan;
  // Only the group's events: the default ones would take counters and could force passes.
  request.events_given = true;
  MeasureOptions measure;
  measure.min_time_s = min_time_s;
  KernelTarget target(*task.entry, task.args, task.params, measure);
  std::vector<ChosenSource> sources;
  if (!ChooseSources(SourceName(Source::kPmu), &sources, err)) return false;
  RunRecord run;
  std::vector<SourceFailure> failed;
  if (!Measure(target, sources, request, &run, &failed, err)) return false;
  if (!failed.empty()) {
    *err = failed.front().error;
    return false;
  }
  if (run.status != RunStatus::kOk)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("calibration kernel ") + task.entry->kernel->name + " " +
                    RunStatusName(run.status) + ": " + run.note);
  *out = std::move(run.metrics);
  return true;
}

void PrintResult(const CalibrationResult& result, int64_t id, OutputFormat format,
                 size_t text_width) {
  Report report;
  report.AddField("calibration_id", Cell::Int(id));
  report.AddField("source", Cell::Text(SourceName(result.source)));
  report.AddField("tolerance_pct", Cell::Number(result.tolerance_pct));
  Table& points = report.AddTable({{"metric", "metric"},
                                   {"group", "group"},
                                   {"kernel", "kernel"},
                                   {"params", "", Align::kLeft, kInJson},
                                   {"level", "level"},
                                   {"working_set_bytes", "working set", Align::kRight},
                                   {"expected", "expected", Align::kRight},
                                   {"measured", "measured", Align::kRight},
                                   {"ratio", "ratio", Align::kRight},
                                   Column("note", "note").OmitNullInJson()},
                                  kInAll, "points");
  for (const CalibrationPoint& p : result.points)
    points.AddRow(
        {Cell::Text(p.metric), Cell::Text(p.group), Cell::Text(p.kernel),
         Cell::Json(PairsToJsonObject(p.params), ""), Cell::Text(p.level),
         Cell::Number(static_cast<double>(p.working_set_bytes), FormatBytes(p.working_set_bytes)),
         Cell::Number(p.expected), Cell::Number(p.measured),
         Cell::Number(p.ratio, RatioText(p.ratio)), Cell::TextOrNull(p.note)});
  report.AddText("\n");

  // Per metric: the verdict people read, the ratios scripts check.
  char tolerance[32];
  std::snprintf(tolerance, sizeof tolerance, "%g %%", result.tolerance_pct);
  Table& metrics = report.AddTable({{"metric", "metric"},
                                    {"trusted", "", Align::kLeft, kInJson},
                                    {"min_ratio", "", Align::kLeft, kInJson},
                                    {"max_ratio", "", Align::kLeft, kInJson},
                                    {"points", "points", Align::kRight},
                                    {"range", "measured / expected", Align::kLeft, kInText},
                                    {"verdict", "verdict", Align::kLeft, kInText}},
                                   kInText | kInJson, "metrics");
  metrics.KeyJsonByFirstColumn();
  for (const MetricVerdict& v : Verdicts(result))
    metrics.AddRow({Cell::Text(v.metric), Cell::Bool(v.trusted), Cell::Number(v.min_ratio),
                    Cell::Number(v.max_ratio), Cell::Int(v.points),
                    Cell::Text(RangeText(v.min_ratio, v.max_ratio)),
                    Cell::Text(v.trusted ? std::string("trusted")
                                         : std::string("UNTRUSTED (beyond ") + tolerance + ")")});
  report.AddField("skipped", Cell::List(result.skipped));
  std::string done;
  for (const std::string& s : result.skipped) done += "not calibrated: " + s + "\n";
  done += "stored as calibration " + std::to_string(id) + " (" +
          std::string(SourceName(result.source)) +
          "); runs on this machine now carry its verdicts in their trust notes\n";
  report.AddText(done);
  std::cout << Render(report, format, text_width);
}

bool ShowStored(RunStore* store, OutputFormat format, size_t text_width, Error* err) {
  std::vector<MetricTrust> trust;
  if (!LoadMetricTrust(store, CurrentMachine().fingerprint, &trust, err)) return false;
  Report report;
  if (trust.empty())
    report.AddText(
        "this machine was never calibrated: rprof calibrate (pmu) or rprof calibrate "
        "--counters sim\n");
  Table& table = report.AddTable({{"source", "source"},
                                  {"counter_set", "checked with"},
                                  {"metric", "metric"},
                                  {"trusted", "", Align::kLeft, kInData},
                                  {"min_ratio", "", Align::kLeft, kInData},
                                  {"max_ratio", "", Align::kLeft, kInData},
                                  {"points", "points", Align::kRight},
                                  {"range", "measured / expected", Align::kLeft, kInText},
                                  {"verdict", "verdict", Align::kLeft, kInText},
                                  {"calibrated_at", "calibrated"}},
                                 trust.empty() ? kInData : kInAll);
  for (const MetricTrust& t : trust)
    table.AddRow({Cell::Text(SourceName(t.source)), Cell::Text(t.counter_set), Cell::Text(t.metric),
                  Cell::Bool(t.trusted), Cell::Number(t.min_ratio), Cell::Number(t.max_ratio),
                  Cell::Int(t.points), Cell::Text(RangeText(t.min_ratio, t.max_ratio)),
                  Cell::Text(t.trusted ? "trusted" : "UNTRUSTED"), Cell::Text(t.created_at)});
  std::cout << Render(report, format, text_width);
  return true;
}

}  // namespace

bool CalibrateCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl(
      "calibrate", "[--counters pmu|sim] [--group G,...] [--levels l1,...] [--show]",
      "Runs built-in kernels whose FLOPs, bytes and misses are known (the calibration plan, "
      "calibration_plan.txt) at working sets that live in L1, L2, L3 and DRAM, counts them with "
      "each metric group of this machine (or under valgrind with --counters sim), and stores "
      "measured / expected per metric for this machine. A metric off by more than the "
      "tolerance anywhere is untrusted: every later run here says so in its trust notes.");
  std::string counters(SourceName(Source::kPmu)), groups_text, levels_text, sim_cache = "measured";
  double tolerance = 5, min_time = 0.2;
  cl.Add("counters,c", po::value(&counters), "the source to calibrate: pmu (default) or sim");
  cl.Add("group,g", po::value(&groups_text),
         "pmu: only these metric groups (comma-separated); default every group of this machine");
  cl.Add("levels,l", po::value(&levels_text),
         "only these memory levels (comma-separated: l1,l2,l3,dram); default all");
  cl.Add("tolerance", po::value(&tolerance),
         "largest |measured / expected - 1| of a trusted metric, percent (default 5)");
  cl.Add("min-time", po::value(&min_time), "pmu: seconds each kernel is measured (default 0.2)");
  cl.Add("sim-cache", po::value(&sim_cache),
         "sim: the cache sizes to simulate and size the working sets by: measured (default: the "
         "size this machine's newest profile gives each level, the reported one unless a "
         "sound, repeated measurement replaced it), reported "
         "(sysfs's), or sizes given as l1=48K,l2=2M,l3=32M (any of them; bytes, K, M or G, "
         "binary; l3 is the last level; the levels not named as measured)");
  cl.Add("show", "print this machine's stored verdicts and measure nothing");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  OutputFormat format = cl.format();
  std::optional<Source> parsed = ParseSource(counters);
  if (!parsed || !IsCalibratable(*parsed))
    return Fail(err, ErrorKind::kUsage,
                "--counters " + counters + ": calibrate checks " + CalibratableSourceChoices() +
                    " (the model is what they are checked against)");
  const Source source = *parsed;
  if (source != Source::kPmu && cl.Has("group"))
    return Fail(err, ErrorKind::kUsage,
                "--group applies to the pmu source, not " + std::string(SourceName(source)));
  if (!(tolerance > 0)) return Fail(err, ErrorKind::kUsage, "--tolerance must be above 0");
  SimCacheChoice sim_cache_choice;
  if (!ParseSimCacheChoice(sim_cache, &sim_cache_choice, err)) return false;
  std::vector<std::string> levels, groups;
  if ((cl.Has("levels") && !SplitList("--levels", levels_text, &levels, err)) ||
      (cl.Has("group") && !SplitList("--group", groups_text, &groups, err)))
    return false;
  for (const std::string& l : levels)
    if (!ParseMemoryLevel(l))
      return Fail(err, ErrorKind::kUsage, "--levels " + l + ": use " + MemoryLevelChoices());

  // --show only reads what calibrate stored (the table's modes).
  if (cl.Has("show")) context.EnterMode("--show");
  RunStore* opened = context.Store(err);
  if (!opened) return false;
  if (cl.Has("show")) return ShowStored(opened, format, cl.text_width(), err);
  RunStore& store = *opened;

  std::vector<CalibrationCheck> plan;
  if (!LoadCalibrationPlan(&plan, err)) return false;

  CalibrationRequest request;
  request.levels = levels;
  request.tolerance_pct = tolerance;
  request.progress = [&](const CalibrationTask& t) {
    if (!ForPeople(format)) return;
    std::string params;
    for (const auto& [k, v] : t.params) params += " " + k + "=" + v;
    std::fprintf(stderr, "calibrate: %s%s (%s, %s)%s\n", t.entry->kernel->name, params.c_str(),
                 t.level.c_str(), FormatBytes(t.working_set_bytes).c_str(),
                 t.group.empty() ? " under valgrind" : (" with " + t.group).c_str());
  };
  CalibrationMeasure measure;
  PmuGroups pmu;
  CacheSizes sim_caches;
  if (source == Source::kPmu) {
    const PmuDiagnosis& d = DiagnosePmu();
    if (!d.hardware_counters)
      return Fail(err, ErrorKind::kEnvironment,
                  "calibrate: this machine's hardware counters cannot be opened: " + d.cause +
                      "; " + d.remedy +
                      ". `rprof calibrate --counters sim` calibrates the simulator instead");
    if (!FindPmuGroups(groups, &pmu, err)) return false;
    request.source = Source::kPmu;
    request.group_of = [&](const std::string& metric) {
      auto it = pmu.group_of.find(metric);
      return it == pmu.group_of.end() ? std::string() : it->second;
    };
    measure = [&](const CalibrationTask& t, std::vector<Metric>* out, Error* e) {
      return MeasureWithGroup(t, min_time, out, e);
    };
  } else {
    if (Availability sim = FindCounterSource(Source::kSim)->Probe(); !sim.available)
      return Fail(err, ErrorKind::kEnvironment, "calibrate --counters sim: " + sim.Text());
    request.source = Source::kSim;
    if (!ChooseSimCacheSizes(&store, CurrentMachine().fingerprint, sim_cache_choice, &sim_caches,
                             err))
      return false;
    measure = [&](const CalibrationTask& t, std::vector<Metric>* out, Error* e) {
      // The caches simulated are those the plan sizes its kernels to (CalibrationLevels).
      return SimulateKernel(CountedKernel(*t.entry, t.args), sim_caches, out, e);
    };
  }

  CalibrationResult result;
  std::vector<CacheLevel> data_caches = DataCaches(ReadTopology());
  if (source == Source::kSim && !data_caches.empty()) {
    if (sim_caches.l1d_bytes > 0) data_caches.front().size_bytes = sim_caches.l1d_bytes;
    if (sim_caches.llc_bytes > 0 && data_caches.size() > 1)
      data_caches.back().size_bytes = sim_caches.llc_bytes;
    if (sim_caches.l2_bytes > 0 && data_caches.size() > 2 && data_caches[1].level == 2)
      data_caches[1].size_bytes = sim_caches.l2_bytes;
    if (ForPeople(format))
      std::fprintf(stderr, "calibrate: simulated cache sizes %s\n", sim_caches.origin.c_str());
  }
  std::vector<CalibrationLevel> machine_levels = CalibrationLevels(data_caches);
  if (!Calibrate(plan, machine_levels, BuiltinCatalog(), request, measure, &result, err))
    return false;
  if (result.points.empty())
    return Fail(err, ErrorKind::kEnvironment,
                "calibrate: nothing to calibrate on this machine (" +
                    (result.skipped.empty() ? std::string("no checks") : result.skipped[0]) +
                    "); nothing stored");
  int64_t id = 0;
  std::string counter_set = source == Source::kPmu ? pmu.pmu : SimulatorName();
  if (!StoreCalibration(&store, CurrentMachine(), counter_set, result, &id, err)) return false;
  PrintResult(result, id, format, cl.text_width());
  return true;
}

}  // namespace rprof
