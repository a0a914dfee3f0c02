// Metrics computed from other metrics (GFLOP/s, GB/s per level, arithmetic intensity), defined
// as data in derived_metrics.txt and compiled into the binary.
#ifndef RPROF_CORE_DERIVED_METRICS_H_
#define RPROF_CORE_DERIVED_METRICS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/formula.h"
#include "core/metric.h"

namespace rprof {

struct DerivedMetricDef {
  std::string name;
  std::string unit;
  Formula formula;
};

// Parses one `name [unit] = formula` line. Returns nullopt with *err (kUsage) on a malformed line.
[[nodiscard]] std::optional<DerivedMetricDef> ParseMetricLine(std::string_view line, Error* err);

// The definitions from derived_metrics.txt, parsed once.
const std::vector<DerivedMetricDef>& DerivedMetricDefs();

// Appends every derived metric computable from `metrics`, per source and region. time_s is the
// clock metric of the same region.
void AddDerivedMetrics(std::vector<Metric>* metrics);

}  // namespace rprof

#endif  // RPROF_CORE_DERIVED_METRICS_H_
