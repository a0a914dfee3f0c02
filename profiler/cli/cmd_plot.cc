// rprof plot: runs on their machine's roofline, rendered by gnuplot to a file or the terminal,
// or the gnuplot script itself for users to restyle.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/output_file.h"
#include "machine/current_machine.h"
#include "process/scratch_dir.h"
#include "cli/options.h"
#include "report/roofline_plot.h"
#include "store/profile_store.h"
#include "targets/target_path.h"

extern char** environ;

namespace rprof {

namespace {

// Runs gnuplot on the script file; kEnvironment when gnuplot is missing or fails.
bool RunGnuplot(const std::string& script_path, Error* err) {
  if (!OnPath("gnuplot"))
    return Fail(err, ErrorKind::kEnvironment,
                "gnuplot not found: install the Debian package gnuplot-nox "
                "(apt-get install gnuplot-nox), or write the script with --gnuplot FILE");
  std::string program = "gnuplot";
  std::vector<char*> argv = {program.data(), const_cast<char*>(script_path.c_str()), nullptr};
  pid_t pid;
  if (posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv.data(), environ) != 0)
    return Fail(err, ErrorKind::kEnvironment, "cannot start gnuplot");
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Fail(err, ErrorKind::kEnvironment,
                "gnuplot failed on the roofline script (its message is above); --gnuplot FILE "
                "writes the script to look at");
  return true;
}

}  // namespace

bool PlotCommand(const GlobalOptions& global, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("plot", "[RUN...|--last N|--kernel K|--tag K=V] -o FILE.svg|--terminal",
                 "Draws runs on the roofline of their machine: log-log, every compute ceiling "
                 "(per precision and ISA) and bandwidth ceiling (per memory level) labelled, "
                 "each run and each marker region a labelled point per source, its model point "
                 "joined to its measured point. Rendered by gnuplot.",
                 CommandLine::Format::kNone);
  std::vector<long long> ids;
  std::vector<std::string> tags;
  RunFilter filter;
  std::string output, script;
  int last = 0, threads = 1;
  long long profile_id = 0;
  cl.Add("last", po::value(&last), "the newest N runs (default 10 when no run is named)");
  std::string target;
  cl.Add("kernel,k", po::value(&target), "only runs of this kernel or program");
  cl.Add("tag,t", po::value(&tags)->composing(), "only runs tagged KEY=VALUE (repeatable)");
  cl.Add("output,o", po::value(&output), "write FILE.svg, FILE.png or FILE.pdf");
  cl.Add("terminal", "draw the roofline in the terminal");
  cl.Add("gnuplot", po::value(&script), "write the gnuplot script (data inline) to FILE");
  cl.Add("threads", po::value(&threads), "draw the ceilings of N threads (default 1)");
  cl.Add("profile", po::value(&profile_id),
         "the machine profile to draw (default: the newest of the runs' machine)");
  cl.AddPositional("run", po::value(&ids)->composing(), "run ids", -1);
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  bool terminal = cl.Has("terminal");
  if (output.empty() && !terminal && script.empty())
    return Fail(err, ErrorKind::kUsage,
                "plot: say where: -o FILE.svg|.png|.pdf, --terminal, or --gnuplot FILE");
  if (!output.empty() && terminal)
    return Fail(err, ErrorKind::kUsage, "plot: -o FILE or --terminal, not both");
  std::string term = terminal ? "dumb size 110,34 noenhanced" : TerminalForFile(output);
  if (!output.empty() && term.empty())
    return Fail(err, ErrorKind::kUsage,
                "plot: -o " + output + ": use a .svg, .png or .pdf file name");
  if (term.empty()) term = TerminalForFile("roofline.svg");
  if (threads < 1) return Fail(err, ErrorKind::kUsage, "--threads must be at least 1");
  if (!ParseKeyValues("--tag", tags, &filter.tags, err)) return false;
  if (!target.empty()) {
    std::vector<std::string> names = StoredTargetNames(target);
    filter.target = names.front();
    filter.also_targets.assign(names.begin() + 1, names.end());
  }
  // gnuplot's own message for a file it cannot write names neither the option nor the way out.
  if (!output.empty() && !CheckOutputFile("plot: -o", output, err)) return false;
  if (!script.empty() && !CheckOutputFile("plot: --gnuplot", script, err)) return false;

  RunStore store;
  if (!store.OpenExisting(ResolveDatabasePath(global.db), err)) return false;
  std::vector<RunRecord> runs;
  if (!ids.empty()) {
    for (long long id : ids) {
      RunRecord run;
      if (!store.Load(id, &run, err)) return false;
      runs.push_back(std::move(run));
    }
  } else {
    filter.limit = last > 0 ? last : 10;
    if (!store.List(filter, &runs, err)) return false;
    if (runs.empty())
      return Fail(err, ErrorKind::kUsage, "plot: no stored run matches; see rprof history");
  }

  StoredProfile profile;
  if (profile_id > 0) {
    if (!LoadProfile(&store, profile_id, &profile, err)) return false;
  } else {
    bool found = false;
    std::string fingerprint =
        runs.empty() ? CurrentMachine().fingerprint : runs.front().machine.fingerprint;
    if (!LoadNewestProfile(&store, fingerprint, &profile, &found, err)) return false;
    if (!found)
      return Fail(err, ErrorKind::kEnvironment,
                  "no machine profile for machine " + fingerprint +
                      " (the runs' machine); measure one there with `rprof machine measure`");
  }

  if (!HasCeilingsFor(profile.profile, threads))
    return Fail(err, ErrorKind::kUsage,
                "plot: machine profile " + std::to_string(profile.id) + " has no ceilings for " +
                    std::to_string(threads) +
                    " thread(s); measure them with `rprof machine "
                    "measure --threads " +
                    std::to_string(threads) + "`");
  if (PlottableRuns(runs) == 0)
    return Fail(err, ErrorKind::kUsage,
                "plot: none of the chosen runs has both a FLOP rate and a DRAM intensity to "
                "draw, for the whole run or a marker region (programs need --flops/--bytes, "
                "regions declared with rprof_region_declare, or --counters sim)");

  PlotOptions plot;
  plot.terminal = term;
  plot.output = output;
  plot.threads = threads;
  plot.title = "roofline of " + profile.machine.cpu_model + " (" + profile.machine.hostname +
               "), " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "") +
               ", profile " + std::to_string(profile.id);
  std::string text = RooflineGnuplotScript(profile.profile, runs, plot);

  if (!script.empty()) {
    std::ofstream file(script);
    file << text;
    if (!file) return Fail(err, ErrorKind::kEnvironment, "--gnuplot " + script + ": cannot write");
    if (output.empty() && !terminal) return true;
  }
  std::string temp;
  if (!ScratchPath("plot.gp", &temp, err)) return false;
  {
    std::ofstream file(temp);
    file << text;
    if (!file) return Fail(err, ErrorKind::kEnvironment, temp + ": cannot write the plot script");
  }
  std::cout.flush();
  bool ok = RunGnuplot(temp, err);
  unlink(temp.c_str());
  if (!ok) return false;
  if (!output.empty()) std::cout << "wrote " << output << "\n";
  return true;
}

}  // namespace rprof
