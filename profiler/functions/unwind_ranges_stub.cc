// Without elfutils (libdw): no unwind table is read, so code without a symbol is named by the
// lowest address executed in it, per module (function_counts.h).
#include "functions/unwind_ranges.h"

namespace rprof {

struct UnwindRanges::File {};
UnwindRanges::UnwindRanges() = default;
UnwindRanges::~UnwindRanges() = default;
std::optional<uint64_t> UnwindRanges::FunctionStart(const std::string&, uint64_t) {
  return std::nullopt;
}

}  // namespace rprof
