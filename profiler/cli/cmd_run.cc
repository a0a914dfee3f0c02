// rprof run: resolve the target, measure, store the run in one transaction, print it.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "calibrate/calibration_plan.h"
#include "calibrate/run_trust.h"
#include "cli/command.h"
#include "cli/option_ranges.h"
#include "cli/options.h"
#include "cli/standard_streams.h"
#include "core/text.h"
#include "counters/pmu_diagnosis.h"
#include "counters/source_registry.h"
#include "machine/current_machine.h"
#include "process/interruption.h"
#include "report/progress.h"
#include "report/run_report.h"
#include "report/terminal_width.h"
#include "roofline/stored_run_placement.h"
#include "rprof_config.h"
#include "store/profile_store.h"
#include "store/run_store.h"
#include "targets/kernel_catalog.h"
#include "targets/kernel_target.h"
#include "targets/measure.h"
#include "targets/plugin_loader.h"
#include "targets/program_target.h"
#include "targets/target_path.h"

namespace rprof {

namespace {

// The index of the target among args: the first word that is neither an option nor an option's
// value. Everything after an executable belongs to the program (`rprof ./app --fast`).
size_t FindTarget(const std::vector<std::string>& args, const po::options_description& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return i + 1;
    if (a.size() < 2 || a[0] != '-') return i;
    if (a.find('=') != std::string::npos) continue;
    for (const auto& option : options.options()) {
      bool named = a.rfind("--", 0) == 0
                       ? option->long_name() == a.substr(2)
                       : option->canonical_display_name(po::command_line_style::allow_dash_for_short) == a;
      if (named && option->semantic()->max_tokens() > 0) ++i;  // skip its value
    }
  }
  return args.size();
}

// --counters' help, from the registry: every source with what it counts.
std::string CountersHelp() {
  std::string text =
      "where FLOP and byte counts come from: auto (default: every source where it can count "
      "and, for sim, fits --sim-budget), or one source, which must then count:";
  for (const CounterSource* s : CounterSources())
    text += std::string(" ") + std::string(SourceName(s->id())) + " (" + s->summary() + ");";
  text.back() = '.';
  return text;
}

// The hierarchy sim simulates: by default the effective sizes this machine's newest profile
// measured (a virtual machine's sysfs may report the host's whole cache: 480 MiB of L3 for two
// vCPUs), else, or with --sim-cache reported, what sysfs reports.
bool SimCacheSizes(RunStore* store, const std::string& fingerprint, const std::string& choice,
                   CacheSizes* out, Error* err) {
  if (choice == "reported") {
    out->origin = "reported by sysfs (--sim-cache reported)";
    return true;
  }
  StoredProfile stored;
  bool found = false;
  if (!LoadNewestProfile(store, fingerprint, &stored, &found, err)) return false;
  const LevelSummary* l1 = nullptr;
  const LevelSummary* last = nullptr;
  if (found)
    for (const LevelSummary& level : stored.profile.levels) {
      if (level.level == "dram" || level.effective_size == 0) continue;
      if (level.level == "l1") l1 = &level;
      last = &level;
    }
  if (!l1 || !last || last == l1) {
    out->origin = found ? "reported by sysfs (machine profile " + std::to_string(stored.id) +
                              " measured no cache levels)"
                        : "reported by sysfs (no machine profile yet: `rprof machine measure` "
                          "measures the effective sizes)";
    return true;
  }
  out->l1d_bytes = l1->effective_size;
  out->llc_bytes = last->effective_size;
  out->origin = "as machine profile " + std::to_string(stored.id) + " measured them (effective " +
                "l1 and " + last->level + "; --sim-cache reported simulates sysfs's)";
  return true;
}

}  // namespace

