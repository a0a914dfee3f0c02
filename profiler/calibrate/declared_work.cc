#include "calibrate/declared_work.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <unordered_map>

#include "core/target_kind.h"
#include "core/text.h"

namespace rprof {

namespace {

// Who declared the value, as the user wrote it.
std::string DeclaredBy(const RunRecord& run, const std::string& region, const char* quantity) {
  if (!region.empty())
    return Format("region %s's declared %s (rprof_region_declare)", region.c_str(), quantity);
  switch (TargetKindTraits(run.target_kind).declarer) {
    case WorkDeclarer::kCommandFlags:
      return Format("the declared %s (--%s)", quantity,
                    std::string(quantity) == "FLOPs" ? "flops" : "bytes");
    case WorkDeclarer::kBenchmarkCounters:
      return Format("the benchmark's declared %s per iteration", quantity);
    case WorkDeclarer::kKernelModel:
      break;
  }
  return Format("the kernel's declared %s (its model)", quantity);
}

// What usually makes the declaration wrong, where rprof knows.
std::string Hint(const RunRecord& run, const std::string& region, bool flops) {
  if (!flops)
    return "; declared bytes are compulsory (each input read once, each output written once), "
           "the measured ones actual traffic (write-allocate, cache reuse): the placement uses "
           "the measured";
  if (region.empty() &&
      TargetKindTraits(run.target_kind).declarer == WorkDeclarer::kBenchmarkCounters)
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

// The tolerance itself is agreement (1.05e6 against 1e6 is 5.000000000000004 % in doubles).
bool Agrees(double declared, double counted) {
  return declared == counted ||
         (counted > 0 && std::fabs(declared / counted - 1) <= kDeclaredTolerance * (1 + 1e-9));
}

// "100 %", or past 100 times "more than 100x": 3,099,900 % is no more telling, and harder to
// read.
std::string Gap(double declared, double counted) {
  if (counted <= 0) return "all of it";
  double ratio = std::max(declared / counted, counted / declared);
  if (ratio > 100) return "more than 100x";
  return Format("%.0f %%", std::fabs(declared / counted - 1) * 100);
}

void Note(const RunRecord& run, const std::string& region, bool flops, double declared,
          const Metric& counted, const std::string& counted_what, std::vector<TrustNote>* notes) {
  notes->push_back(
      {"untrusted", Format("%s (%.6g) differ from %s's count%s (%.6g) by %s",
                           DeclaredBy(run, region, flops ? "FLOPs" : "bytes").c_str(), declared,
                           std::string(SourceName(counted.source)).c_str(), counted_what.c_str(),
                           *counted.value, Gap(declared, *counted.value).c_str()) +
                        Hint(run, region, flops)});
}

void CheckFlops(const RunRecord& run, const MetricIndex& metrics, const std::string& region,
                std::vector<TrustNote>* notes) {
  const Metric* declared = metrics.Find("flops", Source::kModel, region);
  if (!declared || !declared->value) return;
  const Metric* counted = Counted(metrics, "flops", region);
  if (!counted || Agrees(*declared->value, *counted->value)) return;
  Note(run, region, true, *declared->value, *counted, "", notes);
}

// Declared bytes are compulsory: what the data must move at least once, from wherever it
// lives. Data already in a cache crosses no DRAM, so they are compared with the outermost level
// whose traffic reaches them, the level the data came from: DRAM (less than its traffic, as
// write-allocate and misses add, beyond the tolerance is a discrepancy), or a cache, where
// reuse makes any traffic above them right. More than every access moved (L1's traffic) is a
// discrepancy wherever the data was. Compared with DRAM alone, the compulsory bytes of data in
// cache read as untrusted by 3,099,900 %.
void CheckBytes(const RunRecord& run, const MetricIndex& metrics, const std::string& region,
                std::vector<TrustNote>* notes) {
  const Metric* declared = metrics.Find("bytes_dram", Source::kModel, region);
  if (!declared || !declared->value) return;
  const double d = *declared->value;
  const Metric* dram = Counted(metrics, "bytes_dram", region);
  if (dram && *dram->value >= d * (1 - kDeclaredTolerance)) {
    if (!Agrees(d, *dram->value)) Note(run, region, false, d, *dram, " of DRAM traffic", notes);
    return;
  }
  for (const char* cache : {"bytes_l3", "bytes_l2", "bytes_l1"}) {
    const Metric* traffic = Counted(metrics, cache, region);
    if (traffic && *traffic->value >= d * (1 - kDeclaredTolerance)) return;
  }
  const Metric* l1 = Counted(metrics, "bytes_l1", region);
  if (l1) Note(run, region, false, d, *l1, " of every access (L1 traffic)", notes);
}

}  // namespace

std::vector<TrustNote> DeclaredWorkNotes(const RunRecord& run) {
  std::set<std::string> regions = {""};
  for (const Metric& m : run.metrics) regions.insert(m.region);
  bool kernel = TargetKindTraits(run.target_kind).declarer == WorkDeclarer::kKernelModel;
  std::vector<TrustNote> notes;
  MetricIndex metrics(run.metrics);
  for (const std::string& region : regions) {
    CheckFlops(run, metrics, region, &notes);
    // A kernel's model bytes are compulsory by definition: their gap to traffic is the lesson.
    if (!kernel || !region.empty()) CheckBytes(run, metrics, region, &notes);
  }
  return notes;
}

}  // namespace rprof
