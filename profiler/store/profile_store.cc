#include "store/profile_store.h"

#include <sstream>

#include "rprof_config.h"

namespace rprof {

namespace {

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

bool DbFail(RunStore* store, const std::string& why, Error* err) {
  return Fail(err, ErrorKind::kEnvironment, "database " + store->path() + ": " + why);
}

constexpr const char* kProfileColumns =
    "p.id, p.mode, p.threads, p.isa, p.nominal_ghz, p.clock_ghz_scalar, p.clock_ghz_vector,"
    " p.load_average_before, p.seconds, p.warnings, p.created_at, m.fingerprint, m.cpu_model,"
    " m.cores, m.caches, m.kernel, m.hostname"
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
  out->machine = {s.Text(11), s.Text(12), static_cast<int>(s.Int(13)), s.Text(14), s.Text(15),
                  s.Text(16)};
  out->profile.fingerprint = out->machine.fingerprint;
}

bool LoadCeilings(Database* db, StoredProfile* out, std::string* why) {
  Statement s;
  if (!db->Prepare("SELECT kind, name, level, isa, precision, pattern, threads, working_set_bytes,"
                   " value, unit, spread_pct, repetitions FROM ceilings WHERE profile_id = ?"
                   " ORDER BY rowid",
                   &s, why))
    return false;
  s.Bind(1, out->id);
  while (s.Step(why)) {
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
    out->profile.ceilings.push_back(std::move(c));
  }
  return why->empty();
}

bool LoadPoints(Database* db, StoredProfile* out, std::string* why) {
  Statement lat;
  if (!db->Prepare("SELECT working_set_bytes, ns, spread_pct FROM latency_points"
                   " WHERE profile_id = ? ORDER BY working_set_bytes",
                   &lat, why))
    return false;
  lat.Bind(1, out->id);
  while (lat.Step(why))
    out->profile.latency.push_back(
        {static_cast<uint64_t>(lat.Int(0)), lat.Double(1), lat.Double(2)});
  if (!why->empty()) return false;

  Statement bw;
  if (!db->Prepare("SELECT pattern, threads, working_set_bytes, gbs, spread_pct FROM"
                   " bandwidth_points WHERE profile_id = ? ORDER BY pattern, threads,"
                   " working_set_bytes",
                   &bw, why))
    return false;
  bw.Bind(1, out->id);
  while (bw.Step(why))
    out->profile.bandwidth.push_back({bw.Text(0), static_cast<int>(bw.Int(1)),
                                      static_cast<uint64_t>(bw.Int(2)), bw.Double(3),
                                      bw.Double(4)});
  if (!why->empty()) return false;

  Statement lv;
  if (!db->Prepare("SELECT level, reported_size, effective_size, latency_ns, bandwidth_gbs FROM"
                   " memory_levels WHERE profile_id = ? ORDER BY rowid",
                   &lv, why))
    return false;
  lv.Bind(1, out->id);
  while (lv.Step(why))
    out->profile.levels.push_back({lv.Text(0), static_cast<uint64_t>(lv.Int(1)),
                                   static_cast<uint64_t>(lv.Int(2)),
                                   lv.OptionalDouble(3).value_or(0),
                                   lv.OptionalDouble(4).value_or(0)});
  return why->empty();
}

std::optional<double> NonZero(double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; }

}  // namespace

