#include "counters/sim_cache_sizes.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

#include "machine/level_sizes.h"

namespace rprof {

namespace {

constexpr uint64_t kLeastGivenBytes = uint64_t{1} << 10;  // 1 KiB
constexpr uint64_t kMostGivenBytes = uint64_t{1} << 40;   // 1 TiB
constexpr uint64_t kGivenLineBytes = 64;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "48K" -> 49152; false with *why for anything else (no digits, another suffix, over 1 TiB).
bool ParseGivenBytes(const std::string& text, uint64_t* out, std::string* why) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string suffix = Lower(text.substr(digits));
  int shift = suffix.empty()  ? 0
              : suffix == "k" ? 10
              : suffix == "m" ? 20
              : suffix == "g" ? 30
                              : -1;
  if (digits == 0 || shift < 0) {
    *why = (text.empty() ? std::string("no size") : text + " is no size") +
           " in bytes (digits, then K, M or G)";
    return false;
  }
  uint64_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    value = value * 10 + static_cast<uint64_t>(text[i] - '0');
    if (value > kMostGivenBytes) break;  // and no overflow, whatever the digits
  }
  if (value > (kMostGivenBytes >> shift)) {
    *why = text + " is over 1 TiB";
    return false;
  }
  *out = value << shift;
  return true;
}

// Which of CacheSizes' sizes replaces data cache `i` of `caches` in the hierarchy rprofsim
// simulates (at most 4 levels): '1' the first level's (l1d), '3' the last's above it (llc), '2'
// a level 2 between them (l2); 0 none. The one place that decision is made.
char SizeSlot(const std::vector<CacheLevel>& caches, size_t i) {
  if (i >= 4) return 0;
  if (i == 0) return '1';
  if (i + 1 == caches.size()) return '3';
  return i == 1 && caches[i].level == 2 ? '2' : 0;
}

// The size `slot` names in `sizes` (0: none there) and whether the user gave it.
std::pair<uint64_t, bool> SizeIn(const CacheSizes& sizes, char slot) {
  switch (slot) {
    case '1':
      return {sizes.l1d_bytes, sizes.l1d_given};
    case '2':
      return {sizes.l2_bytes, sizes.l2_given};
    case '3':
      return {sizes.llc_bytes, sizes.llc_given};
  }
  return {0, false};
}

// The index in SimCacheGeometry's hierarchy on data caches `caches` that the size given for
// `slot` ('1', '2', '3': the last) replaces; -1 where the machine has no such level.
int GivenIndex(const std::vector<CacheLevel>& caches, char slot) {
  for (size_t i = 0; i < caches.size(); ++i)
    if (SizeSlot(caches, i) == slot) return static_cast<int>(i);
  return -1;
}

}  // namespace

bool ParseSimCacheChoice(const std::string& text, SimCacheChoice* out, Error* err) {
  const std::string use = "use measured, reported, or sizes like l1=48K,l2=2M,l3=32M";
  auto refuse = [&](const std::string& why) {
    return Fail(err, ErrorKind::kUsage,
                "--sim-cache " + text + ": " + (why.empty() ? "" : why + "; ") + use);
  };
  SimCacheChoice choice;
  if (text == "measured" || text == "reported") {
    choice.base = text;
    *out = choice;
    return true;
  }
  if (text.find('=') == std::string::npos) return refuse("");
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return refuse(item.empty() ? "an empty size" : item + " has no =");
    const std::string level = Lower(item.substr(0, eq));
    uint64_t* bytes = level == "l1"   ? &choice.l1d_bytes
                      : level == "l2" ? &choice.l2_bytes
                      : level == "l3" ? &choice.llc_bytes
                                      : nullptr;
    if (bytes == nullptr)
      return refuse("no level " + item.substr(0, eq) + " (l1, l2, or l3 for the last level)");
    if (*bytes != 0) return refuse(level + " given twice");
    std::string why;
    const std::string size = item.substr(eq + 1);
    if (!ParseGivenBytes(size, bytes, &why)) return refuse(why);
    if (*bytes < kLeastGivenBytes) return refuse(item + " is under 1 KiB");
    if (*bytes % kGivenLineBytes != 0) return refuse(item + " is no whole number of 64-byte lines");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  choice.given = text;
  *out = choice;
  return true;
}

