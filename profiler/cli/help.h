// rprof's help: `rprof --help` and `rprof help [COMMAND|TOPIC]`, from the command table
// (cli/commands.cc), each command's own options and the manual's topics (cli/topics.h).
#ifndef RPROF_CLI_HELP_H_
#define RPROF_CLI_HELP_H_

#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#include "store/run_store.h"

namespace rprof {

// An option given before the command, for every command: what rprof(1) and --help list.
struct GlobalOptionHelp {
  const char* name;      // "--db"
  const char* argument;  // "PATH", or "" for a flag
  const char* description;
};
const std::vector<GlobalOptionHelp>& GlobalOptionHelps();

// The usage, the commands with their summaries, the topics, the global options, exit statuses.
void PrintUsage(std::FILE* out);

// What one lifecycle does to the database, in words: "", "database, read-only", "existing
// database" or "writable database".
const char* NeedsText(Needs needs);
// A command's "[needs: ...]" text, from its row: its own needs, then each mode's that differs
// ("existing database; measure: writable database"); "" for a command that needs nothing.
std::string NeedsLabel(const Command& command);

// `rprof help`, `rprof help COMMAND` (its --help), `rprof help TOPIC` (the topic's text).
// kUsage with a "did you mean" on a name that is neither. A command's --help runs in a context
// of its own over `db`, which --help never opens.
bool HelpCommand(const GlobalOptions& global, const DatabasePath& db,
                 const std::vector<std::string>& args, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_HELP_H_
