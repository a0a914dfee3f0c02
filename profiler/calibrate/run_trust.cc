#include "calibrate/run_trust.h"

#include <algorithm>
#include <cstdio>

#include "calibrate/declared_work.h"
#include "calibrate/region_elsewhere.h"
#include "functions/replay_coverage.h"

namespace rprof {

namespace {

std::string Percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f %%", fraction * 100);
  return text;
}

std::string Ratio(double r) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", r);
  return text;
}

std::string List(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 4; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 4) out += " and " + std::to_string(names.size() - 4) + " more";
  return out;
}

// Marker regions repeat metric names: each name is listed once.
void AddOnce(std::vector<std::string>* names, const std::string& name) {
  if (std::find(names->begin(), names->end(), name) == names->end()) names->push_back(name);
}

// The group definition a pmu metric's value came from, or nullptr for a raw event.
const GroupMetric* DefinitionOf(const Metric& m, const GroupPlan& plan) {
  if (m.group.empty()) return nullptr;
  for (const MetricGroup& g : plan.groups) {
    if (g.name != m.group) continue;
    for (const GroupMetric& d : g.metrics)
      if (d.name == m.name) return &d;
  }
  return nullptr;
}

// Why the pmu metric `m` has no value, for the events_missing note. A hardware event on a
// machine without hardware counters failed for the diagnosed cause; the event's own note says
// what would make the event countable, and the run's note adds what the run can do instead:
// count with sim, unless it did.
std::string MissingReason(const Metric& m, const TrustContext& context, SimOutcome sim) {
  bool hardware_event = m.name.rfind("perf::", 0) != 0;
  if (hardware_event && context.pmu && !context.pmu->hardware_counters)
    return context.pmu->cause + "; " + PmuRemedy(*context.pmu, sim);
  return m.note;
}

}  // namespace

