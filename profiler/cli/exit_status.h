// The exit codes of rprof, in one place: scripts and CI jobs branch on them. Only main() turns
// an error's kind into one, and its remedy into the flag that gives it.
#ifndef RPROF_CLI_EXIT_STATUS_H_
#define RPROF_CLI_EXIT_STATUS_H_

#include "core/error.h"

namespace rprof {

enum class ExitStatus : int {
  kOk = 0,
  kTargetFailed = 1,  // the profiled target failed, crashed, was interrupted or its check failed
  kUsage = 2,         // bad command line: unknown command, option, kernel, parameter
  kEnvironment = 3,   // the machine or files: counters that cannot open, database unusable
};

inline ExitStatus ExitStatusOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kUsage:
      return ExitStatus::kUsage;
    case ErrorKind::kEnvironment:
      return ExitStatus::kEnvironment;
    case ErrorKind::kTargetFailed:
      return ExitStatus::kTargetFailed;
  }
  return ExitStatus::kEnvironment;
}

// The command line's wording of a library's remedy: " (--allow-missing-events runs without it)".
inline const char* RemedyText(Remedy remedy) {
  // Indexed by Remedy, in its order.
  static constexpr const char* kTexts[] = {"", " (--allow-missing-events runs without it)",
                                           " (--db PATH or RPROF_DB)"};
  return kTexts[static_cast<int>(remedy)];
}

}  // namespace rprof

#endif  // RPROF_CLI_EXIT_STATUS_H_
