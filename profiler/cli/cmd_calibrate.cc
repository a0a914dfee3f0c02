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
#include "machine/current_machine.h"
#include "cli/options.h"
#include "core/json.h"
#include "counters/group_session.h"
#include "counters/groups_location.h"
#include "counters/pmu/group_library.h"
#include "counters/pmu/pfm_events.h"
#include "counters/pmu_diagnosis.h"
#include "counters/sim_source.h"
#include "machine/hierarchy.h"
#include "machine/topology.h"
#include "report/text_table.h"
#include "store/run_store.h"
#include "targets/kernel_catalog.h"
#include "counters/source_registry.h"
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
    std::string why;
    if (!library.LoadGroup(out->pmu, name, &group, &why))
      return Fail(err, wanted.empty() ? ErrorKind::kEnvironment : ErrorKind::kUsage,
                  "--group " + name + " (" + out->pmu + "): " + why);
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
  if (!Measure(target, sources, request, &run, err)) return false;
  if (run.status != RunStatus::kOk)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("calibration kernel ") + task.entry->kernel->name + " " +
                    RunStatusName(run.status) + ": " + run.note);
  *out = std::move(run.metrics);
  return true;
}

void PrintResult(const CalibrationResult& result, int64_t id, OutputFormat format) {
  std::vector<MetricVerdict> verdicts = Verdicts(result);
  if (format == OutputFormat::kJson) {
    JsonWriter w;
    w.BeginObject();
    w.Key("calibration_id").Int(id);
    w.Key("source").String(SourceName(result.source));
    w.Key("tolerance_pct").Number(result.tolerance_pct);
    w.Key("points").BeginArray();
    for (const CalibrationPoint& p : result.points) {
      w.BeginObject();
      w.Key("metric").String(p.metric);
      w.Key("group").String(p.group);
      w.Key("kernel").String(p.kernel);
      w.Key("params").Raw(PairsToJsonObject(p.params));
      w.Key("level").String(p.level);
      w.Key("working_set_bytes").Int(static_cast<long long>(p.working_set_bytes));
      w.Key("expected").Number(p.expected);
      w.Key("measured").OptionalNumber(p.measured);
      w.Key("ratio").OptionalNumber(p.ratio);
      if (!p.note.empty()) w.Key("note").String(p.note);
      w.EndObject();
    }
    w.EndArray();
    w.Key("metrics").BeginObject();
    for (const MetricVerdict& v : verdicts) {
      w.Key(v.metric).BeginObject();
      w.Key("trusted").Bool(v.trusted);
      w.Key("min_ratio").OptionalNumber(v.min_ratio);
      w.Key("max_ratio").OptionalNumber(v.max_ratio);
      w.Key("points").Int(v.points);
      w.EndObject();
    }
    w.EndObject();
    w.Key("skipped").BeginArray();
    for (const std::string& s : result.skipped) w.String(s);
    w.EndArray();
    w.EndObject();
    std::cout << w.str() << "\n";
    return;
  }
  if (format == OutputFormat::kCsv) {
    std::cout << "metric,group,kernel,level,working_set_bytes,expected,measured,ratio,note\n";
    for (const CalibrationPoint& p : result.points)
      std::cout << p.metric << "," << p.group << "," << p.kernel << "," << p.level << ","
                << p.working_set_bytes << "," << JsonNumber(p.expected) << ","
                << (p.measured ? JsonNumber(*p.measured) : "") << ","
                << (p.ratio ? JsonNumber(*p.ratio) : "") << "," << CsvField(p.note) << "\n";
    return;
  }
  TextTable points({"metric", "group", "kernel", "level", "working set", "expected", "measured",
                    "ratio", "note"},
                   {false, false, false, false, true, true, true, true, false});
  for (const CalibrationPoint& p : result.points)
    points.AddRow({p.metric, p.group, p.kernel, p.level, FormatBytes(p.working_set_bytes),
                   FormatValue(p.expected), FormatValue(p.measured), RatioText(p.ratio), p.note});
  std::cout << points.Render() << "\n";
  char tolerance[32];
  std::snprintf(tolerance, sizeof tolerance, "%g %%", result.tolerance_pct);
  TextTable summary({"metric", "points", "measured / expected", "verdict"},
                    {false, true, false, false});
  for (const MetricVerdict& v : verdicts)
    summary.AddRow({v.metric, std::to_string(v.points), RangeText(v.min_ratio, v.max_ratio),
                    v.trusted ? std::string("trusted") : std::string("UNTRUSTED (beyond ") +
                                                             tolerance + ")"});
  std::cout << summary.Render();
  for (const std::string& s : result.skipped) std::cout << "not calibrated: " << s << "\n";
  std::cout << "stored as calibration " << id << " (" << SourceName(result.source)
            << "); runs on this machine now carry its verdicts in their trust notes\n";
}

