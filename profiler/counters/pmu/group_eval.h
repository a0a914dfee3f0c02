// Turns a metric group's counts into canonical metric values: each value present, or absent with
// the reason, and with the coverage of the counts it was computed from.
#ifndef RPROF_COUNTERS_PMU_GROUP_EVAL_H_
#define RPROF_COUNTERS_PMU_GROUP_EVAL_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "counters/pmu/metric_group.h"

namespace rprof {

// One event's count as the caller measured it.
struct EventCount {
  // The count, already scaled by the caller for multiplexing (time_enabled / time_running).
  double value = 0;
  // The fraction of the run the event was actually on a counter (time_running / time_enabled),
  // in (0, 1]. 0 means it never ran: the count is then treated as missing, never as 0.
  double coverage = 1.0;
};

// Counts keyed by the group's event aliases. An alias that is not in the map was not counted.
using EventCounts = std::map<std::string, EventCount, std::less<>>;

struct MetricResult {
  std::string name;  // canonical
  std::string unit;
  std::optional<double> value;
  // Why value is absent: the missing events by alias and name, a division by zero, or the
  // group's ABSENT reason. Empty when value is present.
  std::string reason;
  // The smallest coverage among the events the chosen formula read (1 when it read none but
  // time_s); 0 when value is absent. Store it as the value's trust.
  double coverage = 0;
  // The formula text and notes of the definition that gave the value (empty when absent).
  std::string formula;
  std::vector<MetricNote> notes;
  // Why earlier alternative definitions were passed over, e.g. "64 * (rd0 + ...): no count for
  // rd3 (skx_unc_imc3::UNC_M_CAS_COUNT:RD, optional)". Empty when the first definition gave it.
  std::vector<std::string> fallbacks;
  // True when the group declares the metric absent on its PMU (reason is the group's).
  bool absent_by_design = false;

  bool approximated() const;  // the definition used carries an approximation note
  bool uncore() const;        // the definition used carries an uncore note
};

// Evaluates every metric of group, one result per distinct metric name in file order (defined
// ones, then those declared absent). For a metric defined more than once the first definition
// whose inputs all have values is used; when none has, the result is absent and its reason is the
// first definition's. time_s is the run's wall time, or nullopt when the caller has none.
std::vector<MetricResult> EvaluateGroup(const MetricGroup& group, const EventCounts& counts,
                                        std::optional<double> time_s);

// The missing required events of group in counts, as "alias (event)" strings: the caller's check
// before evaluating (a missing required event stops the run unless missing ones are allowed).
std::vector<std::string> MissingRequiredEvents(const MetricGroup& group, const EventCounts& counts);

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_GROUP_EVAL_H_
