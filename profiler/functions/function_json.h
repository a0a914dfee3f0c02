// The "source" key of a hot function in rprof's JSON: {"file": …, "lines": [first, last]},
// from its line_first / line_last metrics (source sim, the file in their note).
#ifndef RPROF_FUNCTIONS_FUNCTION_JSON_H_
#define RPROF_FUNCTIONS_FUNCTION_JSON_H_

#include <vector>

#include "core/json.h"
#include "core/metric.h"

namespace rprof {

// Writes "source" into the object being written; nothing when no line is known.
void WriteFunctionSource(const std::vector<const Metric*>& metrics, JsonWriter* w);

}  // namespace rprof

#endif  // RPROF_FUNCTIONS_FUNCTION_JSON_H_
