// Metric groups on the pmu source (rprof run --group FLOPS_DP,MEM): the groups of this machine's
// PMU (or the generic ones on PAPI presets) are loaded from their data files, their events are
// counted like any --events, and the group formulas turn the counts into canonical metrics.
#ifndef RPROF_COUNTERS_GROUP_SESSION_H_
#define RPROF_COUNTERS_GROUP_SESSION_H_

#include <string>
#include <vector>

#include "core/error.h"
#include "core/metric.h"
#include "counters/pmu/metric_group.h"

namespace rprof {

struct GroupPlan {
  std::string pmu;  // the group set used: "icx", …, or "generic"
  std::vector<MetricGroup> groups;
  std::vector<std::string> events;  // every group's events, each once, in order
};

// Loads the named groups for this machine. kUsage for an unknown group (with the groups that
// exist and a "did you mean"), kEnvironment for a broken group file (a user's file with an
// unknown directive included).
bool LoadGroupPlan(const std::vector<std::string>& names, GroupPlan* plan, Error* err);

struct GroupSummary {
  std::string name;         // "FLOPS_DP"
  std::string description;  // its SHORT line, or why its file cannot be read
};

// The groups LoadGroupPlan can load on this machine, sorted: *pmu is their set ("icx", …, or
// "generic"). A broken file is listed with its error rather than failing the list.
void ListGroupsHere(std::string* pmu, std::vector<GroupSummary>* groups);

// Checks, before measuring, that every required event of every group can be counted: `opened`
// are the metrics a counter session reports for plan.events (absent ones carry the reason).
// kEnvironment naming the group, the event and the reason otherwise.
bool CheckRequiredEvents(const GroupPlan& plan, const std::vector<Metric>& opened, Error* err);

// The groups' canonical metrics (source pmu) from the raw event counts of a run, per call.
// Optional inputs that are missing leave only their metrics absent, with the reason; values
// computed from multiplexed counts carry their coverage in the note.
std::vector<Metric> GroupMetrics(const GroupPlan& plan, const std::vector<Metric>& raw,
                                 std::optional<double> time_s);

}  // namespace rprof

#endif  // RPROF_COUNTERS_GROUP_SESSION_H_