bool ShowStored(RunStore* store, OutputFormat format, Error* err) {
  std::vector<MetricTrust> trust;
  if (!LoadMetricTrust(store, CurrentMachine().fingerprint, &trust, err)) return false;
  if (format == OutputFormat::kJson) {
    JsonWriter w;
    w.BeginArray();
    for (const MetricTrust& t : trust) {
      w.BeginObject();
      w.Key("source").String(SourceName(t.source));
      w.Key("metric").String(t.metric);
      w.Key("trusted").Bool(t.trusted);
      w.Key("min_ratio").OptionalNumber(t.min_ratio);
      w.Key("max_ratio").OptionalNumber(t.max_ratio);
      w.Key("points").Int(t.points);
      w.Key("calibrated_at").String(t.created_at);
      w.EndObject();
    }
    w.EndArray();
    std::cout << w.str() << "\n";
    return true;
  }
  if (trust.empty()) {
    std::cout << "this machine was never calibrated: rprof calibrate (pmu) or rprof calibrate "
                 "--counters sim\n";
    return true;
  }
  TextTable table({"source", "metric", "points", "measured / expected", "verdict", "calibrated"},
                  {false, false, true, false, false, false});
  for (const MetricTrust& t : trust)
    table.AddRow({std::string(SourceName(t.source)), t.metric, std::to_string(t.points),
                  RangeText(t.min_ratio, t.max_ratio), t.trusted ? "trusted" : "UNTRUSTED",
                  t.created_at});
  std::cout << table.Render();
  return true;
}

}  // namespace

bool CalibrateCommand(const GlobalOptions& global, const std::vector<std::string>& args,
                      Error* err) {
  po::options_description options("calibrate options");
  std::string counters = "pmu", groups_text, levels_text, format_text = "table";
  double tolerance = 5, min_time = 0.2;
  options.add_options()("help,h", "show this help")(
      "counters,c", po::value(&counters), "the source to calibrate: pmu (default) or sim")(
      "group,g", po::value(&groups_text),
      "pmu: only these metric groups (comma-separated); default every group of this machine")(
      "levels,l", po::value(&levels_text),
      "only these memory levels (comma-separated: l1,l2,l3,dram); default all")(
      "tolerance", po::value(&tolerance),
      "largest |measured / expected - 1| of a trusted metric, percent (default 5)")(
      "min-time", po::value(&min_time), "pmu: seconds each kernel is measured (default 0.2)")(
      "show", "print this machine's stored verdicts and measure nothing")(
      "format,f", po::value(&format_text), "table, csv or json");
  po::variables_map vm;
  if (!ParseCommandLine("calibrate", args, options, {}, &vm, err)) return false;
  if (vm.count("help")) {
    PrintCommandHelp(
        "calibrate", "[--counters pmu|sim] [--group G,...] [--levels l1,...] [--show]",
        "Runs built-in kernels whose FLOPs, bytes and misses are known (the calibration plan, "
        "calibration_plan.txt) at working sets that live in L1, L2, L3 and DRAM, counts them "
        "with each metric group of this machine (or under valgrind with --counters sim), and "
        "stores measured / expected per metric for this machine. A metric off by more than "
        "the tolerance anywhere is untrusted: every later run here says so in its trust notes.",
        options);
    return true;
  }
  OutputFormat format;
  if (!ParseFormatOption(format_text, &format, err)) return false;
  if (counters != "pmu" && counters != "sim")
    return Fail(err, ErrorKind::kUsage,
                "--counters " + counters +
                    ": calibrate checks pmu or sim (the model is what "
                    "they are checked against)");
  if (counters == "sim" && vm.count("group"))
    return Fail(err, ErrorKind::kUsage, "--group applies to the pmu source, not sim");
  if (!(tolerance > 0)) return Fail(err, ErrorKind::kUsage, "--tolerance must be above 0");
  std::vector<std::string> levels, groups;
  if (!SplitList("--levels", levels_text, &levels, err) ||
      !SplitList("--group", groups_text, &groups, err))
    return false;
  for (const std::string& l : levels)
    if (l != "l1" && l != "l2" && l != "l3" && l != "dram")
      return Fail(err, ErrorKind::kUsage, "--levels " + l + ": the levels are l1, l2, l3 and dram");

  RunStore store;
  if (!store.Open(ResolveDatabasePath(global.db), err)) return false;
  if (vm.count("show")) return ShowStored(&store, format, err);

  std::vector<CalibrationCheck> plan;
  std::string why;
  if (!LoadCalibrationPlan(&plan, &why)) return Fail(err, ErrorKind::kEnvironment, why);

  CalibrationRequest request;
  request.levels = levels;
  request.tolerance_pct = tolerance;
  request.progress = [&](const CalibrationTask& t) {
    if (format != OutputFormat::kTable) return;
    std::string params;
    for (const auto& [k, v] : t.params) params += " " + k + "=" + v;
    std::fprintf(stderr, "calibrate: %s%s (%s, %s)%s\n", t.entry->kernel->name, params.c_str(),
                 t.level.c_str(), FormatBytes(t.working_set_bytes).c_str(),
                 t.group.empty() ? " under valgrind" : (" with " + t.group).c_str());
  };
  CalibrationMeasure measure;
  PmuGroups pmu;
  if (counters == "pmu") {
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
    measure = [](const CalibrationTask& t, std::vector<Metric>* out, Error* e) {
      return SimulateKernel(CountedKernel(*t.entry, t.args), out, e);
    };
  }

  CalibrationResult result;
  std::vector<CalibrationLevel> machine_levels = CalibrationLevels(DataCaches(ReadTopology()));
  if (!Calibrate(plan, machine_levels, BuiltinCatalog(), request, measure, &result, err))
    return false;
  if (result.points.empty())
    return Fail(err, ErrorKind::kEnvironment,
                "calibrate: nothing to calibrate on this machine (" +
                    (result.skipped.empty() ? std::string("no checks") : result.skipped[0]) +
                    "); nothing stored");
  int64_t id = 0;
  if (!StoreCalibration(&store, CurrentMachine(), counters == "pmu" ? pmu.pmu : "", result, &id,
                        err))
    return false;
  PrintResult(result, id, format);
  return true;
}

}  // namespace rprof
