#include "cli/option_ranges.h"

#include <cmath>

#include "core/text.h"

namespace rprof {

bool CheckSeconds(const std::string& option, double value, const std::string& zero_means,
                  Error* err) {
  if (value >= 0 && value <= kMaxOptionSeconds) return true;
  std::string shown = Format("%g", value);
  if (!(value >= 0))
    return Fail(err, ErrorKind::kUsage,
                option + " " + shown + ": must be 0 or more seconds; " + zero_means);
  return Fail(err, ErrorKind::kUsage,
              option + " " + shown + ": out of range, at most " + Format("%g", kMaxOptionSeconds) +
                  " s (a week); " + zero_means);
}

bool CheckAmount(const std::string& option, double value, Error* err) {
  if (value >= 0 && std::isfinite(value)) return true;
  return Fail(err, ErrorKind::kUsage,
              option + " " + Format("%g", value) + ": must be a finite number, 0 or more");
}

}  // namespace rprof
