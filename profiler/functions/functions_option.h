// rprof run --functions N|off: how many hot functions get a roofline point of their own.
#ifndef RPROF_FUNCTIONS_FUNCTIONS_OPTION_H_
#define RPROF_FUNCTIONS_FUNCTIONS_OPTION_H_

#include <string>

#include "core/error.h"

namespace rprof {

inline constexpr int kDefaultHotFunctions = 10;
inline constexpr const char* kFunctionsHelp =
    "programs: give the N hottest functions (by time and by FLOPs, and every function above "
    "1 % of the time) a roofline point of their own, no markers needed (default 10; sim counts "
    "each function's FLOPs and bytes, without it their sampled time alone); off: none, not "
    "sampled";

// "off" -> 0, a whole number 1..1000 -> itself. False with *err (kUsage) otherwise.
[[nodiscard]] bool ParseFunctionsOption(const std::string& text, int* top, Error* err);

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_FUNCTIONS_OPTION_H_
