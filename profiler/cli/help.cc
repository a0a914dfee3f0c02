#include "cli/help.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "cli/command_context.h"
#include "cli/topics.h"
#include "core/spelling.h"
#include "report/terminal_width.h"
#include "report/text_wrap.h"

namespace rprof {

namespace {

// Indexed by Needs, in its order.
constexpr const char* kNeedsTexts[] = {"", "database, read-only", "existing database",
                                       "writable database"};

// "  name     summary" lines, the summary wrapped under its column to the terminal's width.
void PrintNamedList(std::FILE* out, const std::vector<std::pair<std::string, std::string>>& rows) {
  const size_t width = TerminalWidth(fileno(out));
  constexpr size_t kSummaryColumn = 12;
  for (const auto& [name, summary] : rows) {
    std::vector<std::string> lines = width == kNoWidthLimit || width <= kSummaryColumn + 20
                                         ? std::vector<std::string>{summary}
                                         : WrapText(summary, width - kSummaryColumn);
    for (size_t i = 0; i < lines.size(); ++i)
      std::fprintf(out, i == 0 ? "  %-9s %s\n" : "%12s%s\n", i == 0 ? name.c_str() : "",
                   lines[i].c_str());
  }
}

// A topic's width: the terminal's, at most 80 columns (prose reads badly wider), none at
// COLUMNS=0.
size_t HelpWidth() {
  size_t width = TerminalWidth(STDOUT_FILENO);
  return width == kNoWidthLimit ? kNoWidthLimit : std::min(width, kDefaultTextWidth);
}

std::vector<std::string> CommandAndTopicNames() {
  std::vector<std::string> names;
  for (const Command& c : Commands()) names.push_back(c.name);
  for (const std::string& t : TopicNames()) names.push_back(t);
  return names;
}

}  // namespace

const char* NeedsText(Needs needs) { return kNeedsTexts[static_cast<int>(needs)]; }

std::string NeedsLabel(const Command& command) {
  std::string label = NeedsText(command.needs);
  for (const CommandMode& mode : command.modes) {
    std::string text = NeedsText(mode.needs);
    label += (label.empty() ? "" : "; ") + std::string(mode.name) + ": " +
             (text.empty() ? "nothing" : text);
  }
  return label;
}

const std::vector<GlobalOptionHelp>& GlobalOptionHelps() {
  static const std::vector<GlobalOptionHelp> options = {
      {"--db", "PATH",
       "the runs database (default: $RPROF_DB, else $XDG_DATA_HOME/rprof/rprof.db, else "
       "~/.local/share/rprof/rprof.db)"},
      {"-h, --help", "",
       "this help; `rprof help COMMAND` for a command's options, `rprof help TOPIC` for a topic"},
      {"--version", "", "print the version"},
  };
  return options;
}

void PrintUsage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: rprof [--db PATH] COMMAND [ARGS...]\n"
      "       rprof [--db PATH] [run options] [--] KERNEL|PLUGIN.so|PROGRAM\n"
      "             [PROGRAM ARGS...]\n"
      "           (the same as rprof run ...: rprof's options come before the program,\n"
      "           everything after it is the program's)\n\n"
      "rprof measures code against this machine's roofline: time, FLOPs and bytes\n"
      "moved, with every value labelled by its source (clock, pmu, sim, model).\n\ncommands:\n");
  std::vector<std::pair<std::string, std::string>> rows;
  for (const Command& c : Commands()) {
    std::string needs = NeedsLabel(c);
    rows.emplace_back(c.name,
                      std::string(c.summary) + (needs.empty() ? "" : "  [needs: " + needs + "]"));
  }
  PrintNamedList(out, rows);
  std::fprintf(out, "\ntopics (rprof help TOPIC, man rprof-TOPIC):\n");
  rows.clear();
  for (const Topic& t : Topics()) rows.emplace_back(t.name, t.summary);
  PrintNamedList(out, rows);
  std::fprintf(out, "\nglobal options (before the command):\n");
  for (const GlobalOptionHelp& option : GlobalOptionHelps()) {
    std::string shown = std::string(option.name) + (*option.argument ? " " : "") + option.argument;
    std::vector<std::string> lines = WrapText(option.description, 62);
    for (size_t i = 0; i < lines.size(); ++i)
      std::fprintf(out, "  %-14s %s\n", i == 0 ? shown.c_str() : "", lines[i].c_str());
  }
  std::fprintf(out,
               "\nexit status: 0 ok, 1 the target failed, 2 usage error, 3 environment\n"
               "             (counters, database, output)\n");
}

bool HelpCommand(const GlobalOptions& global, const DatabasePath& db,
                 const std::vector<std::string>& args, Error* err) {
  if (args.empty()) {
    PrintUsage(stdout);
    return true;
  }
  if (const Command* command = FindCommand(args[0])) {
    CommandContext command_context(global, db, *command);
    // `rprof help machine measure`: that subcommand's options.
    if (args.size() > 1 && !command->subcommands.empty())
      return command->run(command_context, {args[1], "--help"}, err);
    if (!command->run(command_context, {"--help"}, err)) return false;
    // A topic of the same name (kernels: the plugin ABI; machine: its roofline) follows the
    // command's options, as rprof-NAME(7) stands beside rprof-NAME(1).
    if (const Topic* topic = FindTopic(args[0]))
      std::cout << "\n" << TopicForTerminal(*topic, HelpWidth());
    return true;
  }
  if (const Topic* topic = FindTopic(args[0])) {
    std::cout << TopicForTerminal(*topic, HelpWidth());
    return true;
  }
  return Fail(err, ErrorKind::kUsage,
              "help: no command '" + args[0] + "'" + DidYouMean(args[0], CommandAndTopicNames()) +
                  " (nor a topic: `rprof help` lists the commands and topics)");
}

}  // namespace rprof