void GiveSimCacheSizes(const SimCacheChoice& choice, CacheSizes* sizes) {
  if (choice.l1d_bytes > 0) sizes->l1d_bytes = choice.l1d_bytes, sizes->l1d_given = true;
  if (choice.l2_bytes > 0) sizes->l2_bytes = choice.l2_bytes, sizes->l2_given = true;
  if (choice.llc_bytes > 0) sizes->llc_bytes = choice.llc_bytes, sizes->llc_given = true;
}

void NoteGivenSimCacheSizes(const SimCacheChoice& choice, const Topology& topology,
                            CacheSizes* sizes) {
  if (!choice.GivesSizes()) return;
  const std::vector<CacheLevel> caches = DataCaches(topology);
  const std::vector<SimCacheRecord> geometry = SimCacheGeometry(topology, *sizes);
  std::string notes;
  std::vector<bool> given(geometry.size(), false);
  const struct {
    char level;
    uint64_t bytes;
  } levels[] = {{'1', choice.l1d_bytes}, {'2', choice.l2_bytes}, {'3', choice.llc_bytes}};
  for (const auto& [level, bytes] : levels) {
    if (bytes == 0) continue;
    const std::string name = std::string("l") + level;
    const int i = GivenIndex(caches, level);
    if (i < 0) {
      notes += "; " + name + " unused: " +
               (caches.empty() ? std::string("sysfs lists no caches here")
                : level == '3' ? "this machine has one cache level"
                               : "this machine has no level 2 above its last (l3)");
      continue;
    }
    given[i] = true;
    const SimCacheRecord& r = geometry[i];
    if (r.size_bytes != bytes)
      notes += "; " + name + " simulated as " + std::to_string(r.size_bytes) + " B (whole " +
               std::to_string(r.ways) + "-way sets of " + std::to_string(r.line_bytes) + " B)";
  }
  bool all = !geometry.empty();
  for (bool g : given) all = all && g;
  sizes->origin = "given by --sim-cache " + choice.given + notes +
                  (all ? "" : "; the other levels " + sizes->origin);
}

void SimCacheSizesFromProfile(const MachineProfile& profile, int64_t profile_id, CacheSizes* out) {
  // Each level by its number: a level the profile did not store (one with DRAM's latency)
  // keeps sysfs's size, and never shifts the others.
  std::vector<CacheLevel> caches = DataCaches(ReadTopology());
  std::string measured;
  bool skipped = false;  // a measured level whose size the user gave
  for (const LevelSummary& level : profile.levels) {
    if (level.level == "dram" || !MeasuredRule(level.size_rule) || level.size_bytes == 0) continue;
    const int number = std::atoi(level.level.c_str() + 1);
    char slot = 0;
    for (size_t i = 0; i < caches.size(); ++i)
      if (caches[i].level == number) slot = SizeSlot(caches, i);
    if (slot == 0) continue;
    if (SizeIn(*out, slot).second) {
      skipped = true;
      continue;
    }
    (slot == '1'   ? out->l1d_bytes
     : slot == '2' ? out->l2_bytes
                   : out->llc_bytes) = level.size_bytes;
    measured += (measured.empty() ? "" : ", ") + level.level + " " + level.size_rule;
  }
  const std::string name = "machine profile " + std::to_string(profile_id);
  out->origin = measured.empty()
                    ? "reported by sysfs (" + name +
                          (skipped ? " replaced none of them)" : " keeps every reported size)")
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
    const auto [bytes, given] = SizeIn(sizes, SizeSlot(caches, i));
    const bool measured = bytes > 0 && !given;
    if (bytes > 0) c.size_bytes = bytes;
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
    r.size_origin = given ? "given" : measured ? "measured" : "reported";
    out.push_back(r);
  }
  return out;
}

}  // namespace rprof
