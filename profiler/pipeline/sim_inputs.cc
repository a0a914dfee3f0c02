#include "pipeline/sim_inputs.h"

#include <utility>
#include <vector>

#include "core/source.h"
#include "counters/sim_cache_sizes.h"
#include "machine/topology.h"
#include "store/profile_store.h"

namespace rprof {

namespace {

// How many stored replays are read: enough for every target's newest few.
constexpr int kReplaysRead = 500;

}  // namespace

bool ChooseSimCacheSizes(RunStore* store, const std::string& fingerprint,
                         const SimCacheChoice& choice, CacheSizes* out, Error* err) {
  // The given sizes first: the profile's then fill only the levels the user left out.
  GiveSimCacheSizes(choice, out);
  if (choice.base == "reported") {
    out->origin = "reported by sysfs (--sim-cache reported)";
  } else {
    StoredProfile stored;
    bool found = false;
    if (!LoadNewestProfile(store, fingerprint, &stored, &found, err)) return false;
    if (found)
      SimCacheSizesFromProfile(stored.profile, stored.id, out);
    else
      out->origin = "reported by sysfs (no machine profile yet)";
  }
  NoteGivenSimCacheSizes(choice, ReadTopology(), out);
  return true;
}

// The simulator is the first word of the measured time's note (SimReplayMeasuredNote).
const char kSimReplaysSql[] =
    "SELECT r.target, mm.value, mc.value FROM runs r"
    " JOIN machines ma ON ma.id = r.machine_id"
    " JOIN metrics mc ON mc.run_id = r.id AND mc.region = '' AND mc.name = ?3"
    "  AND mc.source = ?5"
    " JOIN metrics mm ON mm.run_id = r.id AND mm.region = '' AND mm.name = ?3"
    "  AND mm.source = ?6"
    " WHERE ma.fingerprint = ?1 AND substr(mc.note, 1, length(?2) + 1) = ?2 || ':'"
    "  AND mc.value IS NOT NULL AND mm.value IS NOT NULL"
    " ORDER BY r.started_at DESC, r.id DESC LIMIT ?4";

bool LoadSimTimeFit(RunStore* store, const std::string& fingerprint, const std::string& simulator,
                    SimTimeFit* out, Error* err) {
  std::vector<SimReplayRecord> replays;
  Error why;
  bool read = store->db()->ForEachRow(
      kSimReplaysSql, &why,
      [&](const Statement& s) {
        replays.push_back({s.Text(0), s.Double(1), s.Double(2)});
      },
      fingerprint, simulator, std::string(kSimReplayMetric), kReplaysRead,
      std::string(SourceName(Source::kClock)), std::string(SourceName(Source::kModel)));
  if (!read) return store->DbFail(why.message, err);
  *out = SimTimeFit(simulator, std::move(replays));
  return true;
}

}  // namespace rprof
