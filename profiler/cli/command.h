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

// What a command needs from the machine: shown in help, so users know what can fail.
enum class Needs { kNothing, kDatabase, kCounters };

struct Command {
  const char* name;
  const char* summary;  // one line for `rprof --help`
  Needs needs;
  // Runs the command with the arguments after its name. Each command parses its own options
  // (and answers --help). False on failure, with *err holding the kind (main() turns it into
  // the exit code) and the message main() prints once.
  bool (*run)(const GlobalOptions& global, const std::vector<std::string>& args, Error* err);
  // The subcommands of a command that has them (`machine measure`), each with its own --help:
  // the manual documents each (cli/command_help.h).
  std::vector<std::string> subcommands = {};
};

const std::vector<Command>& Commands();
const Command* FindCommand(const std::string& name);

// The command implementations, one file each under cli/.
bool RunCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool KernelsCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool HistoryCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool ShowCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool QueryCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool CompareCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool PlotCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool ReportCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool ValidateCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool MachineCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool EventsCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool DoctorCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool CalibrateCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool ImportCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool JobCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);
bool MergeCommand(const GlobalOptions&, const std::vector<std::string>&, Error*);

}  // namespace rprof

#endif  // RPROF_CLI_COMMAND_H_
