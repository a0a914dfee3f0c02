#include "store/profile_store.h"

#include <sstream>
#include <tuple>

#include "core/text.h"
#include "rprof_config.h"

namespace rprof {

namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

constexpr const char* kProfileColumns =
    "p.id, p.mode, p.threads, p.isa, p.nominal_ghz, p.clock_ghz_scalar, p.clock_ghz_vector,"
    " p.load_average_before, p.seconds, p.warnings, p.created_at, m.fingerprint, m.cpu_model,"
    " m.cores, m.caches, m.kernel, m.hostname, p.noisy, p.noisy_reasons"
    " FROM machine_profiles p JOIN machines m ON m.id = p.machine_id";

void ReadProfileRow(const Statement& s, StoredProfile* out) {
  out->id = s.Int(0);
  out->profile.mode = s.Text(1);
  out->profile.threads = static_cast<int>(s.Int(2));
  out->isa = s.Text(3);
  out->nominal_ghz = s.OptionalDouble(4).value_or(0);
  out->profile.clock_ghz_scalar = s.OptionalDouble(5).value_or(0);
  out->profile.clock_ghz_vector = s.OptionalDouble(6).value_or(0);
  out->profile.load_average_before = s.OptionalDouble(7).value_or(0);
  out->profile.seconds = s.Double(8);
  out->profile.warnings = SplitLines(s.Text(9));
  out->created_at = s.Text(10);
  out->machine = {s.Text(11), s.Text(12), static_cast<int>(s.Int(13)),
                  s.Text(14), s.Text(15), s.Text(16)};
  out->profile.fingerprint = out->machine.fingerprint;
  out->profile.noisy_reasons = SplitLines(s.Text(18));
  // Marked noisy without a reason (by hand, in SQL): still noisy, and said so.
  if (s.Int(17) != 0 && out->profile.noisy_reasons.empty())
    out->profile.noisy_reasons.push_back("marked noisy in the database, without a reason");
}

bool LoadCeilings(Database* db, StoredProfile* out, Error* why) {
  auto add_ceiling = [&](const Statement& s) {
    Ceiling c;
    c.kind = s.Text(0);
    c.name = s.Text(1);
    c.level = s.Text(2);
    c.isa = s.Text(3);
    c.precision = s.Text(4);
    c.pattern = s.Text(5);
    c.threads = static_cast<int>(s.Int(6));
    c.working_set_bytes = static_cast<uint64_t>(s.Int(7));
    c.value = s.Double(8);
    c.unit = s.Text(9);
    c.spread_pct = s.Double(10);
    c.repetitions = static_cast<int>(s.Int(11));
    // NULL (compute ceilings) reads back as 0: not known, the value stands for both conventions.
    c.bytes_per_element = static_cast<int>(s.OptionalDouble(12).value_or(0));
    c.traffic_bytes_per_element = static_cast<int>(s.OptionalDouble(13).value_or(0));
    out->profile.ceilings.push_back(std::move(c));
  };
  return db->ForEachRow(
      "SELECT kind, name, level, isa, precision, pattern, threads, working_set_bytes, value,"
      " unit, spread_pct, repetitions, bytes_per_element, traffic_bytes_per_element"
      " FROM ceilings WHERE profile_id = ? ORDER BY rowid",
      why, add_ceiling, out->id);
}

bool LoadPoints(Database* db, StoredProfile* out, Error* why) {
  MachineProfile& p = out->profile;
  auto add_latency = [&](const Statement& s) {
    p.latency.push_back({static_cast<uint64_t>(s.Int(0)), s.Double(1), s.Double(2)});
  };
  auto add_bandwidth = [&](const Statement& s) {
    p.bandwidth.push_back({s.Text(0), static_cast<int>(s.Int(1)), static_cast<uint64_t>(s.Int(2)),
                           s.Double(3), s.Double(4)});
  };
  auto add_level = [&](const Statement& s) {
    p.levels.push_back({s.Text(0), static_cast<uint64_t>(s.Int(1)), static_cast<uint64_t>(s.Int(2)),
                        s.OptionalDouble(3).value_or(0), s.OptionalDouble(4).value_or(0),
                        static_cast<int>(s.OptionalDouble(5).value_or(0)), s.Text(6),
                        static_cast<uint64_t>(s.OptionalDouble(7).value_or(0)), s.Text(8),
                        s.Text(9)});
  };
  return db->ForEachRow(
             "SELECT working_set_bytes, ns, spread_pct FROM latency_points"
             " WHERE profile_id = ? ORDER BY working_set_bytes",
             why, add_latency, out->id) &&
         db->ForEachRow(
             "SELECT pattern, threads, working_set_bytes, gbs, spread_pct FROM"
             " bandwidth_points WHERE profile_id = ? ORDER BY pattern, threads,"
             " working_set_bytes",
             why, add_bandwidth, out->id) &&
         db->ForEachRow(
             "SELECT level, reported_size, effective_size, latency_ns, bandwidth_gbs,"
             " size_agreement, note, size_bytes, size_rule, size_reason FROM memory_levels"
             " WHERE profile_id = ? ORDER BY rowid",
             why, add_level, out->id);
}

// The one profile `where` (a WHERE clause on kProfileColumns with one parameter, `key`)
// selects, with its ceilings and points. *found is false, and *out untouched, when there is none.
template <typename Key>
bool LoadWhole(Database* db, std::string_view where, const Key& key, StoredProfile* out,
               bool* found, Error* why) {
  *found = false;
  auto read = [&](const Statement& s) {
    *out = StoredProfile();
    ReadProfileRow(s, out);
    *found = true;
  };
  if (!db->ForEachRow(std::string("SELECT ") + kProfileColumns + std::string(where), why, read,
                      key))
    return false;
  return !*found || (LoadCeilings(db, out, why) && LoadPoints(db, out, why));
}

std::optional<double> NonZero(double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; }

std::optional<int64_t> NonZeroInt(int v) {
  return v > 0 ? std::optional<int64_t>(v) : std::nullopt;
}

// A bandwidth ceiling's actual-traffic GB/s, stored beside the compulsory one for users' SQL;
// NULL where the conventions are not known (compute ceilings).
std::optional<double> TrafficValue(const Ceiling& c) {
  if (c.bytes_per_element <= 0 || c.traffic_bytes_per_element <= 0) return std::nullopt;
  return CeilingValue(c, ByteConvention::kTraffic);
}

// The profile's rows, inside the caller's transaction; *profile_id gets its id.
bool InsertProfileRows(RunStore* store, const MachineRecord& machine, const MachineProfile& profile,
                       int64_t* profile_id, Error* err) {
  if (!store->InsertMachineRow(
          machine,
          "INSERT INTO machine_profiles (machine_id, mode, threads, isa, nominal_ghz,"
          " clock_ghz_scalar, clock_ghz_vector, load_average_before, seconds, warnings,"
          " created_at, rprof_version, noisy, noisy_reasons)"
          " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          profile_id, err, profile.mode, profile.threads, IsaString(profile.topology.isa),
          NonZero(profile.topology.nominal_ghz), NonZero(profile.clock_ghz_scalar),
          NonZero(profile.clock_ghz_vector), profile.load_average_before, profile.seconds,
          Join(profile.warnings, "\n"), UtcNow(), std::string_view(RPROF_VERSION),
          profile.noisy() ? 1 : 0,
          profile.noisy() ? std::optional<std::string>(Join(profile.noisy_reasons, "\n"))
                          : std::nullopt))
    return false;
  const int64_t id = *profile_id;
  Database* db = store->db();

  // Each table's statement is prepared once and run per row; a ceiling that fails is named.
  const Ceiling* ceiling = nullptr;
  if (!db->RunForEach("INSERT INTO ceilings (profile_id, kind, name, level, isa, precision,"
                      " pattern, threads, working_set_bytes, value, unit, spread_pct,"
                      " repetitions, bytes_per_element, traffic_bytes_per_element,"
                      " traffic_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      profile.ceilings, err, [&](const Ceiling& x) {
                        ceiling = &x;
                        return std::tuple(id, x.kind, x.name, x.level, x.isa, x.precision,
                                          x.pattern, x.threads, x.working_set_bytes, x.value,
                                          x.unit, x.spread_pct, x.repetitions,
                                          NonZeroInt(x.bytes_per_element),
                                          NonZeroInt(x.traffic_bytes_per_element), TrafficValue(x));
                      })) {
    if (ceiling) err->message = ceiling->name + ": " + err->message;
    return false;
  }
  return db->RunForEach(
             "INSERT INTO latency_points (profile_id, working_set_bytes, ns,"
             " spread_pct) VALUES (?, ?, ?, ?)",
             profile.latency, err,
             [&](const LatencyPoint& x) {
               return std::tuple(id, x.working_set_bytes, x.ns, x.spread_pct);
             }) &&
         db->RunForEach(
             "INSERT INTO bandwidth_points (profile_id, pattern, threads,"
             " working_set_bytes, gbs, spread_pct) VALUES (?, ?, ?, ?, ?, ?)",
             profile.bandwidth, err,
             [&](const BandwidthPoint& x) {
               return std::tuple(id, x.pattern, x.threads, x.working_set_bytes, x.gbs,
                                 x.spread_pct);
             }) &&
         db->RunForEach(
             "INSERT INTO memory_levels (profile_id, level, reported_size, effective_size,"
             " latency_ns, bandwidth_gbs, size_agreement, note, size_bytes, size_rule,"
             " size_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
             profile.levels, err, [&](const LevelSummary& x) {
               return std::tuple(
                   id, x.level, x.reported_size, x.effective_size, NonZero(x.latency_ns),
                   NonZero(x.bandwidth_gbs),
                   x.size_agreement > 0 ? std::optional<int>(x.size_agreement) : std::nullopt,
                   NullIfEmpty(x.note),
                   x.size_rule.empty() ? std::nullopt : std::optional<uint64_t>(x.size_bytes),
                   NullIfEmpty(x.size_rule), NullIfEmpty(x.size_reason));
             });
}

}  // namespace

