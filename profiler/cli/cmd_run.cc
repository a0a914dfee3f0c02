// rprof run: resolve the target, measure, store the run in one transaction, print it.
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "cli/command_context.h"
#include "cli/job_console.h"
#include "cli/launch_ranks.h"
#include "cli/option_ranges.h"
#include "cli/options.h"
#include "cli/output_file.h"
#include "cli/run_arguments.h"
#include "cli/run_benchmarks.h"
#include "cli/run_target.h"
#include "core/text.h"
#include "counters/event_names.h"
#include "counters/group_session.h"
#include "counters/sim_cache_sizes.h"
#include "counters/source_registry.h"
#include "functions/functions_option.h"
#include "machine/topology.h"
#include "pipeline/run_session.h"
#include "process/cpu_list.h"
#include "process/interruption.h"
#include "report/progress.h"
#include "report/render.h"
#include "report/run_report.h"
#include "report/terminal_width.h"
#include "targets/benchmark_binary.h"
#include "targets/isa_environment.h"

namespace rprof {

namespace {

// --events: perf's names mapped to what rprof counts, each name checked against the event
// tables before anything runs (a typo is a usage error, not a counter that cannot open).
bool ParseEvents(const std::vector<std::string>& given, std::vector<std::string>* events,
                 Error* err) {
  std::vector<std::string> names;
  for (const std::string& text : given)
    if (!SplitList("--events", text, &names, err)) return false;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string event = EventForName(names[i]);
    if (!CheckEventName(event, err)) {
      err->message = "--events " + err->message;
      return false;
    }
    auto same = std::find(events->begin(), events->end(), event);
    if (same != events->end())
      return Fail(err, ErrorKind::kUsage,
                  "--events names " + event + " twice, as " +
                      names[static_cast<size_t>(same - events->begin())] + " and " + names[i] +
                      "; name it once");
    events->push_back(event);
  }
  return true;
}

// "cycles, cpu-cycles, ...": --events' help, from the table.
std::string PerfNamesHelp() {
  std::string text;
  for (const PerfEventName& n : PerfEventNames())
    text += std::string(text.empty() ? "" : ", ") + n.perf;
  return text;
}

// --group list: the groups --group takes on this machine, LIKWID's `-g list`.
bool PrintGroups(OutputFormat format) {
  std::string pmu;
  std::vector<GroupSummary> groups;
  ListGroupsHere(&pmu, &groups);
  Report report;
  report.AddText("metric groups for " + pmu + " (--group NAME,...; `rprof events` shows their " +
                 "events and whether each counts here):\n");
  report.AddField("pmu", Cell::Text(pmu));
  Table& table =
      report.AddTable({{"group", "group"}, {"description", "description"}}, kInAll, "groups");
  for (const GroupSummary& g : groups)
    table.AddRow({Cell::Text(g.name), Cell::Text(g.description)});
  std::cout << Render(report, format);
  return true;
}

// --counters' help, from the registry: every source with what it counts.
std::string CountersHelp() {
  std::string text =
      "where FLOP and byte counts come from: auto (default: every source where it can count "
      "and, for sim, fits --sim-budget), or one source, which must then count:";
  for (const CounterSource* s : CounterSources())
    text += std::string(" ") + std::string(SourceName(s->id())) + " (" + s->summary() + ");";
  text.back() = '.';
  return text +
         " A program is executed as often as --repeat says: auto never runs it a second time, "
         "so sim counts a program only with --counters sim (it runs N times natively, then once "
         "more under valgrind).";
}

}  // namespace