std::vector<TrustNote> RunTrustNotes(const RunRecord& run, const TrustContext& context) {
  bool counted_with_sim = std::any_of(run.metrics.begin(), run.metrics.end(), [](const Metric& m) {
    return m.source == Source::kSim && m.value;
  });
  SimOutcome sim = counted_with_sim                     ? SimOutcome::kCounted
                   : SourceWasAbsent(run, Source::kSim) ? SimOutcome::kGaveNothing
                   : run.job                            ? SimOutcome::kRefusedHere
                                                        : SimOutcome::kNotAsked;
  std::vector<TrustNote> notes;
  std::vector<std::string> partial, missing, approximated, uncore, uncalibrated, untrusted;
  double least = 1;
  std::string least_name, missing_reason;
  bool hardware_values = false;
  for (const Metric& m : run.metrics) {
    if (m.source != Source::kPmu) continue;
    if (!m.value) {
      AddOnce(&missing, m.name);
      if (missing_reason.empty()) missing_reason = MissingReason(m, context, sim);
      continue;
    }
    if (m.name.rfind("perf::", 0) != 0) hardware_values = true;
    if (m.coverage && *m.coverage < 1) {
      AddOnce(&partial, m.name);
      if (*m.coverage < least) least = *m.coverage, least_name = m.name;
    }
    if (m.socket_wide) AddOnce(&uncore, m.name);
    if (context.groups) {
      if (const GroupMetric* d = DefinitionOf(m, *context.groups)) {
        if (d->approximated()) AddOnce(&approximated, m.name);
        if (d->uncore()) AddOnce(&uncore, m.name);
      }
    }
  }
  if (!partial.empty())
    notes.push_back({"multiplexed", std::to_string(partial.size()) +
                                        " pmu value(s) were counted only part of the time and "
                                        "scaled up (" +
                                        List(partial) + "; least: " + least_name + ", " +
                                        Percent(least) +
                                        "); fewer events per run give exact counts"});
  if (!approximated.empty())
    notes.push_back({"approximated", List(approximated) +
                                         ": estimated from related events, not counted "
                                         "directly (the metric's note says how)"});
  if (!uncore.empty())
    notes.push_back({"uncore", List(uncore) +
                                   ": uncore counters count the whole socket, so other "
                                   "processes' traffic is included; measure on a quiet machine"});
  if (!missing.empty())
    notes.push_back({"events_missing", std::to_string(missing.size()) +
                                           " pmu event(s) or metric(s) could not be counted (" +
                                           List(missing) + "): " + missing_reason});
  if (context.virtual_machine && hardware_values)
    notes.push_back({"hypervisor",
                     "measured in a virtual machine: the hypervisor virtualises the "
                     "counters, and some events may count host work or nothing"});

  // Calibration verdicts, for the metrics calibration checks that this run measured.
  bool pmu_calibrated = false;
  for (const MetricTrust& t : context.calibration) pmu_calibrated |= t.source == Source::kPmu;
  for (const Metric& m : run.metrics) {
    if (!m.value || (m.source != Source::kPmu && m.source != Source::kSim)) continue;
    if (std::find(context.checked.begin(), context.checked.end(), m.name) == context.checked.end())
      continue;
    auto t = std::find_if(context.calibration.begin(), context.calibration.end(),
                          [&](const MetricTrust& verdict) {
                            return verdict.source == m.source && verdict.metric == m.name &&
                                   (m.source != Source::kSim || context.simulator.empty() ||
                                    verdict.counter_set == context.simulator);
                          });
    if (t == context.calibration.end()) {
      if (m.source == Source::kPmu) AddOnce(&uncalibrated, m.name);
      continue;
    }
    std::string subject = m.name + " (" + std::string(SourceName(m.source)) + ")";
    if (t->trusted || std::find(untrusted.begin(), untrusted.end(), subject) != untrusted.end())
      continue;
    untrusted.push_back(subject);
    std::string detail = subject + " is untrusted on this machine: rprof calibrate " +
                         t->created_at.substr(0, 10) + " measured ";
    if (t->min_ratio)
      detail += Ratio(*t->min_ratio) +
                (t->max_ratio != t->min_ratio ? " to " + Ratio(*t->max_ratio) : "") +
                " x the known count";
    else
      detail += "nothing";
    detail += "; rprof calibrate --show lists the verdicts";
    if (t->measured_points < t->points)
      detail += " (" + std::to_string(t->points - t->measured_points) + " of " +
                std::to_string(t->points) + " points not measured)";
    notes.push_back({"untrusted", detail});
  }
  if (!uncalibrated.empty())
    notes.push_back(
        {"uncalibrated",
         List(uncalibrated) + (pmu_calibrated
                                   ? ": not checked by this machine's newest pmu calibration"
                                   : ": this machine's counters were never calibrated; rprof "
                                     "calibrate checks them against kernels of known counts")});
  // Declared work that the counts contradict (one check for kernels, programs, regions and
  // benchmarks alike).
  for (TrustNote& n : DeclaredWorkNotes(run)) notes.push_back(std::move(n));
  // Work of other threads a pmu region's per-thread counters did not see.
  for (TrustNote& n : RegionElsewhereNotes(run)) notes.push_back(std::move(n));
  if (!context.profile_noisy_reasons.empty()) {
    std::string reasons;
    for (size_t i = 0; i < context.profile_noisy_reasons.size() && i < 3; ++i)
      reasons += (i ? "; " : "") + context.profile_noisy_reasons[i];
    if (context.profile_noisy_reasons.size() > 3)
      reasons += "; and " + std::to_string(context.profile_noisy_reasons.size() - 3) + " more";
    notes.push_back({"noisy_profile", "placed against machine profile " +
                                          std::to_string(context.profile_id) +
                                          ", which is noisy (" + reasons +
                                          "): its roofs may be off; rprof machine measure on a "
                                          "quiet machine measures a better one"});
  }
  // A replay that ran other code than the timed run: its counts describe that code.
  for (const Metric& m : run.metrics)
    if (m.name == kReplayMissingShare && m.source == Source::kSim && m.value && *m.value > 0)
      notes.push_back({"replay_ran_other_code",
                       (m.region.empty() ? "" : "region " + m.region + ": ") + m.note});
  for (const std::string& detail : context.time_contradictions)
    notes.push_back({"time_contradicts_bytes", detail});
  return notes;
}

}  // namespace rprof
