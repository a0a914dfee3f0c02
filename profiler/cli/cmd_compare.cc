// rprof compare A B: two runs metric by metric, B relative to A, with where each stands on its
// roofline; --fail-if-slower makes it a CI gate.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/compare_invocations.h"
#include "cli/options.h"
#include "core/stats.h"
#include "core/target_kind.h"
#include "report/render.h"
#include "report/run_report.h"
#include "report/text_table.h"
#include "roofline/stored_run_placement.h"
#include "store/run_store.h"

namespace rprof {

namespace {

// A program's target as it would be stored today: runs stored before targets were canonical
// hold the path as typed, relative to their cwd.
std::string CanonicalTarget(const RunRecord& run) {
  if (!TargetKindTraits(run.target_kind).whole_process || run.target.empty() ||
      run.target[0] == '/' || run.target.find('/') == std::string::npos || run.cwd.empty())
    return run.target;
  return std::filesystem::path(run.cwd + "/" + run.target).lexically_normal().string();
}

// What a run measured, in words: "triad n=1000", "/usr/bin/app -s 3".
std::string MeasuredText(const RunRecord& run) {
  std::vector<std::string> parts = {CanonicalTarget(run)};
  // A kernel's .so, a benchmark instance's binary: the same name from another file is another.
  if (TargetKindTraits(run.target_kind).named_by_instance && !run.command.empty())
    parts.push_back("(" + run.command.front() + ")");
  const bool arguments = TargetKindTraits(run.target_kind).whole_process;
  for (size_t i = 1; arguments && i < run.command.size(); ++i) parts.push_back(run.command[i]);
  if (!run.params.empty()) parts.push_back(ParamsText(run.params));
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += ' ';
    out += EscapeForTerminal(part);  // the user's text, escaped as table cells are
  }
  return out;
}

// Why runs a and b did not measure the same thing, or "" when they did: the same kernel (of the
// same plugin) or benchmark instance (of the same binary) with the same parameters, or the same
// program with the same arguments.
std::string Difference(const RunRecord& a, const RunRecord& b) {
  if (a.target_kind != b.target_kind || CanonicalTarget(a) != CanonicalTarget(b))
    return "different targets";
  // The file the kernel or instance came from, not how it was run (a benchmark's flags).
  auto file = [](const RunRecord& r) -> std::string {
    return r.command.empty() ? "" : r.command.front();
  };
  if (TargetKindTraits(a.target_kind).named_by_instance && file(a) != file(b))
    return "the same name from different files";
  if (a.params != b.params) return "different parameters";
  // A program's arguments are its parameters; argv[0] is only how it was typed.
  auto arguments = [](const RunRecord& r) {
    return r.command.size() < 2 ? std::vector<std::string>()
                                : std::vector<std::string>(r.command.begin() + 1, r.command.end());
  };
  if (TargetKindTraits(a.target_kind).whole_process && arguments(a) != arguments(b))
    return "different program arguments";
  return "";
}

}  // namespace

