// rprof machine measure|show|list: this machine's roofline, measured once and stored, so every
// run can be placed against it.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>
#include <utility>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/option_ranges.h"
#include "cli/options.h"
#include "machine/current_machine.h"
#include "machine/machine_measure.h"
#include "pipeline/profile_pipeline.h"
#include "process/interruption.h"
#include "report/machine_report.h"
#include "report/progress.h"
#include "store/profile_store.h"

namespace rprof {

namespace {

bool Measure(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("machine measure", "[--quick|--full] [--threads N] [--wait S] [--timings]",
                 "Measures this machine's roofline: peak FLOP/s per precision and ISA, bandwidth "
                 "per memory level (load, copy, triad), the latency ladder and the clock, on 1 "
                 "thread and all cores, and stores the profile. Close other programs first: a "
                 "busy machine halves ceilings.");
  int threads = 0;
  double wait_s = 30;
  cl.Add("quick", "a quick profile: fewer points, short repetitions (default)");
  cl.Add("full", "a full profile: every pattern over the whole sweep (about 20 s)");
  cl.Add("threads", po::value(&threads),
         "threads of the all-threads ceilings (default: one per core this process may use)");
  cl.Add("timings", "print on stderr how long each phase of the measurement took");
  cl.Add("wait", po::value(&wait_s),
         "wait at most S seconds for other processes (a build) to quiet down before measuring "
         "(default 30; 0: measure at once)");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  // nan waited forever under load; inf overflowed the deadline (issue 41).
  if (!CheckSeconds("--wait", wait_s, "0: measure at once", err)) return false;
  if (cl.Has("quick") && cl.Has("full"))
    return Fail(err, ErrorKind::kUsage, "machine measure: --quick or --full, not both");
  // The CPUs this process may run on (taskset, cgroups), as the measurement will pin to them.
  cpu_set_t allowed;
  int cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0
                 ? CPU_COUNT(&allowed)
                 : static_cast<int>(std::thread::hardware_concurrency());
  if (cl.Has("threads") && (threads < 1 || (cpus > 0 && threads > cpus)))
    return Fail(err, ErrorKind::kUsage,
                "--threads " + std::to_string(threads) + ": must be 1.." + std::to_string(cpus) +
                    " (the CPUs this process may run on)");

  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;

  MachineMeasureOptions measure;
  measure.mode = cl.Has("full") ? "full" : "quick";
  measure.threads = threads;
  // A signal ends the measurement; nothing half-measured is stored (process/interruption.h).
  InterruptionScope interruption;
  measure.cancel = &InterruptedFlag();
  measure.settle_max_s = wait_s;
  std::optional<ProgressLine> progress(std::in_place);
  measure.progress = [&progress](const std::string& what, double fraction) {
    char percent[16];
    std::snprintf(percent, sizeof percent, "[%3.0f%%] ", fraction * 100);
    progress->Show(percent + what);
  };
  MachineProfile profile;
  Error why;
  bool ok = MeasureMachine(measure, &profile, &why);
  progress.reset();  // erased before anything else is printed
  if (!ok && InterruptingSignal() != 0)
    return Fail(err, ErrorKind::kTargetFailed,
                "machine measure interrupted by " + SignalName(InterruptingSignal()) +
                    ": no profile stored (the earlier profiles, if "
                    "any, are untouched)");
  if (!ok) return Fail(err, why.kind, "machine measure: " + why.message);
  // Where the time went, phase by phase (--timings), on stderr.
  std::string phases;
  for (size_t i = 0; i < profile.phase_seconds.size(); ++i) {
    char part[128];
    std::snprintf(part, sizeof part, "%s%s %.2f s (CPU %.2f s)", phases.empty() ? "" : ", ",
                  profile.phase_seconds[i].first.c_str(), profile.phase_seconds[i].second,
                  i < profile.phase_cpu_seconds.size() ? profile.phase_cpu_seconds[i] : 0.0);
    phases += part;
  }
  if (cl.Has("timings"))
    std::fprintf(stderr, "rprof: measured in %.2f s: %s\n", profile.seconds, phases.c_str());

  StoredProfile stored;
  if (!StoreMeasuredProfile(&store, std::move(profile), &stored, err)) return false;
  std::cout << FormatProfile(stored, cl.format(), cl.text_width());
  return true;
}

bool Show(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("machine show", "[PROFILE_ID]",
                 "Shows a stored machine profile: ceilings and the memory-hierarchy ladder.");
  long long id = 0;
  cl.AddPositional("profile", po::value(&id), "a profile id (default: the newest of this machine)");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;
  StoredProfile profile;
  if (cl.Has("profile")) {
    if (!LoadProfile(&store, id, &profile, err)) return false;
  } else {
    bool found = false;
    std::string fingerprint = CurrentMachine().fingerprint;
    if (!LoadNewestProfile(&store, fingerprint, &profile, &found, err)) return false;
    if (!found)
      return Fail(err, ErrorKind::kEnvironment,
                  "no machine profile for this machine (" + fingerprint + ") in " + store.path() +
                      "; measure one with `rprof machine measure`");
  }
  std::cout << FormatProfile(profile, cl.format(), cl.text_width());
  return true;
}

bool List(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("machine list", "", "Lists the stored machine profiles, newest first.");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;
  std::vector<StoredProfile> profiles;
  if (!ListProfiles(&store, &profiles, err)) return false;
  std::cout << FormatProfileList(profiles, cl.format(), cl.text_width());
  return true;
}

}  // namespace

bool MachineCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  const std::string usage =
      "usage: rprof machine measure [--quick|--full] [--threads N] [--wait S]\n"
      "       rprof machine show [PROFILE_ID] " +
      FormatUsage() + "\n       rprof machine list " + FormatUsage() + "\n";
  if (args.empty()) {
    std::cerr << usage;
    return Fail(err, ErrorKind::kUsage, "machine: say measure, show or list");
  }
  if (args[0] == "--help" || args[0] == "-h") {
    // As git's help of a command with subcommands: each with what it does, then where the
    // options are (the usage lines alone said nothing of what measure measures).
    std::cout << usage
              << "\nThis machine's roofline, measured once and stored; every run is placed\n"
                 "on the newest.\n"
                 "  measure  peak FLOP/s per precision and ISA, bandwidth per memory level,\n"
                 "           the latency ladder and the clock, on 1 thread and all cores\n"
                 "           (--quick: about 5 s)\n"
                 "  show     a stored profile: ceilings, cache levels, how it was measured\n"
                 "           and how far to trust it (this machine's newest by default)\n"
                 "  list     every stored profile, of every machine\n"
                 "rprof machine SUBCOMMAND --help gives its options.\n";
    return true;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  // measure stores a profile, show and list only read (the table's modes).
  context.EnterMode(args[0]);
  if (args[0] == "measure") return Measure(context, rest, err);
  if (args[0] == "show") return Show(context, rest, err);
  if (args[0] == "list") return List(context, rest, err);
  return Fail(err, ErrorKind::kUsage,
              "machine: no subcommand '" + args[0] + "'; use measure, show or list");
}

}  // namespace rprof
