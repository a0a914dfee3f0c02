#include "store/run_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/json.h"
#include "store/migrations.h"
#include "core/text.h"

namespace rprof {

namespace {

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = text.find(sep, start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool MakeDirs(const std::string& dir, std::string* err) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string prefix = dir.substr(0, pos);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      *err = "cannot create " + prefix + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Explains why a database file cannot be used, before SQLite gives a vaguer answer.
bool CheckDirectory(const std::string& path, std::string* err) {
  std::string dir = DirName(path);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    *err = "directory " + dir + " does not exist; create it or choose another --db";
    return false;
  }
  if (access(path.c_str(), F_OK) != 0 && access(dir.c_str(), W_OK) != 0) {
    *err = "directory " + dir + " is not writable; choose another --db";
    return false;
  }
  return true;
}

}  // namespace

DatabasePath ResolveDatabasePath(const std::string& flag_value) {
  if (!flag_value.empty()) return {flag_value, false};
  if (const char* env = std::getenv("RPROF_DB"); env && *env) return {env, false};
  const char* xdg = std::getenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  std::string data_home = xdg && *xdg     ? std::string(xdg)
                          : home && *home ? std::string(home) + "/.local/share"
                                          : std::string(".");
  return {data_home + "/rprof/rprof.db", true};
}

bool RunStore::Open(const DatabasePath& path, Error* err) {
  path_ = path.path;
  std::string why;
  if (path.is_default && !MakeDirs(DirName(path.path), &why))
    return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
  if (!CheckDirectory(path.path, &why) || !db_.Open(path.path, Database::Mode::kReadWrite, &why) ||
      !Migrate(&db_, BuiltinMigrations(), &why))
    return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
  return true;
}

bool RunStore::OpenReadOnly(const DatabasePath& path, Error* err) {
  path_ = path.path;
  if (access(path.path.c_str(), F_OK) != 0)
    return Fail(err, ErrorKind::kEnvironment,
                "database " + path_ + ": no such file; no run has been stored there yet");
  std::string why;
  if (!db_.Open(path.path, Database::Mode::kReadOnly, &why))
    return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
  Statement stmt;
  if (!db_.Prepare("PRAGMA user_version", &stmt, &why) || !stmt.Step(&why))
    return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
  if (stmt.Int(0) > CurrentSchemaVersion())
    return Fail(err, ErrorKind::kEnvironment,
                "database " + path_ + ": schema version " + std::to_string(stmt.Int(0)) +
                    " is newer than this rprof's " + std::to_string(CurrentSchemaVersion()) +
                    "; use a newer rprof");
  return true;
}

bool RunStore::FindOrInsertMachine(const MachineRecord& m, int64_t* id, std::string* err) {
  Statement find;
  if (!db_.Prepare("SELECT id FROM machines WHERE fingerprint = ?", &find, err)) return false;
  find.Bind(1, m.fingerprint);
  if (find.Step(err)) {
    *id = find.Int(0);
    return true;
  }
  if (!err->empty()) return false;
  Statement insert;
  if (!db_.Prepare("INSERT INTO machines (fingerprint, cpu_model, cores, caches, kernel, hostname,"
                   " first_seen) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   &insert, err))
    return false;
  insert.Bind(1, m.fingerprint);
  insert.Bind(2, m.cpu_model);
  insert.Bind(3, static_cast<int64_t>(m.cores));
  insert.Bind(4, m.caches);
  insert.Bind(5, m.kernel);
  insert.Bind(6, m.hostname);
  insert.Bind(7, UtcNow());
  if (!insert.Run(err)) return false;
  *id = db_.LastInsertId();
  return true;
}

bool RunStore::Insert(RunRecord* run, Error* err) {
  std::string why;
  auto fail = [&] { return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why); };
  Transaction txn(&db_);
  if (!txn.Begin(&why)) return fail();
  int64_t machine_id = 0;
  if (!FindOrInsertMachine(run->machine, &machine_id, &why)) return fail();

  Statement stmt;
  if (!db_.Prepare("INSERT INTO runs (machine_id, target_kind, target, params, command, cwd,"
                   " precision, status, exit_code, signal, note, sources, repetitions,"
                   " calls_per_rep, started_at, ended_at, rprof_version)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   &stmt, &why))
    return fail();
  stmt.Bind(1, machine_id);
  stmt.Bind(2, run->target_kind);
  stmt.Bind(3, run->target);
  stmt.Bind(4, PairsToJsonObject(run->params));
  if (run->command.empty()) stmt.BindNull(5); else stmt.Bind(5, StringsToJsonArray(run->command));
  if (run->cwd.empty()) stmt.BindNull(6); else stmt.Bind(6, run->cwd);
  if (run->precision.empty()) stmt.BindNull(7); else stmt.Bind(7, run->precision);
  stmt.Bind(8, std::string_view(RunStatusName(run->status)));
  if (run->exit_code) stmt.Bind(9, static_cast<int64_t>(*run->exit_code)); else stmt.BindNull(9);
  if (run->signal) stmt.Bind(10, static_cast<int64_t>(*run->signal)); else stmt.BindNull(10);
  if (run->note.empty()) stmt.BindNull(11); else stmt.Bind(11, run->note);
  stmt.Bind(12, Join(run->sources, ","));
  stmt.Bind(13, static_cast<int64_t>(run->samples.size()));
  stmt.Bind(14, run->calls_per_rep);
  stmt.Bind(15, run->started_at);
  stmt.Bind(16, run->ended_at);
  stmt.Bind(17, run->rprof_version);
  if (!stmt.Run(&why)) return fail();
  int64_t run_id = db_.LastInsertId();

  Statement sample;
  if (!db_.Prepare("INSERT INTO samples (run_id, rep, time_s) VALUES (?, ?, ?)", &sample, &why))
    return fail();
  for (size_t i = 0; i < run->samples.size(); ++i) {
    sample.Bind(1, run_id);
    sample.Bind(2, static_cast<int64_t>(i));
    sample.Bind(3, run->samples[i]);
    if (!sample.Run(&why)) return fail();
  }

  Statement metric;
  if (!db_.Prepare("INSERT INTO metrics (run_id, region, name, source, value, unit, note,"
                   " coverage) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   &metric, &why))
    return fail();
  for (const Metric& m : run->metrics) {
    metric.Bind(1, run_id);
    metric.Bind(2, m.region);
    metric.Bind(3, m.name);
    metric.Bind(4, SourceName(m.source));
    metric.Bind(5, m.value);
    metric.Bind(6, m.unit);
    if (m.note.empty()) metric.BindNull(7); else metric.Bind(7, m.note);
    metric.Bind(8, m.coverage);
    if (!metric.Run(&why)) return fail();
  }

  Statement trust;
  if (!db_.Prepare("INSERT OR IGNORE INTO run_trust (run_id, kind, detail) VALUES (?, ?, ?)",
                   &trust, &why))
    return fail();
  for (const TrustNote& note : run->trust) {
    trust.Bind(1, run_id);
    trust.Bind(2, note.kind);
    trust.Bind(3, note.detail);
    if (!trust.Run(&why)) return fail();
  }

  Statement tag;
  if (!db_.Prepare("INSERT INTO tags (run_id, key, value) VALUES (?, ?, ?)", &tag, &why))
    return fail();
  for (const auto& [key, value] : run->tags) {
    tag.Bind(1, run_id);
    tag.Bind(2, key);
    tag.Bind(3, value);
    if (!tag.Run(&why)) return fail();
  }
  if (run->placement) {
    const PlacementRecord& p = *run->placement;
    Statement place;
    if (!db_.Prepare("INSERT INTO placements (run_id, profile_id, compute_ceiling, peak_gflops,"
                     " binding, attainable_gflops, percent_of_roof, verdict)"
                     " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     &place, &why))
      return fail();
    place.Bind(1, run_id);
    place.Bind(2, p.profile_id);
    place.Bind(3, p.compute_ceiling);
    place.Bind(4, p.peak_gflops);
    if (p.binding.empty()) place.BindNull(5); else place.Bind(5, p.binding);
    place.Bind(6, p.attainable_gflops);
    place.Bind(7, p.percent_of_roof);
    place.Bind(8, p.verdict);
    if (!place.Run(&why)) return fail();
  }
  if (!txn.Commit(&why)) return fail();
  run->id = run_id;
  return true;
}

namespace {

constexpr const char* kRunColumns =
    "r.id, r.target_kind, r.target, r.params, r.command, r.cwd, r.precision, r.status,"
    " r.exit_code, r.signal, r.note, r.sources, r.calls_per_rep, r.started_at, r.ended_at,"
    " r.rprof_version, m.fingerprint, m.cpu_model, m.cores, m.caches, m.kernel, m.hostname,"
    " p.profile_id, p.compute_ceiling, p.peak_gflops, p.binding, p.attainable_gflops,"
    " p.percent_of_roof, p.verdict"
    " FROM runs r JOIN machines m ON m.id = r.machine_id"
    " LEFT JOIN placements p ON p.run_id = r.id";

void ReadRunRow(const Statement& s, RunRecord* run) {
  run->id = s.Int(0);
  run->target_kind = s.Text(1);
  run->target = s.Text(2);
  ParseFlatJsonObject(s.Text(3), &run->params);
  if (!s.IsNull(4)) ParseJsonStringArray(s.Text(4), &run->command);
  run->cwd = s.Text(5);
  run->precision = s.Text(6);
  run->status = ParseRunStatus(s.Text(7)).value_or(RunStatus::kFailed);
  if (!s.IsNull(8)) run->exit_code = static_cast<int>(s.Int(8));
  if (!s.IsNull(9)) run->signal = static_cast<int>(s.Int(9));
  run->note = s.Text(10);
  run->sources = Split(s.Text(11), ',');
  run->calls_per_rep = s.Int(12);
  run->started_at = s.Text(13);
  run->ended_at = s.Text(14);
  run->rprof_version = s.Text(15);
  run->machine = {s.Text(16), s.Text(17), static_cast<int>(s.Int(18)), s.Text(19), s.Text(20),
                  s.Text(21)};
  if (!s.IsNull(22))
    run->placement = PlacementRecord{s.Int(22),          s.Text(23),           s.Double(24),
                                     s.Text(25),         s.OptionalDouble(26), s.OptionalDouble(27),
                                     s.Text(28)};
}

}  // namespace

bool RunStore::LoadDetails(RunRecord* run, std::string* err) {
  Statement samples;
  if (!db_.Prepare("SELECT time_s FROM samples WHERE run_id = ? ORDER BY rep", &samples, err))
    return false;
  samples.Bind(1, run->id);
  while (samples.Step(err)) run->samples.push_back(samples.Double(0));
  if (!err->empty()) return false;

  Statement metrics;
  if (!db_.Prepare("SELECT region, name, source, value, unit, note, coverage FROM metrics"
                   " WHERE run_id = ?"
                   " ORDER BY rowid",
                   &metrics, err))
    return false;
  metrics.Bind(1, run->id);
  while (metrics.Step(err)) {
    Metric m;
    m.region = metrics.Text(0);
    m.name = metrics.Text(1);
    m.source = ParseSource(metrics.Text(2)).value_or(Source::kModel);
    m.value = metrics.OptionalDouble(3);
    m.unit = metrics.Text(4);
    m.note = metrics.Text(5);
    m.coverage = metrics.OptionalDouble(6);
    run->metrics.push_back(std::move(m));
  }
  if (!err->empty()) return false;

  Statement trust;
  if (!db_.Prepare("SELECT kind, detail FROM run_trust WHERE run_id = ? ORDER BY rowid", &trust,
                   err))
    return false;
  trust.Bind(1, run->id);
  while (trust.Step(err)) run->trust.push_back({trust.Text(0), trust.Text(1)});
  if (!err->empty()) return false;

  Statement tags;
  if (!db_.Prepare("SELECT key, value FROM tags WHERE run_id = ? ORDER BY key", &tags, err))
    return false;
  tags.Bind(1, run->id);
  while (tags.Step(err)) run->tags.emplace_back(tags.Text(0), tags.Text(1));
  return err->empty();
}

bool RunStore::Load(int64_t id, RunRecord* out, Error* err) {
  std::string why;
  Statement stmt;
  if (!db_.Prepare(std::string("SELECT ") + kRunColumns + " WHERE r.id = ?", &stmt, &why))
    return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
  stmt.Bind(1, id);
  if (!stmt.Step(&why)) {
    if (!why.empty()) return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
    return Fail(err, ErrorKind::kUsage,
                "run " + std::to_string(id) + ": no such run in " + path_ +
                    "; `rprof history` lists the stored runs");
  }
  *out = RunRecord();
  ReadRunRow(stmt, out);
  if (!LoadDetails(out, &why))
    return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
  return true;
}

bool RunStore::List(const RunFilter& filter, std::vector<RunRecord>* out, Error* err) {
  std::string sql = std::string("SELECT ") + kRunColumns + " WHERE 1";
  if (!filter.target.empty()) sql += " AND r.target = :target";
  if (!filter.status.empty()) sql += " AND r.status = :status";
  if (!filter.since.empty()) sql += " AND r.started_at >= :since";
  for (size_t i = 0; i < filter.tags.size(); ++i) {
    std::string n = std::to_string(i);
    sql += " AND EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.id AND t.key = :tk" + n +
           " AND t.value = :tv" + n + ")";
  }
  sql += " ORDER BY r.id DESC";
  if (filter.limit > 0) sql += " LIMIT " + std::to_string(filter.limit);

  std::string why;
  Statement stmt;
  if (!db_.Prepare(sql, &stmt, &why))
    return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
  // Named parameters are numbered in order of appearance, so bind them in the same order.
  int index = 1;
  if (!filter.target.empty()) stmt.Bind(index++, filter.target);
  if (!filter.status.empty()) stmt.Bind(index++, filter.status);
  if (!filter.since.empty()) stmt.Bind(index++, filter.since);
  for (const auto& [key, value] : filter.tags) {
    stmt.Bind(index++, key);
    stmt.Bind(index++, value);
  }
  out->clear();
  while (stmt.Step(&why)) {
    RunRecord run;
    ReadRunRow(stmt, &run);
    out->push_back(std::move(run));
  }
  if (!why.empty()) return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
  for (RunRecord& run : *out)
    if (!LoadDetails(&run, &why))
      return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
  return true;
}

}  // namespace rprof
