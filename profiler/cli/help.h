// rprof's help: `rprof --help` and `rprof help [COMMAND|TOPIC]`, from the command table
// (cli/commands.cc), each command's own options and the manual's topics (cli/topics.h).
#ifndef RPROF_CLI_HELP_H_
#define RPROF_CLI_HELP_H_

#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"

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

// Shown under "needs:" for a command: "", "database" or "counters, database".
const char* NeedsText(Needs needs);

// `rprof help`, `rprof help COMMAND` (its --help), `rprof help TOPIC` (the topic's text).
// kUsage with a "did you mean" on a name that is neither.
bool HelpCommand(const GlobalOptions& global, const std::vector<std::string>& args, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_HELP_H_
