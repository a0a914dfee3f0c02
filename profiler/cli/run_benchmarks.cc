#include "cli/run_benchmarks.h"

#include <unistd.h>

#include "cli/output_file.h"
#include "pipeline/run_session.h"
#include "process/interruption.h"
#include "process/scratch_dir.h"
#include "report/run_report.h"
#include "report/run_stream.h"
#include "report/terminal_width.h"
#include "targets/benchmark_target.h"

namespace rprof {

bool RunBenchmarks(const RunSession& session, const BenchmarkRunPlan& plan,
                   const std::vector<ChosenSource>& sources, const CounterRequest& request,
                   const RunRecord& base, Error* err) {
  std::vector<std::string> benchmark_args(plan.argv.begin() + 1, plan.argv.end());
  BenchmarkBinary binary;
  if (!ListBenchmarks(plan.path, benchmark_args, &binary, err)) return false;
  // The user's --benchmark_min_time in either syntax, said the way this library takes it.
  for (std::string& a : benchmark_args)
    if (a.rfind("--benchmark_min_time=", 0) == 0) {
      std::string value;
      if (!MinTimeFor(binary, a.substr(21), &value, err)) return false;
      a = "--benchmark_min_time=" + value;
    }
  const std::string shim = GbenchShimPath();
  std::string iterations_file;
  if (!ScratchPath("gbench-iterations", &iterations_file, err)) return false;
  const std::string invocation = NewRunUid();
  // Quiet: one id a line, whatever the format.
  RunStream report(plan.quiet ? OutputFormat::kTable : plan.format);
  const size_t width = TerminalWidth(plan.output.empty() ? STDERR_FILENO : -1);
  // The text for people on one screen: with several benchmarks, one line each in the order
  // they ran, as `rprof history` gives them, once all are stored (a report of 300 lines per
  // benchmark buried the verdicts); -v, JSON and CSV: each run whole, as it ends.
  const bool one_line_each = !plan.quiet && !plan.verbose && plan.format == OutputFormat::kTable &&
                             binary.instances.size() > 1;
  std::vector<RunRecord> finished;
  std::string failures;
  for (const std::string& instance : binary.instances) {
    if (InterruptingSignal() != 0) break;
    RunRecord run = base;
    run.tags.emplace_back("invocation", invocation);
    BenchmarkTarget target(binary, plan.argv[0], instance, benchmark_args, iterations_file,
                           plan.timeout_s);
    std::vector<SourceFailure> failed_sources;
    {
      BenchmarkEnvironment env(shim, instance, iterations_file);
      if (!session.Measure(target, sources, request, &run, &failed_sources, err)) {
        // The instances before this one are stored already: said with the error.
        if (!report.empty())
          err->message += "; " + instance + " not measured, the instances before it are " +
                          "stored (rprof history --invocation " + invocation + ")";
        return false;
      }
    }
    target.Conclude(&run);
    RunPlacement placement;
    if (!session.Finish(&run, &placement, err)) return false;
    const std::string id = std::to_string(run.id);
    if (run.status != RunStatus::kOk)
      failures += (failures.empty() ? "" : "; ") + instance + " (run " + id + ") " +
                  RunStatusName(run.status) + ": " + run.note;
    if (one_line_each) {
      finished.push_back(std::move(run));
      continue;
    }
    const RunDetail detail = plan.verbose ? RunDetail::kFull : RunDetail::kSummary;
    report.Add(plan.quiet ? id + "\n" : FormatRun(run, plan.format, &placement, width, detail));
  }
  std::string text = report.Finish();
  if (one_line_each && !finished.empty()) {
    text = FormatRunList(finished, OutputFormat::kTable, width) +
           "one benchmark's report: rprof show ID; every benchmark's: -v\n";
  }
  if (!plan.quiet && plan.format == OutputFormat::kTable)
    text += "invocation " + invocation + ": " + std::to_string(binary.instances.size()) +
            " benchmarks (rprof history --invocation " + invocation + ")\n";
  const std::string stored = "the runs are stored (rprof history --invocation " + invocation + ")";
  if (!WriteReport(text, plan.output, ReportStream::kStandardError, stored, err)) return false;
  if (!failures.empty()) return Fail(err, ErrorKind::kTargetFailed, failures + " (stored)");
  if (InterruptingSignal() != 0)
    return Fail(err, ErrorKind::kTargetFailed, InterruptionNote() + ": " + stored);
  return true;
}

}  // namespace rprof
