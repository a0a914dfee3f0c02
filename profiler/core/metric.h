// A measured or modelled value with its name, unit and source. A value that could not be
// measured is std::nullopt with the reason, never 0 (and NULL in SQLite).
#ifndef RPROF_CORE_METRIC_H_
#define RPROF_CORE_METRIC_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/source.h"

namespace rprof {

struct Metric {
  std::string name;  // canonical ("flops_dp", "bytes_dram", "gflops") or a PMU event name
  std::optional<double> value;
  std::string unit;  // "s", "FLOP", "B", "GFLOP/s", "GB/s", "FLOP/B", "count"
  Source source = Source::kModel;
  std::string region;  // "" for the whole run, else a marker region's name
  std::string note;    // why the value is absent, or how it was approximated
  // Counters only: the fraction of the measured time the event (or, for a formula, its least
  // covered input) was actually counted, when it was less than all of it: multiplexed or
  // counted in one of several passes, and scaled up by 1 / coverage. nullopt: counted
  // throughout, or not a counter.
  std::optional<double> coverage = std::nullopt;
  // pmu only, for the decisions made before the run is stored (its trust notes); the note says
  // the same to people, and is what is stored. The metric group whose formula gave the value
  // ("" for a raw event), and whether the count covers a whole socket (uncore), not the target.
  std::string group = "";
  bool socket_wide = false;
  // Counted over repetitions (at least 2): how far the value can be trusted, as
  // SpreadPercent (core/stats.h) of the values each repetition (or execution) gave. Kept for
  // the run's own report, not stored: a stored run's time_s has it from its samples.
  std::optional<double> spread_pct = std::nullopt;
};

// The first metric with this name and source in the region, or nullptr.
const Metric* FindMetric(const std::vector<Metric>& metrics, std::string_view name, Source source,
                         std::string_view region = "");

// The value the report leads with: the clock's, else the first counting source's that has
// one (CountingSources: measured before the model).
const Metric* PreferredMetric(const std::vector<Metric>& metrics, std::string_view name,
                              std::string_view region = "");

// The mean over executions of a program: metrics of the same (region, name, source) are summed,
// then divided by the number of executions, so stored values are per execution as a kernel's
// are per call. A value absent in any execution is absent (with the first reason), never a
// partial sum. Over 2 executions or more, each value carries its spread_pct.
std::vector<Metric> MeanPerExecution(const std::vector<std::vector<Metric>>& per_execution);

}  // namespace rprof

#endif  // RPROF_CORE_METRIC_H_
