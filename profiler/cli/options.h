// Helpers every command uses to parse its own options with Boost.Program_options and turn
// parse errors into usage errors (exit 2) that name the command's help.
#ifndef RPROF_CLI_OPTIONS_H_
#define RPROF_CLI_OPTIONS_H_

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/output_format.h"
#include "core/run.h"

namespace rprof {

namespace po = boost::program_options;

// Parses args into vm. False with a kUsage error ("rprof help CMD" named) on a bad option.
bool ParseCommandLine(const std::string& command, const std::vector<std::string>& args,
                      const po::options_description& options,
                      const po::positional_options_description& positional,
                      po::variables_map* vm, Error* err);

// Prints "usage: rprof CMD USAGE" and the options, for --help.
void PrintCommandHelp(const std::string& command, const std::string& usage,
                      const std::string& description, const po::options_description& options);

bool ParseFormatOption(const std::string& text, OutputFormat* format, Error* err);

// "a,b,c" (--events, --group, --levels) into items, empty ones dropped; an item named twice is
// a usage error (an event would be counted twice, or reported as a second, conflicting metric).
bool SplitList(const std::string& option, const std::string& text,
               std::vector<std::string>* items, Error* err);

// "key=value" items (--tag) into pairs; kUsage on a malformed one.
bool ParseKeyValues(const std::string& option, const std::vector<std::string>& items,
                    KeyValues* out, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_OPTIONS_H_
