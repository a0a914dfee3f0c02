// The subcommands of rprof, in one table (cli/commands.cc) that also feeds `rprof --help`,
// `rprof help COMMAND`, "did you mean", and the man pages and bash completion the build writes
// from it (cli/manual_files.h).
#ifndef RPROF_CLI_COMMAND_H_
#define RPROF_CLI_COMMAND_H_

#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

// Options given before the command name, for every command.
struct GlobalOptions {
  std::string db;  // --db PATH ("" when not given: $RPROF_DB, then the default)
};

class CommandContext;  // cli/command_context.h

// What a command does with the runs database, which main() acts on (ninja's Tool::when): the
// command's context opens the store this way on first use (cli/command_context.h), and help
// shows it, so users know what can fail and what may be written.
enum class Needs {
  kNothing,        // never opens the database
  kReadOnlyStore,  // reads an existing file as it is, never writing it (query)
  kExistingStore,  // reads an existing file, never creating one; an older schema is migrated
  kWritableStore,  // stores into it, creating the file (and the default's directory) if missing
};

// A subcommand (`machine measure`) or a mode option (`calibrate --show`) that needs other than
// its command: the command enters it (CommandContext::EnterMode) before the store opens.
struct CommandMode {
  const char* name;  // the subcommand, or the option with its dashes
  Needs needs;
};

struct Command {
  const char* name;
  const char* summary;  // one line for `rprof --help`
  Needs needs;
  // Runs the command with the arguments after its name. Each command parses its own options
  // (and answers --help). False on failure, with *err holding the kind (main() turns it into
  // the exit code) and the message main() prints once.
  bool (*run)(CommandContext& context, const std::vector<std::string>& args, Error* err);
  // The subcommands of a command that has them (`machine measure`), each with its own --help:
  // the manual documents each (cli/command_help.h).
  std::vector<std::string> subcommands = {};
  // The subcommands and mode options whose needs differ from `needs`.
  std::vector<CommandMode> modes = {};
};

const std::vector<Command>& Commands();
const Command* FindCommand(const std::string& name);

// The command implementations, one file each under cli/.
bool RunCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool KernelsCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool HistoryCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool ShowCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool QueryCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool CompareCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool PlotCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool ReportCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool ValidateCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool MachineCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool EventsCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool DoctorCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool CalibrateCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool ImportCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool JobCommand(CommandContext&, const std::vector<std::string>&, Error*);
bool MergeCommand(CommandContext&, const std::vector<std::string>&, Error*);

}  // namespace rprof

#endif  // RPROF_CLI_COMMAND_H_