bool InsertProfile(RunStore* store, const MachineRecord& machine, const MachineProfile& profile,
                   int64_t* id, Error* err) {
  int64_t profile_id = 0;
  if (!store->WriteInTransaction(
          [&](Error* why) { return InsertProfileRows(store, machine, profile, &profile_id, why); },
          err))
    return false;
  *id = profile_id;
  return true;
}

bool LoadNewestProfile(RunStore* store, const std::string& fingerprint, StoredProfile* out,
                       bool* found, Error* err) {
  Error why;
  if (!LoadWhole(store->db(), " WHERE m.fingerprint = ? ORDER BY p.id DESC LIMIT 1", fingerprint,
                 out, found, &why))
    return store->DbFail(why.message, err);
  return true;
}

bool LoadProfile(RunStore* store, int64_t id, StoredProfile* out, Error* err) {
  Error why;
  bool found = false;
  if (!LoadWhole(store->db(), " WHERE p.id = ?", id, out, &found, &why))
    return store->DbFail(why.message, err);
  if (!found)
    return Fail(err, ErrorKind::kUsage,
                "machine profile " + std::to_string(id) +
                    ": no such profile; `rprof machine list` lists them");
  return true;
}

bool ListProfiles(RunStore* store, std::vector<StoredProfile>* out, Error* err) {
  Error why;
  out->clear();
  auto add_profile = [&](const Statement& s) {
    StoredProfile p;
    ReadProfileRow(s, &p);
    out->push_back(std::move(p));
  };
  if (!store->db()->ForEachRow(std::string("SELECT ") + kProfileColumns + " ORDER BY p.id DESC",
                               &why, add_profile))
    return store->DbFail(why.message, err);
  for (StoredProfile& p : *out)
    if (!LoadCeilings(store->db(), &p, &why)) return store->DbFail(why.message, err);
  return true;
}

}  // namespace rprof
