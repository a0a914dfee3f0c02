// rprof: the roofline profiler. Global options, then a subcommand from the table in
// commands.cc; errors are printed here, once, with one prefix.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/exit_status.h"
#include "cli/help.h"
#include "cli/manual_files.h"
#include "cli/standard_streams.h"
#include "core/spelling.h"
#include "core/text.h"
#include "process/scratch_dir.h"
#include "report/text_table.h"
#include "rprof_config.h"
#include "store/run_store.h"
#include "targets/kernel_catalog.h"
#include "targets/target_path.h"

namespace rprof {
namespace {

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
    } else if (arg == "--write-manual") {
      // Hidden: the build writes the man pages and the completion script with it
      // (profiler/manual/meson.build), from the same table and options as --help.
      return WriteManualFiles(std::vector<std::string>(argv + i + 1, argv + argc), err);
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
  // Resolved here, once; only a command's context opens it, the way its table row says, and
  // not before the command asks (so its --help and usage errors never touch the file).
  const DatabasePath db = ResolveDatabasePath(global.db);
  auto run_command = [&](const Command& command) {
    CommandContext context(global, db, command);
    return command.run(context, args, err);
  };

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
    return run_command(*FindCommand("run"));
  }

  if (name == "help") return HelpCommand(global, db, args, err);
  if (const Command* command = FindCommand(name)) return run_command(*command);

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
  return run_command(*FindCommand("run"));
}

// An error's text as the terminal shows it: it may quote what a program wrote (a region name, a
// plugin's message, a file's line), so each of its lines is escaped (report/text_table.h: an
// escape sequence or a byte that is not UTF-8 printed raw recoloured the terminal, issue 41);
// its own line breaks stay.
std::string PrintableError(const std::string& message) {
  std::string out;
  for (size_t start = 0; start <= message.size();) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    out += (start ? "\n" : "") +
           EscapeForTerminal(std::string_view(message).substr(start, end - start));
    start = end + 1;
  }
  return out;
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
  std::fprintf(stderr, "rprof: error: %s%s\n", rprof::PrintableError(err.message).c_str(),
               rprof::RemedyText(err.remedy));
  return static_cast<int>(rprof::ExitStatusOf(err.kind));
}
