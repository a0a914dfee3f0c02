// Where rprof run's own words end and a program's begin, perf's rule: rprof's options come
// before the program, everything after the program is the program's (`rprof -r 3 ./app -r 5`:
// the second -r is the app's). `--` may mark the end of rprof's options (`rprof run -- ./app`).
// After a kernel or a plugin, which take no arguments, options are still rprof's
// (`rprof triad -p n=1e6`).
#ifndef RPROF_CLI_RUN_ARGUMENTS_H_
#define RPROF_CLI_RUN_ARGUMENTS_H_

#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <vector>

namespace rprof {

struct RunArguments {
  std::vector<std::string> options;       // rprof's own words, for Boost to parse
  std::string target;                     // the kernel, plugin or program; "" when none named
  bool after_dashes = false;              // the target came after `--`
  std::vector<std::string> program_args;  // a program's own arguments
  // Words after a kernel or plugin that are neither options nor their values: a kernel takes
  // none. Kept apart so that Boost's complaint about an unknown option, which may have been
  // meant to take such a word, comes first.
  std::vector<std::string> stray;
};

// Splits the words after `run` (or after `rprof` in the shorthand `rprof [options] TARGET`).
// `options` must be every option run knows: which of them take a value decides which words are
// values and which is the target. `is_program` says whether a target takes the words after it.
RunArguments SplitRunArguments(const std::vector<std::string>& args,
                               const boost::program_options::options_description& options,
                               const std::function<bool(const std::string&)>& is_program);

}  // namespace rprof

#endif  // RPROF_CLI_RUN_ARGUMENTS_H_