bool RunCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  std::vector<std::string> params, tags, events;
  std::string kernel_name, output, groups, cpu_list_text;
  int repeat = 0, threads = 0;
  double min_time = 0.5, timeout = 0, flops = 0, bytes = 0, sim_budget = 20;
  std::string counters = "auto", sim_cache = "measured", sim_prefetch = "none";
  std::string precision, functions = "10", isa;
  CommandLine cl("run", "[options] [--] KERNEL|PLUGIN.so|PROGRAM [PROGRAM ARGS...]",
                 "Measures a built-in kernel, a kernel from a plugin, or a whole program, "
                 "stores the run, then prints it.\nrprof's options come before the program; "
                 "everything after it is the program's (`rprof run -r 3 ./app -r 5`: the app "
                 "gets -r 5; `--` may end rprof's options). After a kernel or a plugin, which "
                 "take no arguments, options may follow too (`rprof triad -p n=1e6`).\n"
                 "Kernels: warm-up, then timed repetitions; counters cover the timed region only. "
                 "Programs: run with fork/exec, counters on the process and all it starts, output "
                 "passed through.\n`rprof kernels` lists the kernels and their parameters.",
                 CommandLine::Format::kAcceptedUnlisted);
  const std::string counters_help = CountersHelp();
  const std::string events_help =
      "comma-separated PAPI presets or native events for the pmu source, repeatable (default: "
      "software events plus PAPI_TOT_INS,PAPI_TOT_CYC where they can be counted). perf's names "
      "are taken too, each counted and stored as the event it stands for (cycles as "
      "PAPI_TOT_CYC, task-clock as perf::TASK-CLOCK): " +
      PerfNamesHelp();
  cl.Add("param,p", po::value(&params)->composing(),
         "kernel parameter NAME=VALUE (repeatable, each parameter once)");
  cl.Add("kernel,k", po::value(&kernel_name), "the kernel to run from a plugin with several");
  cl.Add("events,e", po::value(&events)->composing(), events_help.c_str());
  cl.Add("allow-missing-events", "run without the named events that cannot be counted here");
  cl.Add("group,g", po::value(&groups),
         "comma-separated metric groups for the pmu source: FLOPS_DP, FLOPS_SP, MEM, L2, L3, "
         "CACHE, BRANCH, CPI (this machine's PMU, or the generic set on PAPI presets); "
         "--group list lists them");
  cl.Add("counters,c", po::value(&counters), counters_help.c_str());
  cl.Add("sim-budget", po::value(&sim_budget),
         "auto: run sim only when it is expected to take at most S seconds (default 20)");
  cl.Add("sim-cache", po::value(&sim_cache),
         "the caches sim simulates: measured (default: the size this machine's newest profile "
         "gives each level, the reported one unless a sound, repeated measurement replaced it), "
         "reported (what sysfs says), or sizes given as l1=48K,l2=2M,l3=32M (any of them; bytes, "
         "K, M or G, binary; l3 is the last level; the levels not named as measured)");
  cl.Add("sim-prefetch", po::value(&sim_prefetch),
         "sim: the prefetch model rprofsim adds to its hierarchy, filling L2 ahead of L1D "
         "misses: none (default: demand traffic only), next-line or stride");
  cl.Add("isa", po::value(&isa),
         "programs: the vector ISA the libraries it uses dispatch to, for the timed runs and "
         "the replay alike: avx2 (OpenBLAS, MKL, glibc, NumPy, PyTorch and oneDNN kept to their "
         "AVX2 code by the switches each reads; a switch the user set is kept), or native (each "
         "picks for this CPU). Default: avx2 with sim on a CPU with AVX-512, which valgrind "
         "cannot run, else native. Stored in the run's note and as the tag isa=avx2");
  cl.Add("repeat,r", po::value(&repeat),
         "exactly N timed repetitions (default: until --min-time for kernels, 1 for programs); "
         "a program is executed N times, never more under auto; with --counters sim a program "
         "runs N times natively, then once more under valgrind");
  cl.Add("min-time", po::value(&min_time),
         "kernels: repeat until the timed repetitions add up to S seconds (default 0.5; at "
         "least 3 repetitions)");
  cl.Add("timeout", po::value(&timeout),
         "stop a program, or a kernel's whole run (setup to teardown), after S seconds; the "
         "run is stored as interrupted, with what was measured by then");
  cl.Add("flops", po::value(&flops), "programs: declare the FLOPs of one execution (model source)");
  cl.Add("bytes", po::value(&bytes), "programs: declare the bytes one execution must move (model)");
  cl.Add("precision", po::value(&precision),
         "programs: the precision it computes in, fp64 or fp32, which chooses its roof "
         "(default: the measured split of its FLOPs, else the best of both); its marker "
         "regions inherit it unless they declare their own");
  cl.Add("threads", po::value(&threads),
         "programs: the threads (or processes) it computes on, which choose its roof (default: "
         "its CPU time / wall time, rounded); a kernel takes -p threads=N where it has one");
  cl.Add("functions", po::value(&functions), kFunctionsHelp);
  cl.Add("cpu-list,C", po::value(&cpu_list_text),
         "pin the target to these CPUs, as likwid-pin and taskset -c write them (0,2-3): a "
         "kernel's threads, a program and all it starts; stored with the run");
  cl.Add("tag,t", po::value(&tags)->composing(), "tag the run KEY=VALUE (repeatable)");
  cl.Add("output,o", po::value(&output),
         "write the report to FILE (default: standard output for a kernel; standard error for a "
         "program, as perf stat does, so that its standard output stays its own); a parallel "
         "job's table to FILE and each rank's report to FILE.RANK");
  cl.Add("quiet,q",
         "print only the run id, where the report would go (a parallel job's: the job's id)");
  cl.Add("verbose,v",
         "the full report: every metric of every region and function, every note (by default "
         "the report fits a screen); a parallel job (mpirun, srun): each rank's full report as "
         "well as the job's table; a Google Benchmark binary: each benchmark's full report "
         "(by default one line each)");
  cl.Add("gbench",
         "the program is a Google Benchmark binary (found by itself when it links "
         "libbenchmark): every benchmark is a run of kind benchmark, counted over its timed "
         "loop per iteration; --benchmark_* options after the program are passed to it");

  // The target and a program's own arguments are split off before Boost sees rprof's options.
  const RunArguments words = SplitRunArguments(args, cl.AllOptions(), RunsAsProgram);
  if (!cl.Parse(words.options, err)) return false;
  if (cl.help_shown()) return true;
  if (groups == "list") return PrintGroups(cl.format());
  const std::string& target = words.target;
  if (target.empty())
    return Fail(err, ErrorKind::kUsage,
                "run: nothing to run; name a kernel (`rprof kernels`), a plugin or a program");
  if (!words.stray.empty())
    return Fail(err, ErrorKind::kUsage,
                "run: '" + words.stray.front() + "' after " + target +
                    ": only a program takes arguments; a kernel's parameters are -p NAME=VALUE, "
                    "and rprof's options go before --");
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
  if (cl.Has("precision") && precision != "fp64" && precision != "fp32")
    return Fail(err, ErrorKind::kUsage, "--precision " + precision + ": use fp64 or fp32");
  CpuList cpus;
  if (cl.Has("cpu-list")) {
    Error why;
    if (!CpuList::Parse(cpu_list_text, &cpus, &why) || !cpus.Usable(&why))
      return Fail(err, ErrorKind::kUsage, "--cpu-list " + cpu_list_text + ": " + why.message);
  }
  // A report file that cannot be written is found before the measurement, not after it.
  if (!output.empty() && !CheckOutputFile("--output", output, err)) return false;

  std::vector<ChosenSource> sources;
  if (!ChooseSources(counters, &sources, err)) {
    err->message = "--counters " + counters + ": use " + JoinChoices(CounterChoices());
    return false;
  }
  SimCacheChoice sim_cache_choice;
  if (!ParseSimCacheChoice(sim_cache, &sim_cache_choice, err)) return false;
  if (sim_prefetch != "none" && sim_prefetch != "next-line" && sim_prefetch != "stride")
    return Fail(err, ErrorKind::kUsage,
                "--sim-prefetch " + sim_prefetch + ": use none, next-line or stride");
  std::optional<IsaChoice> isa_requested;
  if (cl.Has("isa")) {
    IsaChoice choice;
    if (!ParseIsaChoice(isa, &choice))
      return Fail(err, ErrorKind::kUsage, "--isa " + isa + ": use avx2 or native");
    isa_requested = choice;
  }
  // --events and --group are what the pmu source counts.
  bool counts_events = std::any_of(sources.begin(), sources.end(), [](const ChosenSource& c) {
    return c.source->id() == Source::kPmu;
  });
  if (!counts_events && cl.Has("events"))
    return Fail(err, ErrorKind::kUsage,
                "--counters " + counters + " counts no events: drop --events");

  GroupPlan group_plan;
  std::vector<std::string> group_names;
  if (cl.Has("group") && !SplitList("--group", groups, &group_names, err)) return false;
  if (!group_names.empty()) {
    if (!counts_events)
      return Fail(err, ErrorKind::kUsage,
                  "--counters " + counters + " counts no events: drop --group");
    if (!LoadGroupPlan(group_names, &group_plan, err)) {
      err->message = "--" + err->message;  // "group FLOPS_DPP (icx): ..." names it already
      return false;
    }
  }
  const GroupPlan* plan = group_names.empty() ? nullptr : &group_plan;

  RunRecord run;
  if (!ParseKeyValues("--tag", tags, &run.tags, err)) return false;
  std::vector<std::string> event_list;
  if (!ParseEvents(events, &event_list, err)) return false;
  bool events_given = cl.Has("events") > 0;
  bool allow_missing = cl.Has("allow-missing-events") > 0;

  // Resolve the target before opening anything: a typo should cost nothing.
  RunTarget measured;
  if (!measured.Resolve(target, words.program_args, kernel_name, err)) return false;
  if (measured.IsLauncher()) {
    // Every rank would refuse it after the launcher started the job (a replay runs the program
    // again, outside the job): refused here, before anything starts.
    for (const ChosenSource& c : sources)
      if (c.chosen && c.source->scope(CountedTarget::Kind::kProgram) == CounterScope::kReplayed)
        return Fail(err, ErrorKind::kUsage,
                    "--counters " + counters + " under " + target + ": " +
                        std::string(SourceName(c.source->id())) +
                        " replays a program after it ran, and a rank cannot be executed again "
                        "outside its launcher; count the job with --counters pmu (or model), or "
                        "one process alone with sim, without the launcher: rprof run --counters " +
                        std::string(SourceName(c.source->id())) + " ./app");
    JobConsole console{output, format, cl.Has("quiet") > 0, cl.Has("verbose") > 0,
                       output.empty() ? TerminalWidth(STDERR_FILENO) : kNoWidthLimit};
    return LaunchRanks(context, measured.program_path(), target, words.program_args, words.options,
                       console, err);
  }
  RunTargetOptions target_options;
  target_options.params = params;
  target_options.repeat = repeat;
  target_options.min_time_s = min_time;
  if (cl.Has("timeout")) target_options.timeout_s = timeout;
  if (cl.Has("flops")) target_options.flops = flops;
  if (cl.Has("bytes")) target_options.bytes = bytes;
  if (cl.Has("threads")) target_options.threads = threads;
  target_options.precision_given = cl.Has("precision") > 0;
  if (!measured.Build(target_options, err)) return false;
  const bool kernel = measured.is_kernel();
  const std::string& program_path = measured.program_path();
  const std::vector<std::string>& program_argv = measured.program_argv();
  if (kernel && isa_requested)
    return Fail(err, ErrorKind::kUsage,
                "--isa is for programs: " + target +
                    " is a kernel, whose ISA is rprof's own choice (`rprof kernels` lists them)");
  const bool gbench = !kernel && (cl.Has("gbench") || LooksLikeBenchmarkBinary(program_path));
  // Pinned before any of the target runs: threads a kernel starts later, a program and all it
  // starts, a sim step under valgrind, all inherit the mask.
  if (!cpus.empty()) {
    Error why;
    if (!cpus.PinThisProcess(&why))
      return Fail(err, ErrorKind::kEnvironment, "--cpu-list " + cpus.Text() + ": " + why.message);
    run.cpu_list = cpus.Text();
  }
  CounterRequest request;
  request.events = event_list;
  request.events_given = events_given;
  request.allow_missing_events = allow_missing;
  request.groups = plan;
  request.replay_budget_s = sim_budget;
  request.wait_progress = StartElapsedProgress;  // valgrind's wait, on a terminal
  if (!ParseFunctionsOption(functions, &request.functions, err)) return false;

  // --isa: the switches in rprof's own environment from here to the end, so that the timed
  // runs, the replay and all they start run the same library code (targets/isa_environment.h).
  // A program replays under a replayed source it chose, or under auto as a Google Benchmark
  // instance; a kernel's ISA is rprof's own, never a default here.
  const bool replays =
      !kernel && std::any_of(sources.begin(), sources.end(), [&](const ChosenSource& c) {
        return c.source->scope(CountedTarget::Kind::kProgram) == CounterScope::kReplayed &&
               (c.chosen || gbench);
      });
  const IsaFlags cpu_isa = ReadTopology().isa;
  const bool avx512 = cpu_isa.avx512f;
  const IsaDecision isa_decision = DecideIsa(isa_requested, avx512, replays);
  // OpenBLAS and the others would run AVX2 code they were told to, and stop on it.
  if (isa_decision.choice == IsaChoice::kAvx2 && !cpu_isa.avx2)
    return Fail(err, ErrorKind::kUsage,
                "--isa avx2: this CPU has no AVX2 (or the OS does not enable it), and the "
                "libraries would stop on its instructions; use --isa native");
  const IsaEnvironment isa_environment(
      PlanIsaEnvironment(isa_decision.choice, avx512, ProcessEnvironment()));
  std::string isa_note = IsaNote(isa_decision, isa_environment.settings(), replays);
  if (isa_decision.choice != IsaChoice::kNative) {
    auto user_tag = std::find_if(run.tags.begin(), run.tags.end(),
                                 [](const auto& tag) { return tag.first == "isa"; });
    if (user_tag == run.tags.end())
      run.tags.emplace_back("isa", IsaChoiceName(isa_decision.choice));
    else
      AddNote(&isa_note, "tag isa=" + user_tag->second + " kept as --tag gave it");
  }
  // From here to the end, a signal ends the phase it arrives in and what was measured is
  // stored (process/interruption.h).
  InterruptionScope interruption;
  SessionOptions session_options;
  session_options.db = context.database_path();
  session_options.groups = plan;
  session_options.sim_cache = sim_cache_choice;
  session_options.sim_prefetch = sim_prefetch;
  if (cl.Has("precision")) session_options.precision = precision;
  session_options.setup_note = isa_note;
  RunSession session;
  if (!session.Open(session_options, &request, &run, err)) return false;
  if (!session.notice().empty()) std::cerr << "rprof: " << session.notice() << "\n";
  // A Google Benchmark binary: one run per benchmark instance (cli/run_benchmarks.h).
  if (gbench) {
    for (const char* option : {"repeat", "flops", "bytes", "threads"})
      if (cl.Has(option))
        return Fail(err, ErrorKind::kUsage,
                    std::string("--") + option + " is for programs; " + target +
                        " is a Google Benchmark binary: it repeats with "
                        "--benchmark_repetitions=N after its name, and declares its work and "
                        "threads itself");
    if (cl.Has("quiet")) QuietProgress();
    BenchmarkRunPlan benchmarks{program_path,        program_argv,         timeout, output, format,
                                cl.Has("quiet") > 0, cl.Has("verbose") > 0};
    return RunBenchmarks(session, benchmarks, sources, request, run, err);
  }
  std::vector<SourceFailure> failed_sources;
  if (cl.Has("quiet")) QuietProgress();  // the id alone, on every stream
  if (!session.Measure(measured.target(), sources, request, &run, &failed_sources, err))
    return false;
  RunPlacement placement;
  if (!session.Finish(&run, &placement, err)) return false;

  // Where the report goes (--quiet's id too): --output FILE; else standard output for a
  // kernel, which prints nothing of its own; else, for a program, standard error, as perf
  // stat's: the program's standard output is its own, so `rprof run --format json ./app > out`
  // never mixes rprof's JSON into it.
  const bool to_stderr = output.empty() && !kernel;
  const size_t width = TerminalWidth(!output.empty() ? -1
                                     : to_stderr     ? STDERR_FILENO
                                                     : STDOUT_FILENO);
  const std::string id = std::to_string(run.id);
  const std::string stored = "run " + id + " is stored (rprof show " + id + ")";
  // A rank of a parallel job: one job table for the job, printed by rank 0 (or by `rprof
  // mpirun`), not a report per rank; a rank's own only with -v, or to FILE.RANK with -o.
  const JobConsole console{output, format, cl.Has("quiet") > 0, cl.Has("verbose") > 0, width};
  if (!run.job || RankReportsItself(console)) {
    // A parallel job's rank reports itself whole: -v or -o FILE.RANK asked for it.
    const RunDetail detail = cl.Has("verbose") || run.job ? RunDetail::kFull : RunDetail::kSummary;
    std::string report =
        cl.Has("quiet") ? id + "\n" : FormatRun(run, format, &placement, width, detail);
    if (!WriteReport(
            report, run.job && !output.empty() ? RankOutputPath(output, run.job->rank) : output,
            to_stderr ? ReportStream::kStandardError : ReportStream::kStandardOutput, stored, err))
      return false;
  }
  if (run.job && RankPrintsJobTable(*run.job)) {
    // The other ranks end about when this one does (MPI_Finalize waits for all); one killed
    // outright stores nothing, and the table then says the job is incomplete.
    constexpr double kRankPatienceS = 10;
    // The ranks' runs, read where they are stored; none is read where each rank wrote a file
    // of its own (a database on a network filesystem). One that cannot be read holds none.
    Error unreadable;
    RunStore* ranks = session.job_dir().empty() ? context.StoreView(&unreadable) : nullptr;
    if (ranks) WaitForRanks(ranks, run.job->job_id, run.job->size, kRankPatienceS);
    if (!PrintJobTable(ranks, context.database_path(), run.job->job_id, session.job_dir(), console,
                       err))
      return false;
  }
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
