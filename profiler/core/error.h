// An error on its way up to the one place that prints it ("rprof: error: <message>") and turns
// its kind into an exit code (cli/main.cc). Library code fills one and returns false; it never
// prints and never chooses an exit code.
#ifndef RPROF_CORE_ERROR_H_
#define RPROF_CORE_ERROR_H_

#include <string>
#include <utility>

namespace rprof {

// What went wrong, as far as the caller needs to know to react (and main to choose the code).
enum class ErrorKind {
  kUsage,         // the request itself is wrong: unknown command, option, kernel, parameter, group
  kEnvironment,   // the machine or its files: counters that cannot open, database unusable
  kTargetFailed,  // the profiled target failed, crashed, was interrupted or its check failed
};

// A way out that the command line offers. The library names it; the CLI words it with its own
// flags (RemedyText in cli/exit_status.h), so library messages never name a flag.
enum class Remedy {
  kNone,
  kAllowMissingEvents,  // run without the events that cannot be counted
  kOtherDatabase,       // point rprof at another database file
};

struct Error {
  ErrorKind kind = ErrorKind::kEnvironment;
  std::string message;  // "<object>: <cause>; <what to do>"
  Remedy remedy = Remedy::kNone;
};

inline bool Fail(Error* err, ErrorKind kind, std::string message, Remedy remedy = Remedy::kNone) {
  if (err) *err = Error{kind, std::move(message), remedy};
  return false;
}

}  // namespace rprof

#endif  // RPROF_CORE_ERROR_H_
