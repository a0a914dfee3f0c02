#include "roofline/job_summary.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/derived_metrics.h"
#include "core/source.h"

namespace rprof {

namespace {

// "2", "2, 3"
std::string Ranks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

bool Additive(const std::string& name) {
  return name.rfind("flops", 0) == 0 || name.rfind("bytes_", 0) == 0;
}

double Percentile(const std::vector<double>& sorted, double q) {
  double at = q * static_cast<double>(sorted.size() - 1);
  size_t low = static_cast<size_t>(std::floor(at));
  size_t high = std::min(low + 1, sorted.size() - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - static_cast<double>(low));
}

}  // namespace

RankStats SummarizeRanks(std::vector<double> values) {
  RankStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = static_cast<int>(values.size());
  s.min = values.front();
  s.max = values.back();
  for (double v : values) s.sum += v;
  s.mean = s.sum / s.count;
  s.p25 = Percentile(values, 0.25);
  s.median = Percentile(values, 0.5);
  s.p75 = Percentile(values, 0.75);
  return s;
}

JobCompleteness CheckCompleteness(const std::vector<RunRecord>& runs) {
  JobCompleteness c;
  std::map<int, const RunRecord*> newest;
  for (const RunRecord& run : runs) {
    if (!run.job) continue;
    c.size = std::max(c.size, run.job->size);
    auto [it, fresh] = newest.emplace(run.job->rank, &run);
    if (!fresh) {
      if (std::find(c.duplicated.begin(), c.duplicated.end(), run.job->rank) == c.duplicated.end())
        c.duplicated.push_back(run.job->rank);
      if (run.id > it->second->id) it->second = &run;
    }
  }
  for (int r = 0; r < c.size; ++r) {
    auto it = newest.find(r);
    if (it == newest.end())
      c.missing.push_back(r);
    else if (it->second->status != RunStatus::kOk)
      c.not_ok.push_back(r);
  }
  std::sort(c.duplicated.begin(), c.duplicated.end());
  std::vector<std::string> why;
  for (int r : c.not_ok) {
    const RunRecord& run = *newest[r];
    std::string how = RunStatusName(run.status);
    if (run.signal)
      how += " (signal " + std::to_string(*run.signal) + ")";
    else if (run.exit_code)
      how += " (exit " + std::to_string(*run.exit_code) + ")";
    why.push_back("rank " + std::to_string(r) + " " + how);
  }
  if (!c.missing.empty())
    why.push_back((c.missing.size() == 1 ? "rank " : "ranks ") + Ranks(c.missing) +
                  " not stored (in another node's database: `rprof merge` it; or never ended)");
  for (const std::string& w : why) c.reason += (c.reason.empty() ? "" : "; ") + w;
  return c;
}

std::vector<Metric> SumOverRanks(const std::vector<const RunRecord*>& ranks,
                                 const std::string& region) {
  std::vector<Metric> out;
  if (ranks.empty()) return out;
  // The slowest rank's wall time in the region: the job's.
  std::optional<double> slowest;
  for (const RunRecord* run : ranks) {
    const Metric* t = FindMetric(run->metrics, "time_s", Source::kClock, region);
    if (!t || !t->value) {
      slowest.reset();
      break;
    }
    slowest = std::max(slowest.value_or(0), *t->value);
  }
  if (!slowest) return out;
  out.push_back(Metric{std::string("time_s"), slowest, std::string("s"), Source::kClock, region,
                       std::string()});
  // Every additive count of the first rank, summed where every rank has it.
  for (const Metric& first : ranks.front()->metrics) {
    if (first.region != region || !Additive(first.name) || !first.value) continue;
    double sum = 0;
    bool whole = true;
    for (const RunRecord* run : ranks) {
      const Metric* m = FindMetric(run->metrics, first.name, first.source, region);
      if (!m || !m->value) {
        whole = false;
        break;
      }
      sum += *m->value;
    }
    if (!whole) continue;
    out.push_back(Metric{first.name, sum, first.unit, first.source, region, std::string()});
  }
  AddDerivedMetrics(&out);
  return out;
}

JobPlacement PlaceJob(const std::vector<const RunRecord*>& ranks,
                      const std::map<std::string, std::pair<int64_t, MachineProfile>>& profiles) {
  JobPlacement job;
  std::map<std::string, size_t> node_of;
  for (const RunRecord* run : ranks) {
    auto [it, fresh] = node_of.emplace(run->machine.fingerprint, job.nodes.size());
    if (fresh) job.nodes.push_back({run->machine.fingerprint, run->machine.hostname, 0, 0, 0});
    ++job.nodes[it->second].ranks;
  }
  job.metrics = SumOverRanks(ranks, "");
  std::vector<std::string> unprofiled;
  for (JobNode& node : job.nodes) {
    auto it = profiles.find(node.fingerprint);
    if (it == profiles.end()) {
      unprofiled.push_back(node.host);
      continue;
    }
    node.profile_id = it->second.first;
  }
  if (!unprofiled.empty()) {
    std::string hosts;
    for (const std::string& h : unprofiled) hosts += (hosts.empty() ? "" : ", ") + h;
    job.reason = "node " + hosts + " has no machine profile in this database, so the job's roof " +
                 "(the sum of its nodes' roofs) is not known; `rprof machine measure` on it, " +
                 "then `rprof merge` its database";
    return job;
  }
  // The sum of the nodes' roofs: each ceiling of the first node's, at the thread count nearest
  // its ranks, plus the same ceiling of every other node at theirs. A ceiling a node lacks is
  // left out of the sum altogether: no roof is made of some nodes alone.
  std::vector<Ceiling> summed;
  for (size_t n = 0; n < job.nodes.size(); ++n) {
    JobNode& node = job.nodes[n];
    const MachineProfile& profile = profiles.at(node.fingerprint).second;
    std::set<int> counts;
    for (const Ceiling& c : profile.ceilings) counts.insert(c.threads);
    int nearest = 0;
    for (int c : counts)
      if (nearest == 0 || std::abs(c - node.ranks) < std::abs(nearest - node.ranks)) nearest = c;
    node.roof_threads = nearest;
    std::vector<Ceiling> mine;
    for (const Ceiling& c : profile.ceilings)
      if (c.threads == nearest) mine.push_back(c);
    if (n == 0) {
      summed = mine;
      continue;
    }
    std::vector<Ceiling> kept;
    for (Ceiling& c : summed) {
      auto same = std::find_if(mine.begin(), mine.end(),
                               [&](const Ceiling& m) { return m.name == c.name; });
      if (same == mine.end()) continue;
      c.value += same->value;
      kept.push_back(c);
    }
    summed = kept;
  }
  for (Ceiling& c : summed) c.threads = 1;  // one roof, the job's
  MachineProfile roof = profiles.at(job.nodes.front().fingerprint).second;
  roof.ceilings = summed;
  roof.threads = 1;
  RunShape shape = RunShapeOf(*ranks.front(), profiles.at(job.nodes.front().fingerprint).second);
  shape.threads = 1;
  shape.threads_note = "the job's ranks on the sum of their nodes' roofs";
  job.placement = PlaceRun(job.metrics, shape, roof);
  if (!job.placement.placed) job.reason = job.placement.reason;
  return job;
}

}  // namespace rprof
