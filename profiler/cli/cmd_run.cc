// rprof run: resolve the target, measure, store the run in one transaction, print it.
#include <csignal>
#include <iostream>

#include "cli/command.h"
#include "cli/current_machine.h"
#include "cli/options.h"
#include "report/run_report.h"
#include "rprof_config.h"
#include "store/run_store.h"
#include "targets/kernel_catalog.h"
#include "targets/kernel_run.h"

namespace rprof {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnInterrupt(int) { g_interrupted.store(true); }

// SIGINT/SIGTERM during a measurement end it between repetitions; the run is stored as
// interrupted instead of being lost. A second Ctrl-C kills as usual (SA_RESETHAND).
class InterruptScope {
 public:
  InterruptScope() {
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptScope() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    if (!item.empty()) items.push_back(item);
    start = comma + 1;
  }
  return items;
}

}  // namespace

ExitStatus RunCommand(const GlobalOptions& global, const std::vector<std::string>& args,
                      Error* err) {
  po::options_description options("run options");
  std::vector<std::string> params, tags;
  std::string events, format_text = "table";
  int repeat = 0;
  double min_time = 0.5;
  options.add_options()
      ("help,h", "show this help")
      ("param,p", po::value(&params)->composing(), "kernel parameter NAME=VALUE (repeatable)")
      ("events,e", po::value(&events),
       "comma-separated PAPI presets or native events for the pmu source "
       "(default: software events plus PAPI_TOT_INS,PAPI_TOT_CYC where they can be counted)")
      ("allow-missing-events", "run without the named events that cannot be counted here")
      ("repeat,r", po::value(&repeat), "exactly N timed repetitions (default: until --min-time)")
      ("min-time", po::value(&min_time), "repeat until the timed repetitions add up to S seconds "
       "(default 0.5; at least 3 repetitions)")
      ("tag,t", po::value(&tags)->composing(), "tag the run KEY=VALUE (repeatable)")
      ("format,f", po::value(&format_text), "table, csv or json")
      ("quiet,q", "print only the run id")
      ("target", po::value<std::string>(), "the kernel to run");
  po::positional_options_description positional;
  positional.add("target", 1);
  po::variables_map vm;
  if (!ParseCommandLine("run", args, options, positional, &vm, err)) return err->status;
  if (vm.count("help")) {
    PrintCommandHelp("run", "KERNEL [--param NAME=VALUE]... [options]",
                     "Measures a kernel: warm-up, then timed repetitions; counters cover the timed "
                     "region only. The run is stored, then printed.\n`rprof kernels` lists the "
                     "kernels and their parameters.",
                     options);
    return ExitStatus::kOk;
  }
  if (!vm.count("target"))
    return FailWith(err, ExitStatus::kUsage, "run: no kernel named; `rprof kernels` lists them");
  OutputFormat format;
  if (!ParseFormatOption(format_text, &format, err)) return err->status;
  if (vm.count("repeat") && repeat < 1)
    return FailWith(err, ExitStatus::kUsage, "--repeat must be at least 1");
  if (!(min_time >= 0))
    return FailWith(err, ExitStatus::kUsage, "--min-time must be 0 or more seconds");

  KernelRunRequest request;
  request.entry = BuiltinCatalog().Resolve(vm["target"].as<std::string>(), err);
  if (!request.entry) return err->status;
  if (!ParseKernelArgs(*request.entry->kernel, params, &request.args, &request.shown_params, err))
    return err->status;
  RunRecord run;
  if (!ParseKeyValues("--tag", tags, &run.tags, err)) return err->status;
  request.events = SplitList(events);
  request.events_given = vm.count("events") > 0;
  request.allow_missing_events = vm.count("allow-missing-events") > 0;
  request.measure.repetitions = repeat;
  request.measure.min_time_s = min_time;
  request.measure.interrupted = &g_interrupted;

  // Open the store first: a database that cannot take the run should fail before the
  // measurement, not after it.
  RunStore store;
  if (!store.Open(ResolveDatabasePath(global.db), err)) return err->status;

  run.machine = CurrentMachine();
  run.rprof_version = RPROF_VERSION;
  {
    InterruptScope interrupts;
    if (!RunKernel(request, &run, err)) return err->status;
  }
  if (!store.Insert(&run, err)) return err->status;

  if (vm.count("quiet"))
    std::cout << run.id << "\n";
  else
    std::cout << FormatRun(run, format);
  if (run.status == RunStatus::kOk) return ExitStatus::kOk;
  return FailWith(err, ExitStatus::kTargetFailed,
              "run " + std::to_string(run.id) + " " + RunStatusName(run.status) + ": " + run.note +
                  " (stored)");
}

}  // namespace rprof
