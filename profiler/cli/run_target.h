// What `rprof run` measures, made from the word after its options: a built-in kernel, a kernel
// of a plugin (.so), or a program (stored under its canonical path, run under the name typed).
// Resolved before anything opens, so that a typo costs nothing; the options meant for the other
// kind of target are refused here, with the reason.
#ifndef RPROF_CLI_RUN_TARGET_H_
#define RPROF_CLI_RUN_TARGET_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "targets/kernel_catalog.h"
#include "targets/target.h"

namespace rprof {

// Whether the word takes the words after it as its own arguments: anything but a built-in
// kernel or a plugin is a program (a name not found is then said to be missing from PATH).
bool RunsAsProgram(const std::string& word);

// The options of `rprof run` that shape the target, as given (unset: not given).
struct RunTargetOptions {
  std::vector<std::string> params;     // -p NAME=VALUE, a kernel's
  int repeat = 0;                      // --repeat; 0: not given
  double min_time_s = 0.5;             // --min-time, a kernel's
  std::optional<double> timeout_s;     // --timeout, a program's or a kernel's
  std::optional<double> flops, bytes;  // --flops, --bytes: a program's declared work
  std::optional<int> threads;          // --threads, a program's
  bool precision_given = false;        // --precision, a program's
};

class RunTarget {
 public:
  RunTarget() = default;
  RunTarget(const RunTarget&) = delete;  // the kernel entry points into plugin_
  RunTarget& operator=(const RunTarget&) = delete;

  // Finds what `word` names; a program's arguments follow it. kUsage for a name found nowhere
  // (with the closest kernel, or the command it is), a plugin without the --kernel asked for.
  bool Resolve(const std::string& word, const std::vector<std::string>& program_args,
               const std::string& kernel_name, Error* err);
  // An MPI or Slurm launcher: not measured as one program (its ranks summed, placed against
  // one thread's roof); rprof wraps each of its ranks instead (cli/launch_ranks.h).
  bool IsLauncher() const;
  // The Target to measure, from the options; kUsage for an option of the other kind.
  bool Build(const RunTargetOptions& options, Error* err);

  bool is_kernel() const { return kernel_ != nullptr; }
  Target& target() { return *target_; }
  const std::string& program_path() const { return program_path_; }
  // argv[0] as typed, then the program's own arguments.
  const std::vector<std::string>& program_argv() const { return program_argv_; }

 private:
  bool ResolveWord(const std::vector<std::string>& program_args, const std::string& kernel_name,
                   Error* err);

  std::string word_;
  KernelCatalog plugin_;
  const CatalogEntry* kernel_ = nullptr;
  std::string program_path_;
  std::vector<std::string> program_argv_;
  std::unique_ptr<Target> target_;
};

}  // namespace rprof

#endif  // RPROF_CLI_RUN_TARGET_H_
