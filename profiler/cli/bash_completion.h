// The bash completion script for rprof, written at build time from the command table and each
// command's options: commands, subcommands, topics after `help`, kernels, options.
#ifndef RPROF_CLI_BASH_COMPLETION_H_
#define RPROF_CLI_BASH_COMPLETION_H_

#include <string>
#include <vector>

#include "cli/command_help.h"

namespace rprof {

// `kernels`: the built-in kernels, offered where a target may stand (`rprof run tr<TAB>`).
std::string BashCompletion(const std::vector<CommandDoc>& commands,
                           const std::vector<std::string>& kernels);

}  // namespace rprof

#endif  // RPROF_CLI_BASH_COMPLETION_H_
