#include "cli/run_benchmarks.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "calibrate/calibration_plan.h"
#include "calibrate/run_trust.h"
#include "cli/standard_streams.h"
#include "cli/unstored_run.h"
#include "counters/pmu_diagnosis.h"
#include "counters/sim_source.h"
#include "process/interruption.h"
#include "process/scratch_dir.h"
#include "report/run_report.h"
#include "report/terminal_width.h"
#include "roofline/stored_run_placement.h"
#include "store/profile_store.h"
#include "targets/benchmark_target.h"
#include "targets/measure.h"

namespace rprof {

namespace {

// Places the run, adds its trust notes (those Conclude gave kept) and stores it.
bool PlaceAndStore(RunStore* store, const DatabasePath& db, RunRecord* run,
                   RunPlacement* placement, Error* err) {
  *placement = PlaceStoredRun(store, *run);
  run->placement = PlacementToStore(*placement);
  TrustContext trust;
  trust.virtual_machine = DiagnosePmu().virtual_machine;
  trust.simulator = SimulatorName();
  trust.profile_id = placement->profile_id;
  trust.profile_noisy_reasons = placement->profile_noisy_reasons;
  Error calibration_err;
  if (!LoadMetricTrust(store, run->machine.fingerprint, &trust.calibration, &calibration_err))
    run->note += (run->note.empty() ? "" : "; ") +
                 std::string("calibration not read, its trust notes absent: ") +
                 calibration_err.message;
  std::vector<CalibrationCheck> plan;
  std::string plan_error;
  if (LoadCalibrationPlan(&plan, &plan_error))
    for (const CalibrationCheck& c : plan) trust.checked.push_back(c.metric);
  std::vector<TrustNote> own = run->trust;
  run->trust = RunTrustNotes(*run, trust);
  for (TrustNote& n : own) run->trust.push_back(std::move(n));
  EnterPhase(Phase::kStoring);
  if (!store->Insert(run, err)) return SaveUnstoredRun(*run, db, err);
  return true;
}

}  // namespace

bool RunBenchmarks(RunStore* store, const BenchmarkRunPlan& plan,
                   const std::vector<ChosenSource>& sources, const CounterRequest& request,
                   const RunRecord& base, Error* err) {
  std::vector<std::string> benchmark_args(plan.argv.begin() + 1, plan.argv.end());
  BenchmarkBinary binary;
  if (!ListBenchmarks(plan.path, benchmark_args, &binary, err)) return false;
  // The user's --benchmark_min_time in either syntax, said the way this library takes it.
  for (std::string& a : benchmark_args)
    if (a.rfind("--benchmark_min_time=", 0) == 0) {
      std::string value, why;
      if (!MinTimeFor(binary, a.substr(21), &value, &why))
        return Fail(err, ErrorKind::kUsage, why);
      a = "--benchmark_min_time=" + value;
    }
  const std::string shim = GbenchShimPath();
  std::string iterations_file;
  if (!ScratchPath("gbench-iterations", &iterations_file, err)) return false;
  const std::string invocation = NewRunUid();
  std::string report, failures;
  for (const std::string& instance : binary.instances) {
    if (InterruptingSignal() != 0) break;
    RunRecord run = base;
    run.tags.emplace_back("invocation", invocation);
    BenchmarkTarget target(binary, plan.argv[0], instance, benchmark_args, iterations_file,
                           plan.timeout_s);
    std::vector<SourceFailure> failed_sources;
    {
      BenchmarkEnvironment env(shim, instance, iterations_file);
      if (!Measure(target, sources, request, &run, &failed_sources, err)) {
        // The instances before this one are stored already: said with the error.
        if (!report.empty())
          err->message += "; " + instance + " not measured, the instances before it are " +
                          "stored (rprof history --invocation " + invocation + ")";
        return false;
      }
    }
    target.Conclude(&run);
    RunPlacement placement;
    if (!PlaceAndStore(store, plan.db, &run, &placement, err)) return false;
    const std::string id = std::to_string(run.id);
    std::string one = plan.quiet ? id + "\n"
                                 : FormatRun(run, plan.format, &placement,
                                             TerminalWidth(plan.output.empty() ? STDERR_FILENO
                                                                               : -1));
    // JSON: one array of the runs, in the binary's order.
    if (!plan.quiet && plan.format == OutputFormat::kJson) {
      while (!one.empty() && one.back() == '\n') one.pop_back();
      one = (report.empty() ? "[" : ",\n") + one;
    }
    report += one;
    if (run.status != RunStatus::kOk)
      failures += (failures.empty() ? "" : "; ") + instance + " (run " + id + ") " +
                  RunStatusName(run.status) + ": " + run.note;
  }
  if (!plan.quiet && plan.format == OutputFormat::kJson) report += report.empty() ? "[]\n" : "]\n";
  if (!plan.quiet && plan.format == OutputFormat::kTable)
    report += "invocation " + invocation + ": " + std::to_string(binary.instances.size()) +
              " benchmarks (rprof history --invocation " + invocation + ")\n";
  const std::string stored = "the runs are stored (rprof history --invocation " + invocation + ")";
  if (plan.output.empty()) {
    if (!WriteStandardError(report, err, stored)) return false;
  } else {
    errno = 0;
    std::ofstream file(plan.output);
    file << report;
    file.close();
    if (!file)
      return Fail(err, ErrorKind::kEnvironment,
                  "--output " + plan.output + ": cannot write" +
                      (errno ? std::string(": ") + std::strerror(errno) : "") + "; " + stored);
  }
  if (!failures.empty())
    return Fail(err, ErrorKind::kTargetFailed, failures + " (stored)");
  if (InterruptingSignal() != 0)
    return Fail(err, ErrorKind::kTargetFailed, InterruptionNote() + ": " + stored);
  return true;
}

}  // namespace rprof
