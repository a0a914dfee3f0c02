#include "machine/level_sizes.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/text.h"
#include "machine/hierarchy.h"

namespace rprof {

namespace {

const LevelSummary* Find(const std::vector<LevelSummary>& levels, const std::string& name) {
  for (const LevelSummary& l : levels)
    if (l.level == name) return &l;
  return nullptr;
}

double Ratio(uint64_t a, uint64_t b) {
  return static_cast<double>(std::max(a, b)) /
         static_cast<double>(std::max<uint64_t>(1, std::min(a, b)));
}

// The working set from which every later latency point has DRAM's latency: where the sweep
// reached memory for good. 0 when it never did (or DRAM's latency is not known).
uint64_t DramOnset(const MachineProfile& p, double dram_ns) {
  if (dram_ns <= 0 || p.latency.empty()) return 0;
  uint64_t onset = 0;
  for (auto it = p.latency.rbegin(); it != p.latency.rend(); ++it) {
    if (it->ns < kDramLikeLatency * dram_ns) break;
    onset = it->working_set_bytes;
  }
  return onset;
}

// Why the latency sweep's plateau for this level is not sound, or "" when it is: the half of
// Unsound that does not compare the two sweeps.
std::string UnsoundLatency(const MachineProfile& p, size_t i, double dram_ns) {
  const LevelSummary& l = p.levels[i];
  if (p.noisy()) return "the profile is noisy";
  if (l.effective_size == 0) return "no plateau was measured for it";
  if (l.latency_ns <= 0) return "the latency sweep did not find it";
  for (size_t j = i; j-- > 0;) {
    if (p.levels[j].latency_ns <= 0) continue;
    if (l.latency_ns <= p.levels[j].latency_ns)
      return Format("its latency %.3g ns is not above %s's %.3g ns", l.latency_ns,
                    Upper(p.levels[j].level).c_str(), p.levels[j].latency_ns);
    break;
  }
  if (dram_ns <= 0) return "DRAM's latency was not measured";
  if (l.reported_size > 0 && 2 * l.effective_size > 3 * l.reported_size)
    return "it measured larger than the reported " + FormatBytes(l.reported_size) +
           ": a cache is never larger than the hardware says";
  return "";
}

// Why this level's measured size is not sound, or "" when it is (level_sizes.h).
std::string Unsound(const MachineProfile& p, size_t i, double dram_ns) {
  const LevelSummary& l = p.levels[i];
  if (std::string why = UnsoundLatency(p, i, dram_ns); !why.empty()) return why;
  if (l.bandwidth_size == 0) return "the bandwidth sweep did not find it (seen in one sweep only)";
  // One octave: the two sweeps' grids and knees differ by a step or two.
  if (Ratio(l.bandwidth_size, l.effective_size) > 2.01)
    return "the bandwidth sweep's plateau ends at " + FormatBytes(l.bandwidth_size) +
           ", the latency sweep's at " + FormatBytes(l.effective_size);
  return "";
}

// The most last-level cache any CPU has per core: AMD's EPYC 9684X, 1152 MiB over 96 cores.
constexpr uint64_t kMostLastLevelPerCore = 12ull << 20;

// Why the last cache level `p.levels[i]` a virtual machine reports is its host's, shared with
// other guests, rather than a size this guest can count on, or "" when it is not that case. A
// guest is often shown the host's last level (an Intel Xeon guest: 480 MiB to 2 vCPUs); it is
// implausible when each CPU sharing it would own more than twice the most any CPU has per core,
// and the guest's own repeated latency plateau ends far under it. The bandwidth sweep is not
// asked to agree there: it runs on into the host's cache, which other guests share (152 MiB on
// that guest while a 192 MiB triad ran at DRAM's speed). A plausible report measured small (a
// Zen 5 guest's 32 MiB L3 ending at 2.9 MiB) stays: that is what neighbours left, not its size.
std::string HostsCacheOnGuest(const MachineProfile& p, size_t i, double dram_ns) {
  const LevelSummary& l = p.levels[i];
  const uint64_t r = l.reported_size, m = l.effective_size;
  if (!p.topology.hypervisor || r == 0 || m == 0 || 8 * m > r || l.size_agreement < 2) return "";
  if (!UnsoundLatency(p, i, dram_ns).empty()) return "";
  int sharing = p.topology.logical_cpus;
  for (const CacheLevel& c : DataCaches(p.topology))
    if ("l" + std::to_string(c.level) == l.level && c.shared_cpu_count > 0)
      sharing = c.shared_cpu_count;
  if (sharing <= 0 || r / static_cast<uint64_t>(sharing) <= 2 * kMostLastLevelPerCore) return "";
  return "this virtual machine reports " + FormatBytes(r) + " for " + std::to_string(sharing) +
         " CPUs, more than any CPU has per core: its host's, shared with other guests; its own "
         "latency plateau ends at " +
         FormatBytes(m) + Format(" in %d profiles in a row", l.size_agreement) +
         (l.bandwidth_size > 0 ? " (the bandwidth sweep's at " + FormatBytes(l.bandwidth_size) + ")"
                               : "");
}

}  // namespace

bool MeasuredRule(const std::string& rule) {
  return rule == kRuleMeasured || rule == kRuleReportedImpossible || rule == kRuleKept;
}

void DropDramLikeLevels(MachineProfile* profile) {
  const LevelSummary* dram = Find(profile->levels, "dram");
  const double dram_ns = dram ? dram->latency_ns : 0;
  if (dram_ns <= 0) return;
  std::vector<LevelSummary> kept;
  for (const LevelSummary& l : profile->levels) {
    if (l.level != "dram" && l.latency_ns >= kDramLikeLatency * dram_ns) {
      profile->warnings.push_back(Format(
          "%s measured up to %s at %.3g ns, DRAM's latency (%.3g ns): not a cache level, "
          "not stored; its reported size stands",
          Upper(l.level).c_str(), FormatBytes(l.effective_size).c_str(), l.latency_ns, dram_ns));
      continue;
    }
    kept.push_back(l);
  }
  profile->levels = std::move(kept);
}

void DecideLevelSizes(const MachineProfile* previous, int64_t previous_id, MachineProfile* now) {
  const LevelSummary* dram = Find(now->levels, "dram");
  const double dram_ns = dram ? dram->latency_ns : 0;
  const uint64_t onset = DramOnset(*now, dram_ns);
  // The last cache level: the highest-numbered one still on the ladder.
  std::string last_cache;
  for (const LevelSummary& l : now->levels)
    if (l.level != "dram" &&
        (last_cache.empty() || std::atoi(l.level.c_str() + 1) > std::atoi(last_cache.c_str() + 1)))
      last_cache = l.level;

  for (size_t i = 0; i < now->levels.size(); ++i) {
    LevelSummary& l = now->levels[i];
    if (l.level == "dram") continue;
    const std::string unsound = Unsound(*now, i, dram_ns);
    const bool sound = unsound.empty();
    const uint64_t r = l.reported_size, m = l.effective_size;
    const bool impossible = r > 0 && onset > 0 && 4 * onset < r;
    const LevelSummary* before = previous ? Find(previous->levels, l.level) : nullptr;
    const bool had_measured = before && MeasuredRule(before->size_rule) && before->size_bytes > 0 &&
                              before->reported_size == r;
    auto decide = [&](uint64_t size, const char* rule, std::string reason) {
      l.size_bytes = size;
      l.size_rule = rule;
      l.size_reason = std::move(reason);
    };
    if (r == 0) {
      if (sound)
        decide(m, kRuleMeasured, "nothing reported; the measurement is sound");
      else if (had_measured)
        decide(before->size_bytes, kRuleKept,
               "profile " + std::to_string(previous_id) + "'s size stands: " + unsound);
      else
        decide(m, kRuleMeasured, "nothing reported, so the measurement, though " + unsound);
    } else if (sound && impossible) {
      decide(m, kRuleReportedImpossible,
             "DRAM's latency from " + FormatBytes(onset) + " on, under a quarter of the reported " +
                 FormatBytes(r) + ": the reported size cannot be");
    } else if (std::string why = l.level == last_cache ? HostsCacheOnGuest(*now, i, dram_ns) : "";
               !why.empty()) {
      decide(m, kRuleReportedImpossible, why);
    } else if (sound && 8 * m > r) {
      decide(r, kRuleReported,
             "the measured " + FormatBytes(m) +
                 " agrees within three octaves (a chase climbs "
                 "before a cache that is not least-recently-used is full)");
    } else if (sound && l.level == last_cache) {
      decide(r, kRuleReported,
             "the measured " + FormatBytes(m) +
                 " is the share of the last cache level this "
                 "machine's other work left (neighbours in a VM): its size stays the reported one");
    } else if (sound && l.size_agreement >= 2) {
      decide(m, kRuleMeasured,
             Format("sound, and %d profiles in a row measured it", l.size_agreement));
    } else if (had_measured) {
      decide(before->size_bytes, kRuleKept,
             "profile " + std::to_string(previous_id) + "'s " + before->size_rule +
                 " size stands: " +
                 (sound ? "this profile alone measured " + FormatBytes(m) : unsound));
    } else {
      decide(r, kRuleReported,
             sound ? "the measured " + FormatBytes(m) +
                         " is one profile's; a second that agrees "
                         "replaces the reported size"
                   : "the measurement is not sound: " + unsound);
    }
    // What the measurement says beside the decided size, when it is far from it.
    if (m > 0 && l.size_bytes > 0 && Ratio(m, l.size_bytes) > 2.01) {
      std::string note = "measured plateau ends at " + FormatBytes(m) +
                         (m < l.size_bytes ? " (a smaller effective cache now: other tenants, "
                                             "noise; the bandwidth ceilings are read there)"
                                           : "");
      l.note += (l.note.empty() ? "" : "; ") + note;
    }
  }
}

}  // namespace rprof
