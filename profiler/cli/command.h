// The subcommands of rprof, in one table (cli/commands.cc) that also feeds `rprof --help`,
// `rprof help COMMAND` and "did you mean".
#ifndef RPROF_CLI_COMMAND_H_
#define RPROF_CLI_COMMAND_H_

#include <string>
#include <vector>

#include "core/exit_status.h"

namespace rprof {

// Options given before the command name, for every command.
struct GlobalOptions {
  std::string db;  // --db PATH ("" when not given: $RPROF_DB, then the default)
};

// What a command needs from the machine: shown in help, so users know what can fail.
enum class Needs { kNothing, kDatabase, kCounters };

struct Command {
  const char* name;
  const char* summary;  // one line for `rprof --help`
  Needs needs;
  // Runs the command with the arguments after its name. Each command parses its own options
  // (and answers --help). Returns the exit status; on failure *err holds the message that
  // main() prints once.
  ExitStatus (*run)(const GlobalOptions& global, const std::vector<std::string>& args,
                    Error* err);
};

const std::vector<Command>& Commands();
const Command* FindCommand(const std::string& name);

// The command implementations, one file each under cli/.
ExitStatus RunCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus KernelsCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus HistoryCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus ShowCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus QueryCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus CompareCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus PlotCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus ValidateCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus MachineCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus EventsCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus DoctorCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
ExitStatus CalibrateCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);

}  // namespace rprof

#endif  // RPROF_CLI_COMMAND_H_