bool RunCommand(const GlobalOptions& global, const std::vector<std::string>& args, Error* err) {
  std::vector<std::string> params, tags;
  std::string events, kernel_name, output, groups, target;
  int repeat = 0, threads = 0;
  double min_time = 0.5, timeout = 0, flops = 0, bytes = 0, sim_budget = 20;
  std::string counters = "auto", sim_cache = "measured";
  CommandLine cl("run", "KERNEL|PLUGIN.so|PROGRAM [options] [PROGRAM ARGS...]",
                 "Measures a built-in kernel, a kernel from a plugin, or a whole program, "
                 "stores the run, then prints it.\nKernels: warm-up, then timed repetitions; "
                 "counters cover the timed region only. Programs: run with fork/exec, "
                 "counters on the process and all it starts, output passed through; "
                 "everything after the program's name is its own arguments.\n"
                 "`rprof kernels` lists the kernels and their parameters.",
                 CommandLine::Format::kAcceptedUnlisted);
  const std::string counters_help = CountersHelp();
  cl.Add("param,p", po::value(&params)->composing(), "kernel parameter NAME=VALUE (repeatable)");
  cl.Add("kernel,k", po::value(&kernel_name), "the kernel to run from a plugin with several");
  cl.Add("events,e", po::value(&events),
         "comma-separated PAPI presets or native events for the pmu source "
         "(default: software events plus PAPI_TOT_INS,PAPI_TOT_CYC where they can be counted)");
  cl.Add("allow-missing-events", "run without the named events that cannot be counted here");
  cl.Add("group,g", po::value(&groups),
         "comma-separated metric groups for the pmu source: FLOPS_DP, FLOPS_SP, MEM, L2, L3, "
         "CACHE, BRANCH, CPI (this machine's PMU, or the generic set on PAPI presets)");
  cl.Add("counters,c", po::value(&counters), counters_help.c_str());
  cl.Add("sim-budget", po::value(&sim_budget),
         "auto: run sim only when it is expected to take at most S seconds (default 20)");
  cl.Add("sim-cache", po::value(&sim_cache),
         "the caches sim simulates: measured (default: the effective sizes of this machine's "
         "newest profile, where it has one) or reported (what sysfs says)");
  cl.Add("repeat,r", po::value(&repeat),
         "exactly N timed repetitions (default: until --min-time for kernels, 1 for programs)");
  cl.Add("min-time", po::value(&min_time),
         "kernels: repeat until the timed repetitions add up to S seconds (default 0.5; at "
         "least 3 repetitions)");
  cl.Add("timeout", po::value(&timeout),
         "programs: kill the program after S seconds; the run is stored as interrupted");
  cl.Add("flops", po::value(&flops), "programs: declare the FLOPs of one execution (model source)");
  cl.Add("bytes", po::value(&bytes), "programs: declare the bytes one execution must move (model)");
  cl.Add("threads", po::value(&threads),
         "programs: the threads (or processes) it computes on, which choose its roof (default: "
         "its CPU time / wall time, rounded); a kernel takes -p threads=N where it has one");
  cl.Add("tag,t", po::value(&tags)->composing(), "tag the run KEY=VALUE (repeatable)");
  cl.Add("output,o", po::value(&output),
         "write the report to FILE (default: standard output for a kernel; standard error for a "
         "program, as perf stat does, so that its standard output stays its own)");
  cl.Add("quiet,q", "print only the run id, where the report would go");
  cl.AddHidden("target", po::value(&target));

  // An executable's own arguments are not ours: cut them off before parsing.
  size_t target_at = FindTarget(args, cl.AllOptions());
  std::vector<std::string> ours = args, program_args;
  if (target_at < args.size()) {
    const std::string& named = args[target_at];
    bool program = !BuiltinCatalog().Find(named) && !LooksLikePlugin(named) &&
                   (LooksLikePath(named) || OnPath(named));
    if (program) {
      ours.assign(args.begin(), args.begin() + static_cast<long>(target_at) + 1);
      program_args.assign(args.begin() + static_cast<long>(target_at) + 1, args.end());
    }
  }
  if (!cl.Parse(ours, err)) return false;
  if (cl.help_shown()) return true;
  if (!cl.Has("target"))
    return Fail(err, ErrorKind::kUsage,
                "run: nothing to run; name a kernel (`rprof kernels`), a plugin or a program");
  const OutputFormat format = cl.format();
  if (cl.Has("repeat") && repeat < 1)
    return Fail(err, ErrorKind::kUsage, "--repeat must be at least 1");
  if (!CheckSeconds("--min-time", min_time, "0: the fewest repetitions", err) ||
      !CheckSeconds("--timeout", timeout, "0: no time limit", err) ||
      !CheckSeconds("--sim-budget", sim_budget, "0: sim only when chosen", err) ||
      !CheckAmount("--flops", flops, err) || !CheckAmount("--bytes", bytes, err))
    return false;
  if (cl.Has("threads") && threads < 1)
    return Fail(err, ErrorKind::kUsage, "--threads must be at least 1");

  std::vector<ChosenSource> sources;
  if (!ChooseSources(counters, &sources, err)) {
    err->message = "--counters " + counters + ": use " + JoinChoices(CounterChoices());
    return false;
  }
  if (sim_cache != "measured" && sim_cache != "reported")
    return Fail(err, ErrorKind::kUsage, "--sim-cache " + sim_cache + ": use measured or reported");
  // --events and --group are what the pmu source counts.
  bool counts_events = std::any_of(sources.begin(), sources.end(), [](const ChosenSource& c) {
    return c.source->id() == Source::kPmu;
  });
  if (!counts_events && cl.Has("events"))
    return Fail(err, ErrorKind::kUsage,
                "--counters " + counters + " counts no events: drop --events");

  GroupPlan group_plan;
  std::vector<std::string> group_names;
  if (!SplitList("--group", groups, &group_names, err)) return false;
  if (!group_names.empty()) {
    if (!counts_events)
      return Fail(err, ErrorKind::kUsage,
                  "--counters " + counters + " counts no events: drop --group");
    if (!LoadGroupPlan(group_names, &group_plan, err)) {
      err->message = "--group " + err->message;
      return false;
    }
  }
  const GroupPlan* plan = group_names.empty() ? nullptr : &group_plan;

  RunRecord run;
  if (!ParseKeyValues("--tag", tags, &run.tags, err)) return false;
  std::vector<std::string> event_list;
  if (!SplitList("--events", events, &event_list, err)) return false;
  bool events_given = cl.Has("events") > 0;
  bool allow_missing = cl.Has("allow-missing-events") > 0;

  // Resolve the target before opening anything: a typo should cost nothing.
  KernelCatalog plugin;
  const CatalogEntry* kernel = nullptr;
  std::string program_path;
  std::vector<std::string> program_argv;
  if (BuiltinCatalog().Find(target) || (!LooksLikePath(target) && !LooksLikePlugin(target) &&
                                        !OnPath(target))) {
    kernel = BuiltinCatalog().Resolve(target, err);
    if (!kernel) return false;
  } else if (LooksLikePlugin(target)) {
    if (!LoadPlugin(target, &plugin, err)) return false;
    if (kernel_name.empty() && plugin.entries().size() == 1) kernel_name = plugin.Names().front();
    if (kernel_name.empty())
      return Fail(err, ErrorKind::kUsage,
                  target + " holds several kernels; choose one with --kernel (`rprof kernels " +
                      target + "` lists them)");
    kernel = plugin.Resolve(kernel_name, err);
    if (!kernel) return false;
  } else {
    if (!ResolveExecutable(target, &program_path, err)) return false;
    program_argv = {target};
    program_argv.insert(program_argv.end(), program_args.begin(), program_args.end());
  }
  if (!kernel_name.empty() && !LooksLikePlugin(target))
    return Fail(err, ErrorKind::kUsage, "--kernel chooses a kernel inside a plugin (.so)");
  if (kernel)
    for (const char* option : {"flops", "bytes", "timeout"})
      if (cl.Has(option))
        return Fail(err, ErrorKind::kUsage,
                    std::string("--") + option +
                        " is for programs; a kernel declares its "
                        "own model (`rprof kernels`) and is timed per call");
  if (kernel && cl.Has("threads"))
    return Fail(err, ErrorKind::kUsage,
                "--threads is for programs; a kernel with a threads parameter takes -p threads=N "
                "(`rprof kernels`)");

  // Kernels and programs differ only in how the target is invoked.
  std::unique_ptr<Target> measured;
  if (kernel) {
    rprof_args kernel_args{};
    KeyValues shown_params;
    if (!ParseKernelArgs(*kernel->kernel, params, &kernel_args, &shown_params, err)) return false;
    MeasureOptions measure;
    measure.repetitions = repeat;
    measure.min_time_s = min_time;
    measured =
        std::make_unique<KernelTarget>(*kernel, kernel_args, std::move(shown_params), measure);
  } else if (!params.empty()) {
    return Fail(err, ErrorKind::kUsage,
                "--param sets kernel parameters; a program takes its own arguments after "
                "its name");
  } else {
    ProgramOptions program;
    program.repetitions = repeat > 0 ? repeat : 1;
    program.timeout_s = timeout;
    if (cl.Has("flops")) program.declared_flops = flops;
    if (cl.Has("bytes")) program.declared_bytes = bytes;
    if (cl.Has("threads")) program.threads = threads;
    measured = std::make_unique<ProgramTarget>(program_path, program_argv, program);
  }
  CounterRequest request;
  request.events = event_list;
  request.events_given = events_given;
  request.allow_missing_events = allow_missing;
  request.groups = plan;
  request.replay_budget_s = sim_budget;

  // From here to the end, a signal ends the phase it arrives in and what was measured is
  // stored (process/interruption.h).
  InterruptionScope interruption;
  // Open the store first: a database that cannot take the run should fail before the
  // measurement, not after it.
  RunStore store;
  if (!store.Open(ResolveDatabasePath(global.db), err)) return false;

  run.machine = CurrentMachine();
  run.rprof_version = RPROF_VERSION;
  if (!SimCacheSizes(&store, run.machine.fingerprint, sim_cache, &request.caches, err))
    return false;
  std::vector<SourceFailure> failed_sources;
  if (cl.Has("quiet")) QuietProgress();  // the id alone, on every stream
  if (!Measure(*measured, sources, request, &run, &failed_sources, err)) return false;
  // Placed before storing, so the run and where it stood are stored together.
  RunPlacement placement = PlaceStoredRun(&store, run);
  run.placement = PlacementToStore(placement);
  // Trust notes are stored with the run: a later calibration does not rewrite history.
  TrustContext trust;
  trust.groups = plan;
  trust.virtual_machine = DiagnosePmu().virtual_machine;
  trust.profile_id = placement.profile_id;
  trust.profile_noisy_reasons = placement.profile_noisy_reasons;
  if (!LoadMetricTrust(&store, run.machine.fingerprint, &trust.calibration, err)) return false;
  std::vector<CalibrationCheck> calibration_plan;
  std::string plan_error;
  if (LoadCalibrationPlan(&calibration_plan, &plan_error))
    for (const CalibrationCheck& c : calibration_plan) trust.checked.push_back(c.metric);
  run.trust = RunTrustNotes(run, trust);
  EnterPhase(Phase::kStoring);
  if (!store.Insert(&run, err)) return false;

  // Where the report goes (--quiet's id too): --output FILE; else standard output for a
  // kernel, which prints nothing of its own; else, for a program, standard error, as perf
  // stat's: the program's standard output is its own, so `rprof run --format json ./app > out`
  // never mixes rprof's JSON into it.
  const bool to_stderr = output.empty() && !kernel;
  const size_t width = TerminalWidth(!output.empty() ? -1
                                     : to_stderr     ? STDERR_FILENO
                                                     : STDOUT_FILENO);
  std::string report =
      cl.Has("quiet") ? std::to_string(run.id) + "\n" : FormatRun(run, format, &placement, width);
  const std::string stored =
      "run " + std::to_string(run.id) + " is stored (rprof show " + std::to_string(run.id) + ")";
  if (to_stderr) {
    if (!WriteStandardError(report, err, stored)) return false;
  } else if (output.empty()) {
    std::cout << report;
    if (!FlushStandardOutput(err, stored)) return false;
  } else {
    errno = 0;
    std::ofstream file(output);
    file << report;
    file.close();
    if (!file)
      return Fail(err, ErrorKind::kEnvironment,
                  "--output " + output + ": cannot write" +
                      (errno ? std::string(": ") + std::strerror(errno) : "") + "; run " +
                      std::to_string(run.id) + " is stored (rprof show " +
                      std::to_string(run.id) + ")");
  }
  const std::string id = std::to_string(run.id);
  if (run.status != RunStatus::kOk)
    return Fail(err, ErrorKind::kTargetFailed,
                "run " + id + " " + RunStatusName(run.status) + ": " + run.note + " (stored)");
  // A source the user chose that could not count: the run is kept, the command still failed.
  for (const SourceFailure& failure : failed_sources) {
    bool chosen = std::any_of(sources.begin(), sources.end(), [&](const ChosenSource& c) {
      return c.chosen && c.source->id() == failure.source;
    });
    if (!chosen) continue;
    *err = failure.error;
    err->message += "; run " + id + " is stored without its " +
                    std::string(SourceName(failure.source)) + " counts (rprof show " + id + ")";
    return false;
  }
  if (InterruptingSignal() != 0)
    return Fail(err, ErrorKind::kTargetFailed,
                InterruptionNote() + ": run " + id + " was measured in full and is stored whole");
  return true;
}

}  // namespace rprof