bool InsertProfile(RunStore* store, const MachineRecord& machine, const MachineProfile& profile,
                   int64_t* id, Error* err) {
  Database* db = store->db();
  std::string why;
  Transaction txn(db);
  if (!txn.Begin(&why)) return DbFail(store, why, err);
  int64_t machine_id = 0;
  if (!store->FindOrInsertMachine(machine, &machine_id, &why)) return DbFail(store, why, err);

  Statement p;
  if (!db->Prepare("INSERT INTO machine_profiles (machine_id, mode, threads, isa, nominal_ghz,"
                   " clock_ghz_scalar, clock_ghz_vector, load_average_before, seconds, warnings,"
                   " created_at, rprof_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   &p, &why))
    return DbFail(store, why, err);
  p.Bind(1, machine_id);
  p.Bind(2, profile.mode);
  p.Bind(3, static_cast<int64_t>(profile.threads));
  p.Bind(4, IsaString(profile.topology.isa));
  p.Bind(5, NonZero(profile.topology.nominal_ghz));
  p.Bind(6, NonZero(profile.clock_ghz_scalar));
  p.Bind(7, NonZero(profile.clock_ghz_vector));
  p.Bind(8, profile.load_average_before);
  p.Bind(9, profile.seconds);
  p.Bind(10, JoinLines(profile.warnings));
  p.Bind(11, UtcNow());
  p.Bind(12, std::string_view(RPROF_VERSION));
  if (!p.Run(&why)) return DbFail(store, why, err);
  int64_t profile_id = db->LastInsertId();

  Statement c;
  if (!db->Prepare("INSERT INTO ceilings (profile_id, kind, name, level, isa, precision, pattern,"
                   " threads, working_set_bytes, value, unit, spread_pct, repetitions)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   &c, &why))
    return DbFail(store, why, err);
  for (const Ceiling& x : profile.ceilings) {
    c.Bind(1, profile_id);
    c.Bind(2, x.kind);
    c.Bind(3, x.name);
    c.Bind(4, x.level);
    c.Bind(5, x.isa);
    c.Bind(6, x.precision);
    c.Bind(7, x.pattern);
    c.Bind(8, static_cast<int64_t>(x.threads));
    c.Bind(9, static_cast<int64_t>(x.working_set_bytes));
    c.Bind(10, x.value);
    c.Bind(11, x.unit);
    c.Bind(12, x.spread_pct);
    c.Bind(13, static_cast<int64_t>(x.repetitions));
    if (!c.Run(&why)) return DbFail(store, x.name + ": " + why, err);
  }
  Statement l;
  if (!db->Prepare("INSERT INTO latency_points (profile_id, working_set_bytes, ns, spread_pct)"
                   " VALUES (?, ?, ?, ?)",
                   &l, &why))
    return DbFail(store, why, err);
  for (const LatencyPoint& x : profile.latency) {
    l.Bind(1, profile_id);
    l.Bind(2, static_cast<int64_t>(x.working_set_bytes));
    l.Bind(3, x.ns);
    l.Bind(4, x.spread_pct);
    if (!l.Run(&why)) return DbFail(store, why, err);
  }
  Statement b;
  if (!db->Prepare("INSERT INTO bandwidth_points (profile_id, pattern, threads, working_set_bytes,"
                   " gbs, spread_pct) VALUES (?, ?, ?, ?, ?, ?)",
                   &b, &why))
    return DbFail(store, why, err);
  for (const BandwidthPoint& x : profile.bandwidth) {
    b.Bind(1, profile_id);
    b.Bind(2, x.pattern);
    b.Bind(3, static_cast<int64_t>(x.threads));
    b.Bind(4, static_cast<int64_t>(x.working_set_bytes));
    b.Bind(5, x.gbs);
    b.Bind(6, x.spread_pct);
    if (!b.Run(&why)) return DbFail(store, why, err);
  }
  Statement v;
  if (!db->Prepare("INSERT INTO memory_levels (profile_id, level, reported_size, effective_size,"
                   " latency_ns, bandwidth_gbs) VALUES (?, ?, ?, ?, ?, ?)",
                   &v, &why))
    return DbFail(store, why, err);
  for (const LevelSummary& x : profile.levels) {
    v.Bind(1, profile_id);
    v.Bind(2, x.level);
    v.Bind(3, static_cast<int64_t>(x.reported_size));
    v.Bind(4, static_cast<int64_t>(x.effective_size));
    v.Bind(5, NonZero(x.latency_ns));
    v.Bind(6, NonZero(x.bandwidth_gbs));
    if (!v.Run(&why)) return DbFail(store, why, err);
  }
  if (!txn.Commit(&why)) return DbFail(store, why, err);
  *id = profile_id;
  return true;
}

bool LoadNewestProfile(RunStore* store, const std::string& fingerprint, StoredProfile* out,
                       bool* found, Error* err) {
  std::string why;
  Statement s;
  if (!store->db()->Prepare(std::string("SELECT ") + kProfileColumns +
                                " WHERE m.fingerprint = ? ORDER BY p.id DESC LIMIT 1",
                            &s, &why))
    return DbFail(store, why, err);
  s.Bind(1, fingerprint);
  *found = s.Step(&why);
  if (!why.empty()) return DbFail(store, why, err);
  if (!*found) return true;
  *out = StoredProfile();
  ReadProfileRow(s, out);
  if (!LoadCeilings(store->db(), out, &why) || !LoadPoints(store->db(), out, &why))
    return DbFail(store, why, err);
  return true;
}

bool LoadProfile(RunStore* store, int64_t id, StoredProfile* out, Error* err) {
  std::string why;
  Statement s;
  if (!store->db()->Prepare(std::string("SELECT ") + kProfileColumns + " WHERE p.id = ?", &s,
                            &why))
    return DbFail(store, why, err);
  s.Bind(1, id);
  if (!s.Step(&why)) {
    if (!why.empty()) return DbFail(store, why, err);
    return Fail(err, ErrorKind::kUsage,
                "machine profile " + std::to_string(id) +
                    ": no such profile; `rprof machine list` lists them");
  }
  *out = StoredProfile();
  ReadProfileRow(s, out);
  if (!LoadCeilings(store->db(), out, &why) || !LoadPoints(store->db(), out, &why))
    return DbFail(store, why, err);
  return true;
}

bool ListProfiles(RunStore* store, std::vector<StoredProfile>* out, Error* err) {
  std::string why;
  Statement s;
  if (!store->db()->Prepare(std::string("SELECT ") + kProfileColumns + " ORDER BY p.id DESC", &s,
                            &why))
    return DbFail(store, why, err);
  out->clear();
  while (s.Step(&why)) {
    StoredProfile p;
    ReadProfileRow(s, &p);
    out->push_back(std::move(p));
  }
  if (!why.empty()) return DbFail(store, why, err);
  for (StoredProfile& p : *out)
    if (!LoadCeilings(store->db(), &p, &why)) return DbFail(store, why, err);
  return true;
}

}  // namespace rprof
