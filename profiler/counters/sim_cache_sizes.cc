#include "counters/sim_cache_sizes.h"

#include <cstdlib>

#include "machine/level_sizes.h"

namespace rprof {

void SimCacheSizesFromProfile(const MachineProfile& profile, int64_t profile_id, CacheSizes* out) {
  // Each level by its number: a level the profile did not store (one with DRAM's latency)
  // keeps sysfs's size, and never shifts the others.
  std::vector<CacheLevel> caches = DataCaches(ReadTopology());
  const int last = caches.empty() ? 0 : caches.back().level;
  std::string measured;
  for (const LevelSummary& level : profile.levels) {
    if (level.level == "dram" || !MeasuredRule(level.size_rule) || level.size_bytes == 0) continue;
    int number = std::atoi(level.level.c_str() + 1);
    if (number == 1)
      out->l1d_bytes = level.size_bytes;
    else if (number == last && number > 1)
      out->llc_bytes = level.size_bytes;
    else if (number == 2)
      out->l2_bytes = level.size_bytes;
    else
      continue;
    measured += (measured.empty() ? "" : ", ") + level.level + " " + level.size_rule;
  }
  const std::string name = "machine profile " + std::to_string(profile_id);
  out->origin = measured.empty()
                    ? "reported by sysfs (" + name + " keeps every reported size)"
                    : "as " + name + " measured them (" + measured +
                          "; the other levels reported; --sim-cache reported simulates sysfs's)";
}

std::string CacheInclusion(const Topology& t, int level) {
  if (level < 3) return "non-inclusive";
  if (t.vendor == "AuthenticAMD" || t.vendor == "HygonGenuine") return "victim";
  if (t.vendor != "GenuineIntel" || t.family != 6) return "non-inclusive";
  // Intel parts whose L3 does not include L2: Skylake-SP and later servers, Ice Lake client
  // and later clients; every earlier model's L3 is inclusive.
  static const int kNonInclusive[] = {85,  106, 108, 143, 207, 173, 174, 175, 125, 126, 140, 141,
                                      167, 151, 154, 183, 186, 191, 170, 172, 189, 197, 198};
  for (int m : kNonInclusive)
    if (t.model == m) return "non-inclusive";
  return "inclusive";
}

std::vector<SimCacheRecord> SimCacheGeometry(const Topology& topology, const CacheSizes& sizes) {
  std::vector<CacheLevel> caches = DataCaches(topology);
  std::vector<SimCacheRecord> out;
  for (size_t i = 0; i < caches.size() && i < 4; ++i) {
    CacheLevel c = caches[i];
    bool measured = false;
    if (i == 0 && sizes.l1d_bytes > 0) c.size_bytes = sizes.l1d_bytes, measured = true;
    if (i + 1 == caches.size() && i > 0 && sizes.llc_bytes > 0)
      c.size_bytes = sizes.llc_bytes, measured = true;
    else if (i == 1 && c.level == 2 && sizes.l2_bytes > 0)
      c.size_bytes = sizes.l2_bytes, measured = true;
    uint64_t line = c.line_bytes > 0 ? static_cast<uint64_t>(c.line_bytes) : 64;
    uint64_t ways = c.ways > 0 ? static_cast<uint64_t>(c.ways) : (i == 0 ? 8 : 16);
    double exact = static_cast<double>(c.size_bytes) / static_cast<double>(line * ways);
    uint64_t sets = measured ? static_cast<uint64_t>(exact + 0.5) : static_cast<uint64_t>(exact);
    if (sets == 0) sets = 1;
    SimCacheRecord r;
    r.level = c.level;
    r.size_bytes = sets * ways * line;
    r.ways = static_cast<int>(ways);
    r.line_bytes = static_cast<int>(line);
    r.inclusion = i == 0 ? "non-inclusive" : CacheInclusion(topology, c.level);
    r.size_origin = measured ? "measured" : "reported";
    out.push_back(r);
  }
  return out;
}

}  // namespace rprof
