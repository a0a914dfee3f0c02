// rprof: the roofline profiler. Global options, then a subcommand from the table in
// commands.cc; errors are printed here, once, with one prefix.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/exit_status.h"
#include "cli/standard_streams.h"
#include "core/spelling.h"
#include "core/text.h"
#include "process/scratch_dir.h"
#include "report/terminal_width.h"
#include "report/text_wrap.h"
#include "rprof_config.h"
#include "targets/kernel_catalog.h"
#include "targets/target_path.h"

namespace rprof {
namespace {

// Indexed by Needs, in its order.
constexpr const char* kNeedsTexts[] = {"", "database", "counters, database"};
const char* NeedsText(Needs needs) { return kNeedsTexts[static_cast<int>(needs)]; }

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: rprof [--db PATH] COMMAND [ARGS...]\n"
               "       rprof [--db PATH] [run options] [--] KERNEL|PLUGIN.so|PROGRAM\n"
               "             [PROGRAM ARGS...]\n"
               "           (the same as rprof run ...: rprof's options come before the program,\n"
               "           everything after it is the program's)\n\n"
               "rprof measures code against this machine's roofline: time, FLOPs and bytes\n"
               "moved, with every value labelled by its source (clock, pmu, sim, model).\n\ncommands:\n");
  // One line per command, its summary wrapped to the terminal under the summary's column.
  const size_t width = TerminalWidth(fileno(out));
  constexpr size_t kSummaryColumn = 12;
  for (const Command& c : Commands()) {
    std::string needs = NeedsText(c.needs);
    std::string summary = std::string(c.summary) + (needs.empty() ? "" : "  [needs: " + needs + "]");
    std::vector<std::string> lines =
        width == kNoWidthLimit || width <= kSummaryColumn + 20
            ? std::vector<std::string>{summary}
            : WrapText(summary, width - kSummaryColumn);
    for (size_t i = 0; i < lines.size(); ++i)
      std::fprintf(out, i == 0 ? "  %-9s %s\n" : "%12s%s\n", i == 0 ? c.name : "",
                   lines[i].c_str());
  }
  std::fprintf(out,
               "\nglobal options (before the command):\n"
               "  --db PATH      the runs database (default: $RPROF_DB, else\n"
               "                 $XDG_DATA_HOME/rprof/rprof.db, else\n"
               "                 ~/.local/share/rprof/rprof.db)\n"
               "  -h, --help     this help; `rprof help COMMAND` for a command's options\n"
               "  --version      print the version\n\n"
               "exit status: 0 ok, 1 the target failed, 2 usage error, 3 environment\n"
               "             (counters, database, output)\n");
}

const std::vector<std::string>& GlobalOptionNames() {
  static const std::vector<std::string> names = {"--db", "--help", "--version"};
  return names;
}

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const Command& c : Commands()) names.push_back(c.name);
  return names;
}

// `--db=` or `--db ""` (an unset shell variable: --db="$DB") would otherwise mean "no --db" and
// store the run in another database than the one the user named.
bool EmptyDbFlag(Error* err) {
  return Fail(err, ErrorKind::kUsage,
              "--db is empty: name a database file, or drop --db to use $RPROF_DB or the default");
}

bool Main(int argc, char** argv, Error* err) {
  // What an rprof killed earlier left behind (its temporary directory) goes first.
  SweepDeadScratchDirs();
  GlobalOptions global;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--db") {
      if (i + 1 == argc)
        return Fail(err, ErrorKind::kUsage, "--db needs a PATH; see `rprof --help`");
      global.db = argv[++i];
      if (global.db.empty()) return EmptyDbFlag(err);
    } else if (arg.rfind("--db=", 0) == 0) {
      global.db = arg.substr(5);
      if (global.db.empty()) return EmptyDbFlag(err);
    } else if (arg == "-h" || arg == "--help") {
      PrintUsage(stdout);
      return true;
    } else if (arg == "--version") {
      std::printf("rprof %s\n", RPROF_VERSION);
      return true;
    } else {
      break;
    }
  }
  if (i == argc) {
    PrintUsage(stderr);
    return Fail(err, ErrorKind::kUsage, "no command given");
  }
  std::string name = argv[i];
  std::vector<std::string> args(argv + i + 1, argv + argc);

  // Any other option, or `--`, begins the shorthand `rprof [run options] TARGET ...`: run's
  // options (and its own "did you mean") take it from here. A near miss of a global option
  // (`--verison`) is said as one.
  if (name.size() > 1 && name[0] == '-') {
    std::string option = name.substr(0, name.find('='));
    std::string global_match = ClosestMatch(option, GlobalOptionNames());
    if (option.rfind("--", 0) == 0 && option != "--" && !global_match.empty())
      return Fail(err, ErrorKind::kUsage,
                  "unknown option '" + option + "'" + DidYouMean(option, GlobalOptionNames()) +
                      " (`rprof --help` lists the global options)");
    args.insert(args.begin(), name);
    return RunCommand(global, args, err);
  }

  if (name == "help") {
    if (args.empty()) {
      PrintUsage(stdout);
      return true;
    }
    const Command* command = FindCommand(args[0]);
    if (!command)
      return Fail(err, ErrorKind::kUsage,
                  "help: no command '" + args[0] + "'" + DidYouMean(args[0], CommandNames()));
    return command->run(global, {"--help"}, err);
  }
  if (const Command* command = FindCommand(name)) return command->run(global, args, err);

  // Not a command: something to run (`rprof triad`, `rprof ./app` = `rprof run …`), unless it
  // looks like a typo of a command or a kernel. Anything else is taken for a program, which
  // run then finds, or says is not on PATH.
  std::vector<std::string> known = CommandNames();
  for (const std::string& k : BuiltinCatalog().Names()) known.push_back(k);
  bool runnable =
      BuiltinCatalog().Find(name) || LooksLikePath(name) || LooksLikePlugin(name) || OnPath(name);
  if (!runnable && !ClosestMatch(name, known).empty())
    return Fail(err, ErrorKind::kUsage,
                "'" + name + "' is neither a command nor a kernel" + DidYouMean(name, known) +
                    " (`rprof --help` lists the commands, `rprof kernels` the kernels)");
  args.insert(args.begin(), name);
  return RunCommand(global, args, err);
}

}  // namespace
}  // namespace rprof

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(true);
  rprof::Error err;
  bool ok = rprof::OpenClosedStandardStreams(&err);
  rprof::KeepStandardOutputErrors();
  ok = ok && rprof::Main(argc, argv, &err);
  // A report that did not arrive fails the command, whatever the command said; a command that
  // failed already has its own error to tell.
  bool written = rprof::FlushStandardOutput(ok ? &err : nullptr);
  if (ok && written) return static_cast<int>(rprof::ExitStatus::kOk);
  std::fprintf(stderr, "rprof: error: %s%s\n", err.message.c_str(), rprof::RemedyText(err.remedy));
  return static_cast<int>(rprof::ExitStatusOf(err.kind));
}
