#include "roofline/time_check.h"

#include <algorithm>
#include <cmath>

#include "core/memory_level.h"
#include "core/source.h"
#include "core/text.h"

namespace rprof {

namespace {

// The level's place in kMemoryLevels, nearest the core first; -1 when it is not a roofline level.
int RankOf(const std::string& level) {
  for (size_t i = 0; i < kMemoryLevels.size(); ++i)
    if (kMemoryLevels[i].name == level) return static_cast<int>(i);
  return -1;
}

std::optional<double> ValueOf(const std::vector<Metric>& metrics, const std::string& name,
                              Source source) {
  const Metric* m = FindMetric(metrics, name, source);
  return m ? m->value : std::nullopt;
}

// A level's roof in one convention, with the margin its rate may beat it by: the ceiling's
// spread over its repetitions, at least kTimeAboveRoofMarginPct.
struct Roof {
  const Ceiling* ceiling = nullptr;
  double gbs = 0;
  double margin = 0;  // a fraction: 0.05 for 5 %
};

std::optional<Roof> RoofOf(const MachineProfile& profile, const std::string& level, int threads,
                           ByteConvention convention, const Ceiling* given = nullptr) {
  const Ceiling* c = given ? given : BandwidthRoof(profile, level, threads, convention);
  if (!c || CeilingValue(*c, convention) <= 0) return std::nullopt;
  return Roof{c, CeilingValue(*c, convention),
              std::max(c->spread_pct, kTimeAboveRoofMarginPct) / 100};
}

// Whether the working set (the model's compulsory bytes of one call, as AboveRoofNote reads it)
// fits `level` at the size this machine's profile gave it (decided, else measured).
bool FitsMeasuredLevel(const std::vector<Metric>& metrics, const MachineProfile& profile,
                       const std::string& level) {
  std::optional<double> footprint = ValueOf(metrics, "bytes_dram", Source::kModel);
  if (!footprint || *footprint <= 0) return false;
  for (const LevelSummary& l : profile.levels) {
    if (l.level != level) continue;
    uint64_t size = l.size_bytes > 0 ? l.size_bytes : l.effective_size;
    return size > 0 && *footprint <= static_cast<double>(size);
  }
  return false;
}

std::string Megabytes(double bytes) { return Format("%.3g MB", bytes / 1e6); }

// What the user can do about a source that counted at the wrong level.
std::string Remedy(Source source, TimeContradiction::Kind kind) {
  if (source == Source::kSim)
    return kind == TimeContradiction::Kind::kAtFartherRoof
               ? "the simulated caches are larger than this machine's (a virtual machine reports "
                 "the host's): --sim-cache l3=SIZE simulates the real ones"
               : "the simulated caches are smaller than this machine's: --sim-cache "
                 "l2=SIZE,l3=SIZE simulates the real ones";
  return "the pmu's events for this level may count other traffic, or miss some: "
         "rprof calibrate checks them";
}

}  // namespace

std::optional<TimeContradiction> CheckTimeAgainstBytes(const std::vector<Metric>& metrics,
                                                       Source source, const std::string& level,
                                                       const MachineProfile& profile, int threads,
                                                       const Ceiling* counted_roof) {
  int rank = RankOf(level);
  if (!IsMeasured(source) || rank < 0) return std::nullopt;
  std::optional<double> rate = ValueOf(metrics, "gbs_" + level, source);
  std::optional<double> bytes = ValueOf(metrics, "bytes_" + level, source);
  if (!rate || *rate <= 0 || !bytes || *bytes <= 0) return std::nullopt;
  ByteConvention convention = ConventionOf(source);
  std::optional<Roof> counted = RoofOf(profile, level, threads, convention, counted_roof);
  if (!counted) return std::nullopt;

  TimeContradiction t;
  t.source = source;
  t.counted_level = level;
  t.bytes = *bytes;
  t.rate = *rate;
  t.counted_roof = counted->gbs;
  const std::string from = std::string(SourceName(source));
  const std::string whose = from + "'s " + Upper(level) + " bytes";

  // (a) Faster than the level can deliver: the nearest closer level whose roof sustains it.
  if (*rate > counted->gbs * (1 + counted->margin)) {
    for (int r = rank - 1; r >= 0; --r) {
      const std::string closer(kMemoryLevels[r].name);
      std::optional<Roof> roof = RoofOf(profile, closer, threads, convention);
      if (!roof || *rate > roof->gbs * (1 + roof->margin)) continue;
      t.kind = TimeContradiction::Kind::kAboveRoof;
      t.timed_level = closer;
      t.timed_ceiling = roof->ceiling->name;
      t.timed_roof = roof->gbs;
      t.reason = whose + " above " + Upper(level) + "'s roof: the time says they came from " +
                 Upper(closer);
      t.detail = whose + " (" + Megabytes(*bytes) + ") over the native run's time move at " +
                 Format(
                     "%.3g GB/s, above %s's roof (%s, %.3g GB/s) by more than its spread "
                     "(%.3g %%): the time says they came from a closer level; placed by them "
                     "against %s's roof (%s, %.3g GB/s); ",
                     *rate, Upper(level).c_str(), counted->ceiling->name.c_str(), counted->gbs,
                     counted->ceiling->spread_pct, Upper(closer).c_str(),
                     roof->ceiling->name.c_str(), roof->gbs) +
                 Remedy(source, t.kind);
      return t;
    }
    // No level sustains the rate: the profile measured its roofs low (AboveRoofNote says so).
    return std::nullopt;
  }

  // (b) At DRAM's roof, far under the last cache's own, with DRAM's bytes nearly absent: a
  // simulated last level larger than the machine's (a VM shown its host's L3). Only the last
  // level's traffic into DRAM: the closer levels' sizes are the core's own and sysfs has them
  // right, and a run in L2 held back by anything else (its arithmetic, latency) moves its bytes
  // at any rate at all, an L3 roof's included; L1's bytes are the instructions' own loads and
  // stores, which pass L1 whatever served them. And not where the working set (the model's
  // compulsory bytes of one call) fits the level as this machine measured it: then the data
  // did stay there, whatever the rate.
  const std::string kDram(kMemoryLevels.back().name);
  if (rank == 0 || level == kDram || *rate > kTimeCountedRoofHigh * counted->gbs ||
      FitsMeasuredLevel(metrics, profile, level))
    return std::nullopt;
  for (size_t r = rank + 1; r + 1 < kMemoryLevels.size(); ++r)  // a cache beyond it: not last
    if (RoofOf(profile, std::string(kMemoryLevels[r].name), threads, convention))
      return std::nullopt;
  std::optional<Roof> best;
  std::string best_level;
  double best_bytes = 0;
  for (size_t r = rank + 1; r < kMemoryLevels.size(); ++r) {
    const std::string farther(kMemoryLevels[r].name);
    if (farther != kDram) continue;
    std::optional<Roof> roof = RoofOf(profile, farther, threads, convention);
    std::optional<double> farther_bytes = ValueOf(metrics, "bytes_" + farther, source);
    if (!roof || !farther_bytes || *farther_bytes > kTimeFartherBytesShare * *bytes) continue;
    if (*rate < kTimeAtRoofLow * roof->gbs || *rate > roof->gbs * (1 + roof->margin)) continue;
    if (best && std::fabs(*rate / roof->gbs - 1) >= std::fabs(*rate / best->gbs - 1)) continue;
    best = roof;
    best_level = farther;
    best_bytes = *farther_bytes;
  }
  if (!best) return std::nullopt;
  t.kind = TimeContradiction::Kind::kAtFartherRoof;
  t.timed_level = best_level;
  t.timed_ceiling = best->ceiling->name;
  t.timed_roof = best->gbs;
  t.timed_bytes = best_bytes;
  t.reason = whose + " at " + Upper(best_level) + "'s rate: the time says they came from " +
             Upper(best_level);
  t.detail =
      whose + " (" + Megabytes(*bytes) + "; " + Megabytes(best_bytes) + " at " + Upper(best_level) +
      ") over the native run's time move at " +
      Format(
          "%.3g GB/s: %.0f %% of %s's roof (%s, %.3g GB/s) but %.0f %% of %s's "
          "(%.3g GB/s): the time says they came from %s; placed by them against %s's "
          "roof; ",
          *rate, *rate / best->gbs * 100, Upper(best_level).c_str(), best->ceiling->name.c_str(),
          best->gbs, *rate / counted->gbs * 100, Upper(level).c_str(), counted->gbs,
          Upper(best_level).c_str(), Upper(best_level).c_str()) +
      Remedy(source, t.kind);
  return t;
}

void PlaceByTime(const std::vector<Metric>& metrics, const MachineProfile& profile, Placement* p) {
  // Only a bandwidth bound names a level the time can contradict; a compute bound's roof is not
  // the bytes'.
  if (!p->placed || p->binding_level.empty() || !IsMeasured(p->binding_source) ||
      p->bound != p->binding_level + " bandwidth")
    return;
  const LevelPlacement* held = nullptr;
  for (const LevelPlacement& lp : p->levels)
    if (lp.level == p->binding_level && lp.source == p->binding_source) held = &lp;
  // The roof the level was held against (scalar code: its scalar load roof), not another.
  const Ceiling* counted_roof = nullptr;
  if (held)
    for (const Ceiling& c : profile.ceilings)
      if (c.name == held->bandwidth_ceiling && c.threads == p->threads) counted_roof = &c;
  std::optional<TimeContradiction> t = CheckTimeAgainstBytes(
      metrics, p->binding_source, p->binding_level, profile, p->threads, counted_roof);
  if (!t) return;
  p->time_contradiction = t->detail;
  const std::string used =
      std::string(SourceName(t->source)) + "'s " + Upper(t->counted_level) + " bytes";

  if (!held) {
    // No floating-point work: placed by its bandwidth alone.
    p->bound = t->timed_level + " bandwidth";
    p->binding = p->bound + " (" + t->timed_ceiling + ")";
    p->percent_of_roof = t->rate / t->timed_roof * 100;
    p->verdict = Format(
        "no floating-point work: moves %.3g GB/s (%s), %.0f %% of the %s bandwidth roof "
        "(%.3g GB/s) (%s)",
        t->rate, used.c_str(), *p->percent_of_roof, Upper(t->timed_level).c_str(), t->timed_roof,
        t->reason.c_str());
  } else {
    // The counted level's AI, under the roof of the level the time supports.
    bool compute_bound = held->ai * t->timed_roof >= p->peak;
    p->attainable = std::min(p->peak, held->ai * t->timed_roof);
    if (compute_bound) {
      p->bound = "compute";
      p->binding = "compute (" + p->compute_ceiling + ")";
    } else {
      p->bound = t->timed_level + " bandwidth";
      p->binding = p->bound + " (" + t->timed_ceiling + ")";
    }
    std::string kind = compute_bound ? "compute" : Upper(t->timed_level) + "-bandwidth";
    if (p->achieved && p->attainable > 0) {
      p->percent_of_roof = *p->achieved / p->attainable * 100;
      p->verdict =
          Format("%s-bound at %.0f %% of its roof (%.3g of %.3g GFLOP/s) by %s (%s)", kind.c_str(),
                 *p->percent_of_roof, *p->achieved, p->attainable, used.c_str(), t->reason.c_str());
    } else {
      p->percent_of_roof.reset();
      p->verdict = Format("%s-bound by %s; no measured rate to compare with the roof (%s)",
                          kind.c_str(), used.c_str(), t->reason.c_str());
    }
  }
  // Within the margin the check allowed: the roof is its best repetition, not a hard bound.
  p->note = p->percent_of_roof && *p->percent_of_roof > 100
                ? Format(
                      "%.0f %% of the roof the time supports (%s): within its spread and the "
                      "native time's noise; the roof is its best repetition, not a hard bound",
                      *p->percent_of_roof, t->timed_ceiling.c_str())
                : "";
}

}  // namespace rprof
