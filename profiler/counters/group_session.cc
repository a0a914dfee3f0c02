#include "counters/group_session.h"

#include <algorithm>
#include <cstdio>

#include "counters/groups_location.h"
#include "counters/pmu/group_eval.h"
#include "counters/pmu/group_library.h"
#include "counters/pmu/pfm_events.h"

namespace rprof {

namespace {

const Metric* Raw(const std::vector<Metric>& raw, const std::string& event) {
  for (const Metric& m : raw)
    if (m.name == event && m.source == Source::kPmu && m.region.empty()) return &m;
  return nullptr;
}

// The share of the run the event was counted: 1 when counted throughout.
double CoverageOf(const Metric& m) { return m.coverage.value_or(1.0); }

}  // namespace

bool LoadGroupPlan(const std::vector<std::string>& names, GroupPlan* plan, Error* err) {
  GroupLibrary library(GroupsDataDir());
  plan->pmu = library.ResolvePmu(HostCorePmuName());
  for (const std::string& name : names) {
    MetricGroup group;
    Error why;
    if (!library.LoadGroup(plan->pmu, name, &group, &why))
      // A group that does not exist is a mistake in the request; a broken file, the machine's.
      return Fail(
          err,
          library.FindGroup(plan->pmu, name).empty() ? ErrorKind::kUsage : ErrorKind::kEnvironment,
          "group " + name + " (" + plan->pmu + "): " + why.message);
    for (const GroupEvent& e : group.events) {
      bool seen = false;
      for (const auto& known : plan->events) seen = seen || known == e.event;
      if (!seen) plan->events.push_back(e.event);
    }
    plan->groups.push_back(std::move(group));
  }
  return true;
}

void ListGroupsHere(std::string* pmu, std::vector<GroupSummary>* groups) {
  GroupLibrary library(GroupsDataDir());
  *pmu = library.ResolvePmu(HostCorePmuName());
  for (const std::string& name : library.ListGroups(*pmu)) {
    MetricGroup group;
    Error why;
    groups->push_back({name, library.LoadGroup(*pmu, name, &group, &why)
                                 ? group.description
                                 : "cannot be loaded: " + why.message});
  }
}

bool CheckRequiredEvents(const GroupPlan& plan, const std::vector<Metric>& opened, Error* err) {
  for (const MetricGroup& group : plan.groups)
    for (const GroupEvent& e : group.events) {
      if (!e.required) continue;
      const Metric* m = Raw(opened, e.event);
      if (m && m->value) continue;
      return Fail(err, ErrorKind::kEnvironment,
                  "group " + group.name + " (" + plan.pmu + "): cannot count " + e.event + ": " +
                      (m ? m->note : std::string("not opened")));
    }
  return true;
}

std::vector<Metric> GroupMetrics(const GroupPlan& plan, const std::vector<Metric>& raw,
                                 std::optional<double> time_s) {
  std::vector<Metric> out;
  for (const MetricGroup& group : plan.groups) {
    EventCounts counts;
    for (const GroupEvent& e : group.events)
      if (const Metric* m = Raw(raw, e.event); m && m->value)
        counts[e.alias] = EventCount{*m->value, CoverageOf(*m)};
    for (const MetricResult& r : EvaluateGroup(group, counts, time_s)) {
      bool have = false;
      for (const Metric& m : out) have = have || m.name == r.name;
      if (have) continue;  // two groups define it: the first one asked for wins
      std::string note = r.value ? "group " + group.name + ": " + r.formula : r.reason;
      for (const MetricNote& n : r.notes) note += "; " + n.text;
      if (r.value && r.coverage < 1) {
        char text[64];
        std::snprintf(text, sizeof text, "; counted %.0f %% of the time", r.coverage * 100);
        note += text;
      }
      Metric metric{r.name, r.value, r.unit, Source::kPmu, "", note};
      if (r.value && r.coverage < 1) metric.coverage = r.coverage;
      if (r.value) metric.group = group.name;
      out.push_back(std::move(metric));
    }
  }
  // Groups split FLOPs by precision; the rates need the total. Both precisions counted: their
  // sum. One: that one, and the note says the other was not counted.
  const Metric* dp = nullptr;
  const Metric* sp = nullptr;
  bool have_flops = false;
  for (const Metric& m : out) {
    if (m.name == "flops_dp" && m.value) dp = &m;
    if (m.name == "flops_sp" && m.value) sp = &m;
    if (m.name == "flops" && m.value) have_flops = true;
  }
  if (!have_flops && (dp || sp)) {
    double total = (dp ? *dp->value : 0) + (sp ? *sp->value : 0);
    std::string note = dp && sp ? "flops_dp + flops_sp"
                       : dp     ? "flops_dp only: fp32 FLOPs not counted (add --group FLOPS_SP)"
                                : "flops_sp only: fp64 FLOPs not counted (add --group FLOPS_DP)";
    // The sum is as trustworthy as its less covered part.
    std::optional<double> coverage;
    for (const Metric* part : {dp, sp})
      if (part && part->coverage) coverage = std::min(coverage.value_or(1.0), *part->coverage);
    std::erase_if(out, [](const Metric& m) { return m.name == "flops"; });
    out.push_back({"flops", total, "FLOP", Source::kPmu, "", note, coverage});
  }
  return out;
}

}  // namespace rprof