bool CompareCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("compare", "A B [--fail-if-slower PCT]",
                 "Compares run B with run A: every metric both have (same name and source) with "
                 "the ratio B/A, the median time per call, and the ceiling each run hits on its "
                 "machine's roofline.");
  std::vector<long long> ids;
  double fail_pct = -1;
  cl.Add("fail-if-slower", po::value(&fail_pct),
         "exit 1 when B's median time per call is more than PCT percent above A's");
  cl.Add("force", "compare runs of different targets or parameters (a warning says so)");
  cl.AddPositional("run", po::value(&ids)->composing(), "run ids A and B", 2);
  std::vector<std::string> invocations;
  cl.Add("invocation", po::value(&invocations)->composing(),
         "twice, instead of run ids: two invocations of a Google Benchmark binary, benchmark "
         "by benchmark, with a Mann-Whitney U test over repetitions (--fail-if-slower then "
         "fails only on a significant slow-down)");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  if (!invocations.empty()) {
    if (invocations.size() != 2 || !ids.empty())
      return Fail(err, ErrorKind::kUsage,
                  "compare: give --invocation twice (A, then B), and no run ids");
    if (cl.Has("fail-if-slower") && !(fail_pct >= 0))
      return Fail(err, ErrorKind::kUsage, "--fail-if-slower takes a percentage, 0 or more");
    RunStore* opened = context.Store(err);
    if (!opened) return false;
    RunStore& store = *opened;
    return CompareInvocations(
        &store, invocations[0], invocations[1],
        cl.Has("fail-if-slower") ? std::optional<double>(fail_pct) : std::nullopt, cl.format(),
        cl.text_width(), err);
  }
  if (ids.size() != 2) return Fail(err, ErrorKind::kUsage, "compare: give two run ids, A and B");
  if (cl.Has("fail-if-slower") && !(fail_pct >= 0))
    return Fail(err, ErrorKind::kUsage, "--fail-if-slower takes a percentage, 0 or more");

  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;
  RunRecord a, b;
  if (!store.Load(ids[0], &a, err) || !store.Load(ids[1], &b, err)) return false;
  // Ratios of two different workloads read like a speed-up or a slow-down and are neither.
  if (std::string why = Difference(a, b); !why.empty()) {
    std::string what = "run " + std::to_string(a.id) + " measured " + MeasuredText(a) + ", run " +
                       std::to_string(b.id) + " " + MeasuredText(b);
    if (!cl.Has("force"))
      return Fail(err, ErrorKind::kUsage,
                  "compare: " + why + ": " + what +
                      "; compare runs of one target and its parameters, or add --force");
    std::fprintf(stderr, "rprof: warning: compare: %s (--force): %s\n", why.c_str(), what.c_str());
  }
  RunPlacement pa = PlaceStoredRun(&store, a), pb = PlaceStoredRun(&store, b);

  double ta = Summarize(a.samples).median, tb = Summarize(b.samples).median;
  std::optional<double> slower_pct;
  if (ta > 0 && tb > 0) slower_pct = (tb / ta - 1) * 100;
  auto verdict = [](const RunPlacement& p) {
    return p.profile_id == 0 ? p.missing
                             : (p.placement.placed ? p.placement.verdict : p.placement.reason);
  };

  Report report;
  report.AddField("a", Cell::Int(a.id));
  report.AddField("b", Cell::Int(b.id));
  report.AddField("time_ratio", slower_pct ? Cell::Number(tb / ta) : Cell());
  report.AddField("a_verdict", Cell::Text(verdict(pa)));
  report.AddField("b_verdict", Cell::Text(verdict(pb)));
  // A program's path is the user's text, escaped as table cells are.
  std::string heading = "A: run " + std::to_string(a.id) + "  " + EscapeForTerminal(a.target) +
                        "  " + a.started_at + "\n   " + verdict(pa) + "\nB: run " +
                        std::to_string(b.id) + "  " + EscapeForTerminal(b.target) + "  " +
                        b.started_at + "\n   " + verdict(pb) + "\n";
  if (slower_pct) {
    char line[128];
    std::snprintf(line, sizeof line, "time per call: B/A = %.3f (%s%.1f %%)\n\n", tb / ta,
                  *slower_pct >= 0 ? "+" : "", *slower_pct);
    heading += line;
  }
  report.AddText(heading);
  // unit stands twice: people read it last, CSV and JSON have always had it before the values.
  Table& table = report.AddTable({{"region", "region"},
                                  Column("name", "metric").CsvHeader("metric"),
                                  {"source", "source"},
                                  {"unit", "", Align::kLeft, kInData},
                                  {"a", "A", Align::kRight},
                                  {"b", "B", Align::kRight},
                                  {"ratio", "B/A", Align::kRight},
                                  {"unit", "unit", Align::kLeft, kInText}},
                                 kInAll, "metrics");
  auto add = [&](const Metric& m, std::optional<double> va, std::optional<double> vb) {
    std::optional<double> ratio;
    if (va && vb && *va != 0) ratio = *vb / *va;
    table.AddRow({Cell::Text(m.region), Cell::Text(m.name), Cell::Text(SourceName(m.source)),
                  Cell::Text(m.unit), Cell::Number(va), Cell::Number(vb), Cell::Number(ratio),
                  Cell::Text(m.unit)});
  };
  for (const Metric& m : a.metrics) {
    const Metric* other = FindMetric(b.metrics, m.name, m.source, m.region);
    add(m, m.value, other ? other->value : std::nullopt);
  }
  for (const Metric& m : b.metrics)
    if (!FindMetric(a.metrics, m.name, m.source, m.region)) add(m, std::nullopt, m.value);
  std::cout << Render(report, cl.format(), cl.text_width());
  if (cl.Has("fail-if-slower") && slower_pct && *slower_pct > fail_pct) {
    char message[160];
    std::snprintf(
        message, sizeof message, "run %lld is %.1f %% slower than run %lld (limit %.1f %%)",
        static_cast<long long>(b.id), *slower_pct, static_cast<long long>(a.id), fail_pct);
    return Fail(err, ErrorKind::kTargetFailed, message);
  }
  return true;
}

}  // namespace rprof
