// A command's --help as data: what `rprof help COMMAND` prints, the man page rprof-COMMAND(1),
// the bash completion and the manual tests all read, so the options have one description.
#ifndef RPROF_CLI_COMMAND_HELP_H_
#define RPROF_CLI_COMMAND_HELP_H_

#include <string>
#include <vector>

#include "cli/command.h"

namespace rprof {

struct OptionHelp {
  std::string long_name;    // "param" (without dashes)
  char short_name = 0;      // 'p', or 0 for none
  std::string argument;     // "arg" where the option takes a value, else ""
  std::string description;  // "" only for an option added without help text (tests refuse it)
};

// One usage of a command: `rprof run ...`, or one subcommand's (`rprof machine measure ...`).
struct CommandHelp {
  std::string command;  // "run", "machine measure"
  std::string usage;
  std::string description;
  std::vector<OptionHelp> options;  // in --help's order, --help first
};

// Everything a command says about itself: its table row, each usage's help (a command with
// subcommands has one per subcommand), and what `rprof help COMMAND` prints for a command with
// subcommands before those (empty otherwise).
struct CommandDoc {
  const Command* command = nullptr;
  std::string overview;
  std::vector<CommandHelp> helps;
};

// While a capture is set, a command's --help is recorded into it instead of being printed
// (cli/options.cc). Not thread-safe: the manual is written by one thread.
void SetHelpCapture(std::vector<CommandHelp>* capture);
std::vector<CommandHelp>* HelpCapture();

// Runs `rprof COMMAND [SUB] --help` for every command of the table (and every subcommand)
// with the capture set and standard output captured. False with *err when a command printed
// no help (a command that answers --help by other means than CommandLine).
bool DocumentCommands(std::vector<CommandDoc>* docs, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_COMMAND_HELP_H_
