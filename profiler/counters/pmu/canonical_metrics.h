// The canonical metric names a counter source may produce, with their units: the one list that
// group files, the store and the JSON output agree on. A group file may only define these names.
#ifndef RPROF_COUNTERS_PMU_CANONICAL_METRICS_H_
#define RPROF_COUNTERS_PMU_CANONICAL_METRICS_H_

#include <span>
#include <string_view>

namespace rprof {

struct CanonicalMetric {
  std::string_view name;  // e.g. "bytes_dram"
  // "FLOP", "B" or "count", as core/metric.h spells units; a group file writes it in brackets.
  std::string_view unit;
  std::string_view description;
};

// Every canonical metric measured by counters, in display order.
std::span<const CanonicalMetric> CanonicalMetrics();

// The entry for name, or nullptr when name is not canonical.
const CanonicalMetric* FindCanonicalMetric(std::string_view name);

// The name the caller supplies to every formula: the run's wall time in seconds.
inline constexpr std::string_view kTimeName = "time_s";

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_CANONICAL_METRICS_H_
