// The ranges numeric options are checked against before anything runs. A value past them is a
// typo or `inf`: turned into a deadline it overflows (a --timeout of 1e300 s once killed the
// program at once), as a loop bound it never ends (--min-time inf).
#ifndef RPROF_CLI_OPTION_RANGES_H_
#define RPROF_CLI_OPTION_RANGES_H_

#include <string>

#include "core/error.h"

namespace rprof {

// The longest a time option may ask for: a week.
constexpr double kMaxOptionSeconds = 7 * 24 * 3600.0;

// `value` seconds for `option` ("--timeout"): from 0 to kMaxOptionSeconds; kUsage otherwise,
// "--timeout inf: out of range, at most 604800 s (a week); <zero_means>".
bool CheckSeconds(const std::string& option, double value, const std::string& zero_means,
                  Error* err);

// A count or amount (--flops, --bytes): finite, 0 or more.
bool CheckAmount(const std::string& option, double value, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_OPTION_RANGES_H_
