#include "calibrate/declared_work.h"

#include <cmath>
#include <set>
#include <string>
#include <unordered_map>

#include "core/text.h"

namespace rprof {

namespace {

// Who declared the value, as the user wrote it.
std::string DeclaredBy(const RunRecord& run, const std::string& region, const char* quantity) {
  if (!region.empty())
    return Format("region %s's declared %s (rprof_region_declare)", region.c_str(), quantity);
  if (run.target_kind == "executable")
    return Format("the declared %s (--%s)", quantity,
                  std::string(quantity) == "FLOPs" ? "flops" : "bytes");
  if (run.target_kind == "benchmark")
    return Format("the benchmark's declared %s per iteration", quantity);
  return Format("the kernel's declared %s (its model)", quantity);
}

// What usually makes the declaration wrong, where rprof knows.
std::string Hint(const RunRecord& run, const std::string& region, bool flops) {
  if (!flops)
    return "; declared bytes are compulsory (each input read once, each output written once), "
           "the measured ones actual traffic (write-allocate, cache reuse): the placement uses "
           "the measured";
  if (region.empty() && run.target_kind == "benchmark")
    return "; a rate counter set from one iteration's work (kIsRate instead of "
           "kIsIterationInvariantRate), or a formula that misses work, is the usual cause";
  return "; the placement uses the measured count: check the declaration";
}

// The run's metrics by (name, source, region), the first of each as FindMetric finds it: a
// program may mark 10^5 regions, and a scan of every metric per region cost minutes.
class MetricIndex {
 public:
  explicit MetricIndex(const std::vector<Metric>& metrics) {
    for (const Metric& m : metrics) index_.emplace(Key(m.name, m.source, m.region), &m);
  }
  const Metric* Find(const std::string& name, Source source, const std::string& region) const {
    auto at = index_.find(Key(name, source, region));
    return at == index_.end() ? nullptr : at->second;
  }

 private:
  static std::string Key(const std::string& name, Source source, const std::string& region) {
    std::string key = name;
    key.push_back('\0');
    key += std::to_string(static_cast<int>(source));
    key.push_back('\0');
    key += region;
    return key;
  }
  std::unordered_map<std::string, const Metric*> index_;
};

// The count that judges the declaration: sim's, else pmu's.
const Metric* Counted(const MetricIndex& metrics, const std::string& name,
                      const std::string& region) {
  for (Source source : {Source::kSim, Source::kPmu}) {
    const Metric* m = metrics.Find(name, source, region);
    if (m && m->value) return m;
  }
  return nullptr;
}

void Check(const RunRecord& run, const MetricIndex& metrics, const std::string& region,
           const std::string& name, bool flops, std::vector<TrustNote>* notes) {
  const Metric* declared = metrics.Find(name, Source::kModel, region);
  if (!declared || !declared->value) return;
  const Metric* counted = Counted(metrics, name, region);
  if (!counted) return;
  double d = *declared->value, c = *counted->value;
  if (d == c) return;
  std::string gap = c > 0 ? Format("%.0f %%", std::fabs(d / c - 1) * 100) : "all of it";
  // The tolerance itself is agreement (1.05e6 against 1e6 is 5.000000000000004 % in doubles).
  if (c > 0 && std::fabs(d / c - 1) <= kDeclaredTolerance * (1 + 1e-9)) return;
  std::string source(SourceName(counted->source));
  notes->push_back(
      {"untrusted", Format("%s (%.6g) differ from %s's count%s (%.6g) by %s",
                           DeclaredBy(run, region, flops ? "FLOPs" : "bytes").c_str(), d,
                           source.c_str(), flops ? "" : " of DRAM traffic", c, gap.c_str()) +
                        Hint(run, region, flops)});
}

}  // namespace

std::vector<TrustNote> DeclaredWorkNotes(const RunRecord& run) {
  std::set<std::string> regions = {""};
  for (const Metric& m : run.metrics) regions.insert(m.region);
  bool kernel = run.target_kind != "executable" && run.target_kind != "benchmark";
  std::vector<TrustNote> notes;
  MetricIndex metrics(run.metrics);
  for (const std::string& region : regions) {
    Check(run, metrics, region, "flops", true, &notes);
    // A kernel's model bytes are compulsory by definition: their gap to traffic is the lesson.
    if (!kernel || !region.empty()) Check(run, metrics, region, "bytes_dram", false, &notes);
  }
  return notes;
}

}  // namespace rprof
