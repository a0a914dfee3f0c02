// The exit codes of rprof, in one place: scripts and CI jobs branch on them.
#ifndef RPROF_CORE_EXIT_STATUS_H_
#define RPROF_CORE_EXIT_STATUS_H_

#include <string>
#include <utility>

namespace rprof {

enum class ExitStatus : int {
  kOk = 0,
  kTargetFailed = 1,  // the profiled target failed, crashed, was interrupted or its check failed
  kUsage = 2,         // bad command line: unknown command, option, kernel, parameter
  kEnvironment = 3,   // the machine or files: counters that cannot open, database unusable
};

// An error on its way up to the one place that prints it ("rprof: error: <message>").
// Library code fills one and returns false; it never prints.
struct Error {
  ExitStatus status = ExitStatus::kEnvironment;
  std::string message;  // "<object>: <cause>; <what to do>"
};

inline bool Fail(Error* err, ExitStatus status, std::string message) {
  if (err) *err = Error{status, std::move(message)};
  return false;
}

// The same, for command functions that return the exit status itself.
inline ExitStatus FailWith(Error* err, ExitStatus status, std::string message) {
  Fail(err, status, std::move(message));
  return status;
}

}  // namespace rprof

#endif  // RPROF_CORE_EXIT_STATUS_H_
