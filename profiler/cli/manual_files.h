// `rprof --write-manual FILE...` (hidden; the build runs it): writes the man pages and the
// bash completion script, each chosen by its file name, and refuses a set of names that is not
// the whole manual, so that a command or topic added without its meson line fails the build.
//   rprof.1          rprof(1): the commands, topics, global options
//   rprof-NAME.1     a command's page: its usage, description and options
//   rprof-NAME.7     a topic's page (profiler/manual/NAME.md)
//   rprof            the bash completion script (bash-completion finds it by the command name)
//   options.json     optional, for tests: every command's options with their help text
#ifndef RPROF_CLI_MANUAL_FILES_H_
#define RPROF_CLI_MANUAL_FILES_H_

#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

[[nodiscard]] bool WriteManualFiles(const std::vector<std::string>& paths, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_MANUAL_FILES_H_
