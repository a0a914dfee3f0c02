#include "counters/pmu/group_eval.h"

#include <algorithm>
#include <cmath>

#include "counters/pmu/canonical_metrics.h"

namespace rprof {
namespace {

// A count is usable when it was on a counter at some point and is a real number.
bool Usable(const EventCount& count) {
  return count.coverage > 0 && std::isfinite(count.value) && std::isfinite(count.coverage);
}

std::string Describe(const GroupEvent& event) {
  return event.alias + " (" + event.event + (event.required ? "" : ", optional") + ")";
}

// Tries one definition. On success sets *value and *coverage; otherwise *why.
bool TryDefinition(const MetricGroup& group, const GroupMetric& metric, const EventCounts& counts,
                   std::optional<double> time_s, double* value, double* coverage,
                   std::string* why) {
  // Name every missing input, not only the first one the evaluator meets: the user fixes all at
  // once.
  std::vector<std::string> missing;
  double min_coverage = 1.0;
  for (const auto& input : metric.formula.names()) {
    if (input == kTimeName) {
      if (!time_s) missing.push_back(std::string(kTimeName) + " (the run's wall time)");
      continue;
    }
    const GroupEvent* event = group.FindEvent(input);
    auto it = counts.find(input);
    if (it == counts.end()) {
      missing.push_back(event ? Describe(*event) : input);
    } else if (!Usable(it->second)) {
      missing.push_back((event ? Describe(*event) : input) + (it->second.coverage <= 0
                                                                  ? " never ran on a counter"
                                                                  : " is not a number"));
    } else {
      min_coverage = std::min(min_coverage, std::min(1.0, it->second.coverage));
    }
  }
  if (!missing.empty()) {
    *why = "no count for ";
    for (size_t i = 0; i < missing.size(); ++i) *why += (i ? ", " : "") + missing[i];
    return false;
  }
  Error eval_why;
  auto result = metric.formula.Evaluate(
      [&](std::string_view name) -> std::optional<double> {
        if (name == kTimeName) return time_s;
        auto it = counts.find(name);
        if (it == counts.end()) return std::nullopt;
        return it->second.value;
      },
      &eval_why);
  if (!result) {
    *why = eval_why.message;
    return false;
  }
  *value = *result;
  *coverage = min_coverage;
  return true;
}

}  // namespace

bool MetricResult::approximated() const {
  return HasNoteOfKind(notes, MetricNote::Kind::kApproximation);
}

bool MetricResult::uncore() const { return HasNoteOfKind(notes, MetricNote::Kind::kUncore); }

std::vector<MetricResult> EvaluateGroup(const MetricGroup& group, const EventCounts& counts,
                                        std::optional<double> time_s) {
  std::vector<MetricResult> results;
  for (const auto& name : group.MetricNames()) {
    MetricResult result;
    result.name = name;
    if (const CanonicalMetric* canonical = FindCanonicalMetric(name))
      result.unit = std::string(canonical->unit);
    std::string first_reason;
    bool any_definition = false;
    for (const auto& metric : group.metrics) {
      if (metric.name != name) continue;
      any_definition = true;
      double value = 0, coverage = 0;
      std::string why;
      if (TryDefinition(group, metric, counts, time_s, &value, &coverage, &why)) {
        result.value = value;
        result.coverage = coverage;
        result.formula = metric.formula.text();
        result.notes = metric.notes;
        result.reason.clear();
        break;
      }
      if (first_reason.empty()) first_reason = why;
      result.fallbacks.push_back(metric.formula.text() + ": " + why);
    }
    if (!any_definition) {
      for (const auto& absent : group.absent) {
        if (absent.name == name) result.reason = absent.reason;
      }
      result.absent_by_design = true;
    } else if (!result.value) {
      // With alternatives, say why each failed; with one definition its reason says it all.
      if (result.fallbacks.size() == 1) {
        result.reason = first_reason;
      } else {
        for (size_t i = 0; i < result.fallbacks.size(); ++i)
          result.reason += (i ? "; " : "") + result.fallbacks[i];
      }
      result.fallbacks.clear();
    }
    results.push_back(std::move(result));
  }
  return results;
}

std::vector<std::string> MissingRequiredEvents(const MetricGroup& group,
                                               const EventCounts& counts) {
  std::vector<std::string> missing;
  for (const auto& event : group.events) {
    if (!event.required) continue;
    auto it = counts.find(event.alias);
    if (it == counts.end() || !Usable(it->second)) missing.push_back(Describe(event));
  }
  return missing;
}

}  // namespace rprof
