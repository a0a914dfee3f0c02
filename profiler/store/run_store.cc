#include "store/run_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ranges>
#include <tuple>
#include <utility>

#include "core/json.h"
#include "core/run_bounds.h"
#include "core/target_kind.h"
#include "core/text.h"
#include "store/closed_list_sync.h"
#include "store/migrations.h"
#include "store/network_filesystem.h"
#include "store/schema_check.h"

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

bool MakeDirs(const std::string& dir, Error* err) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string prefix = dir.substr(0, pos);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return Fail(err, ErrorKind::kEnvironment,
                  "cannot create " + prefix + ": " + std::strerror(errno));
  }
  return true;
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Explains why a database file cannot be used, before SQLite gives a vaguer answer.
bool CheckDirectory(const std::string& path, Error* err) {
  std::string dir = DirName(path);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0)
    return Fail(err, ErrorKind::kEnvironment,
                "directory " + dir + " does not exist; create it or choose another database");
  if (access(path.c_str(), F_OK) != 0 && access(dir.c_str(), W_OK) != 0)
    return Fail(err, ErrorKind::kEnvironment,
                "directory " + dir + " is not writable; choose another database");
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
  Error why;
  if ((path.is_default && !MakeDirs(DirName(path.path), &why)) ||
      !CheckDirectory(path.path, &why) || !db_.Open(path.path, Database::Mode::kReadWrite, &why) ||
      !Migrate(&db_, BuiltinMigrations(), &why) ||
      !CheckSchemaUnlessVerified(&db_, /*record=*/true, &why) || !SyncClosedLists(&db_, &why)) {
    DbFail(why.message, err);
    if (err) err->remedy = Remedy::kOtherDatabase;
    return false;
  }
  // Last, as it may wait out the busy timeout: a file that cannot take the run now fails here,
  // before the measurement, not at the insert after it. Its message says what to do.
  if (!db_.CheckWritable(&why)) return DbFail(why.message, err);
  return true;
}

bool RunStore::OpenForReading(const DatabasePath& path, Database::Mode mode, int* version,
                              Error* err) {
  path_ = path.path;
  if (access(path.path.c_str(), F_OK) != 0) {
    // Never created by a reader: a mistyped --db must not leave an empty database behind.
    std::string dir = DirName(path.path);
    std::string why = access(dir.c_str(), F_OK) != 0
                          ? "directory " + dir + " does not exist, so nothing is stored there"
                          : "nothing is stored there yet (`rprof run` creates it)";
    return Fail(err, ErrorKind::kEnvironment,
                "no database at " + path.path + ": " + why + "; check the path",
                Remedy::kOtherDatabase);
  }
  Error why;
  if (!db_.Open(path.path, mode, &why)) return DbFail(why.message, err);
  Statement stmt;
  if (!db_.Prepare("PRAGMA user_version", &stmt, &why) || !stmt.Step(&why))
    return DbFail(why.message, err);
  *version = static_cast<int>(stmt.Int(0));
  if (!SchemaVersionKnown(*version, CurrentSchemaVersion(), &why)) return DbFail(why.message, err);
  return true;
}

bool RunStore::OpenExisting(const DatabasePath& path, Error* err) {
  // Read-write, but without creating the file, and query-only once it is current: a read-only
  // connection would leave its -wal and -shm files behind, as it may not remove them.
  int version = 0;
  if (!OpenForReading(path, Database::Mode::kReadWriteExisting, &version, err)) return false;
  Error why;
  // The readers expect the current schema: an older file is brought up to date, as the next
  // run would, and only such a file is ever written by a reader.
  if (version < CurrentSchemaVersion() &&
      (!Migrate(&db_, BuiltinMigrations(), &why) || !SyncClosedLists(&db_, &why)))
    return DbFail("schema version " + std::to_string(version) + " is older than this rprof's " +
                      std::to_string(CurrentSchemaVersion()) +
                      " and could not be brought up to date: " + why.message,
                  err);
  if (!CheckSchemaUnlessVerified(&db_, /*record=*/false, &why) ||
      !db_.Exec("PRAGMA query_only = ON", &why))
    return DbFail(why.message, err);
  return true;
}

bool RunStore::OpenReadOnly(const DatabasePath& path, Error* err) {
  int version = 0;
  return OpenForReading(path, Database::Mode::kReadOnly, &version, err);
}

bool RunStore::DbFail(const std::string& why, Error* err) const {
  return Fail(err, ErrorKind::kEnvironment, "database " + path_ + ": " + why);
}

bool RunStore::FindOrInsertMachine(const MachineRecord& m, int64_t* id, Error* err) {
  Statement find;
  if (!db_.Prepare("SELECT id FROM machines WHERE fingerprint = ?", &find, err)) return false;
  find.Bind(1, m.fingerprint);
  Error step;
  if (find.Step(&step)) {
    *id = find.Int(0);
    return true;
  }
  if (!step.message.empty()) {
    if (err) *err = std::move(step);
    return false;
  }
  if (!db_.Run("INSERT INTO machines (fingerprint, cpu_model, cores, caches, kernel, hostname,"
               " first_seen) VALUES (?, ?, ?, ?, ?, ?, ?)",
               err, m.fingerprint, m.cpu_model, m.cores, m.caches, m.kernel, m.hostname, UtcNow()))
    return false;
  *id = db_.LastInsertId();
  return true;
}

bool RunStore::Insert(RunRecord* run, Error* err) {
  if (run->uid.empty()) run->uid = NewRunUid();
  if (!WriteInTransaction([&](Error* why) { return InsertRows(run, why); }, err)) {
    run->id = 0;
    return false;
  }
  return true;
}

bool RunStore::FindStored(const RunRecord& run, int64_t* id, Error* err) {
  *id = 0;
  auto found = [&](const Statement& s) { *id = s.Int(0); };
  if (!run.uid.empty())
    return db_.ForEachRow("SELECT id FROM runs WHERE uid = ?", err, found, run.uid);
  return db_.ForEachRow(
      "SELECT r.id FROM runs r JOIN machines m ON m.id = r.machine_id WHERE m.fingerprint = ?"
      " AND r.target = ? AND r.started_at = ? AND r.ended_at = ? ORDER BY r.id LIMIT 1",
      err, found, run.machine.fingerprint, run.target, run.started_at, run.ended_at);
}

bool RunStore::Import(std::vector<RunRecord>* runs, std::vector<Imported>* results, Error* err) {
  return WriteInTransaction([&](Error* why) { return ImportRows(runs, results, why); }, err);
}

bool RunStore::ImportRows(std::vector<RunRecord>* runs, std::vector<Imported>* results,
                          Error* err) {
  results->clear();
  for (RunRecord& run : *runs) {
    // Whole or not at all: a run beyond what the store holds any run to is refused, named.
    if (std::string beyond = RunBoundsViolation(run); !beyond.empty())
      return Fail(err, ErrorKind::kEnvironment,
                  "run " + (run.uid.empty() ? run.target : run.uid) + ": " + beyond);
    Imported result;
    if (!FindStored(run, &result.run_id, err)) return false;
    if (result.run_id != 0) {
      result.already_stored = true;
      run.id = result.run_id;
      results->push_back(result);
      continue;
    }
    if (run.placement) {
      bool known = false;
      if (!db_.ForEachRow(
              "SELECT 1 FROM machine_profiles p JOIN machines m ON m.id = p.machine_id"
              " WHERE p.id = ? AND m.fingerprint = ?",
              err, [&](const Statement&) { known = true; }, run.placement->profile_id,
              run.machine.fingerprint))
        return false;
      if (!known) {
        run.placement.reset();
        result.placement_dropped = true;
      }
    }
    if (run.uid.empty()) run.uid = NewRunUid();
    if (!InsertRows(&run, err)) return false;
    result.run_id = run.id;
    results->push_back(result);
  }
  return true;
}

bool RunStore::InsertRows(RunRecord* run, Error* err) {
  const std::optional<JobRank>& job = run->job;
  std::optional<std::string> command;
  if (!run->command.empty()) command = StringsToJsonArray(run->command);
  int64_t run_id = 0;
  if (!InsertMachineRow(
          run->machine,
          "INSERT INTO runs (machine_id, target_kind, target, params, command, cwd,"
          " precision, status, exit_code, signal, note, sources, repetitions,"
          " calls_per_rep, started_at, ended_at, rprof_version, uid, cpu_list, job_id,"
          " job_rank, job_size, job_local_rank, job_node, job_host, job_launcher,"
          " job_scheduler, job_scheduler_job_id, job_scheduler_step_id)"
          " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
          " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          &run_id, err, run->target_kind, run->target, PairsToJsonObject(run->params), command,
          NullIfEmpty(run->cwd), NullIfEmpty(run->precision), RunStatusName(run->status),
          run->exit_code, run->signal, NullIfEmpty(run->note), Join(run->sources, ","),
          run->samples.size(), run->calls_per_rep, run->started_at, run->ended_at,
          run->rprof_version, run->uid, NullIfEmpty(run->cpu_list),
          job ? std::optional(job->job_id) : std::nullopt,
          job ? std::optional(job->rank) : std::nullopt,
          job ? std::optional(job->size) : std::nullopt, job ? job->local_rank : std::nullopt,
          job ? job->node : std::nullopt, job ? std::optional(job->host) : std::nullopt,
          job ? std::optional(job->launcher) : std::nullopt,
          job ? NullIfEmpty(job->scheduler) : std::nullopt,
          job ? NullIfEmpty(job->scheduler_job_id) : std::nullopt,
          job ? NullIfEmpty(job->scheduler_step_id) : std::nullopt))
    return false;

  // Each table's statement is prepared once and run per row.
  if (!db_.RunForEach("INSERT INTO samples (run_id, rep, time_s) VALUES (?, ?, ?)",
                      std::views::iota(size_t{0}, run->samples.size()), err,
                      [&](size_t rep) { return std::tuple(run_id, rep, run->samples[rep]); }))
    return false;
  if (!db_.RunForEach("INSERT INTO metrics (run_id, region, name, source, value, unit, note,"
                      " coverage, spread_pct) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      run->metrics, err, [&](const Metric& m) {
                        return std::tuple(run_id, m.region, m.name, SourceName(m.source), m.value,
                                          m.unit, NullIfEmpty(m.note), m.coverage, m.spread_pct);
                      }))
    return false;
  if (!db_.RunForEach(
          "INSERT OR IGNORE INTO run_trust (run_id, kind, detail) VALUES (?, ?, ?)", run->trust,
          err, [&](const TrustNote& note) { return std::tuple(run_id, note.kind, note.detail); }))
    return false;
  if (!run->sim_caches.empty() &&
      !db_.RunForEach("INSERT INTO run_sim_caches (run_id, level, size_bytes, ways, line_bytes,"
                      " inclusion, size_origin) VALUES (?, ?, ?, ?, ?, ?, ?)",
                      run->sim_caches, err, [&](const SimCacheRecord& c) {
                        return std::tuple(run_id, c.level, c.size_bytes, c.ways, c.line_bytes,
                                          c.inclusion, c.size_origin);
                      }))
    return false;
  if (!db_.RunForEach("INSERT INTO tags (run_id, key, value) VALUES (?, ?, ?)", run->tags, err,
                      [&](const auto& tag) { return std::tuple(run_id, tag.first, tag.second); }))
    return false;

  if (run->placement) {
    const PlacementRecord& p = *run->placement;
    if (!db_.Run("INSERT INTO placements (run_id, profile_id, compute_ceiling, peak_gflops,"
                 " binding, bound, bytes_compulsory_only, attainable_gflops, percent_of_roof,"
                 " verdict, note, binding_level, binding_source, bound_text)"
                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 err, run_id, p.profile_id, p.compute_ceiling, p.peak_gflops,
                 NullIfEmpty(p.binding), NullIfEmpty(p.bound), p.bytes_compulsory_only,
                 p.attainable_gflops, p.percent_of_roof, p.verdict, NullIfEmpty(p.note),
                 NullIfEmpty(p.binding_level), NullIfEmpty(p.binding_source),
                 NullIfEmpty(p.bound_text)))
      return false;
  }
  run->id = run_id;
  return true;
}

namespace {

constexpr const char* kRunColumns =
    "r.id, r.target_kind, r.target, r.params, r.command, r.cwd, r.precision, r.status,"
    " r.exit_code, r.signal, r.note, r.sources, r.calls_per_rep, r.started_at, r.ended_at,"
    " r.rprof_version, m.fingerprint, m.cpu_model, m.cores, m.caches, m.kernel, m.hostname,"
    " p.profile_id, p.compute_ceiling, p.peak_gflops, p.binding, p.attainable_gflops,"
    " p.percent_of_roof, p.verdict, p.bound, p.bytes_compulsory_only, p.note, r.uid, r.cpu_list,"
    " r.job_id, r.job_rank, r.job_size, r.job_local_rank, r.job_node, r.job_host, r.job_launcher,"
    " p.binding_level, p.binding_source, p.bound_text, r.job_scheduler,"
    " r.job_scheduler_job_id, r.job_scheduler_step_id"
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
  run->uid = s.Text(32);
  run->machine = {s.Text(16), s.Text(17), static_cast<int>(s.Int(18)),
                  s.Text(19), s.Text(20), s.Text(21)};
  run->cpu_list = s.Text(33);
  if (!s.IsNull(34)) {
    JobRank job;
    job.job_id = s.Text(34);
    job.rank = static_cast<int>(s.Int(35));
    job.size = static_cast<int>(s.Int(36));
    if (!s.IsNull(37)) job.local_rank = static_cast<int>(s.Int(37));
    if (!s.IsNull(38)) job.node = static_cast<int>(s.Int(38));
    job.host = s.Text(39);
    job.launcher = s.Text(40);
    job.scheduler = s.Text(44);
    job.scheduler_job_id = s.Text(45);
    job.scheduler_step_id = s.Text(46);
    run->job = job;
  }
  if (!s.IsNull(22)) {
    PlacementRecord p;
    p.profile_id = s.Int(22);
    p.compute_ceiling = s.Text(23);
    p.peak_gflops = s.Double(24);
    p.binding = s.Text(25);
    p.bound = s.Text(29);
    if (!s.IsNull(30)) p.bytes_compulsory_only = s.Int(30) != 0;
    p.attainable_gflops = s.OptionalDouble(26);
    p.percent_of_roof = s.OptionalDouble(27);
    p.verdict = s.Text(28);
    p.note = s.Text(31);
    p.binding_level = s.Text(41);
    p.binding_source = s.Text(42);
    p.bound_text = s.Text(43);
    run->placement = p;
  }
}

}  // namespace

bool RunStore::LoadDetails(RunRecord* run, Error* err, bool run_metrics_only) {
  auto add_sample = [&](const Statement& s) { run->samples.push_back(s.Double(0)); };
  auto add_metric = [&](const Statement& s) {
    Metric m;
    m.region = s.Text(0);
    m.name = s.Text(1);
    m.source = ParseSource(s.Text(2)).value_or(Source::kModel);
    m.value = s.OptionalDouble(3);
    m.unit = s.Text(4);
    m.note = s.Text(5);
    m.coverage = s.OptionalDouble(6);
    m.spread_pct = s.OptionalDouble(7);
    run->metrics.push_back(std::move(m));
  };
  auto add_trust = [&](const Statement& s) { run->trust.push_back({s.Text(0), s.Text(1)}); };
  auto add_tag = [&](const Statement& s) { run->tags.emplace_back(s.Text(0), s.Text(1)); };
  return db_.ForEachRow("SELECT time_s FROM samples WHERE run_id = ? ORDER BY rep", err, add_sample,
                        run->id) &&
         db_.ForEachRow(
             run_metrics_only
                 ? "SELECT region, name, source, value, unit, note, coverage, spread_pct FROM "
                   "metrics WHERE run_id = ? AND region = '' ORDER BY rowid"
                 : "SELECT region, name, source, value, unit, note, coverage, spread_pct FROM "
                   "metrics WHERE run_id = ? ORDER BY rowid",
             err, add_metric, run->id) &&
         db_.ForEachRow("SELECT kind, detail FROM run_trust WHERE run_id = ? ORDER BY rowid", err,
                        add_trust, run->id) &&
         db_.ForEachRow("SELECT key, value FROM tags WHERE run_id = ? ORDER BY key", err, add_tag,
                        run->id);
}

bool RunStore::Load(int64_t id, RunRecord* out, Error* err) {
  Error why;
  Statement stmt;
  if (!db_.Prepare(std::string("SELECT ") + kRunColumns + " WHERE r.id = ?", &stmt, &why))
    return DbFail(why.message, err);
  stmt.Bind(1, id);
  if (!stmt.Step(&why)) {
    if (!why.message.empty()) return DbFail(why.message, err);
    return Fail(err, ErrorKind::kUsage,
                "run " + std::to_string(id) + ": no such run in " + path_ +
                    "; `rprof history` lists the stored runs");
  }
  *out = RunRecord();
  ReadRunRow(stmt, out);
  if (!LoadDetails(out, &why)) return DbFail(why.message, err);
  return true;
}

namespace {

// The target kinds whose target is a program's path (TargetKindInfo::target_is_path), as an
// SQL list of their stored names.
std::string PathTargetKindsSql() {
  std::string list;
  for (const TargetKindInfo& k : kTargetKinds)
    if (k.target_is_path) list += (list.empty() ? "'" : ", '") + std::string(k.name) + "'";
  return list;
}

}  // namespace

bool RunStore::List(const RunFilter& filter, std::vector<RunRecord>* out, Error* err) {
  std::string sql = std::string("SELECT ") + kRunColumns + " WHERE 1";
  if (!filter.target.empty()) {
    sql += " AND (r.target = :target";
    for (size_t i = 0; i < filter.also_targets.size(); ++i)
      sql += " OR r.target = :also" + std::to_string(i);
    // A second :target is the same parameter: nothing more to bind.
    sql += " OR (substr(:target, 1, 1) = '/' AND r.target_kind IN (" + PathTargetKindsSql() +
           ")"
           " AND substr(r.target, 1, 1) <> '/' AND instr(r.target, '/') > 0"
           " AND r.cwd || '/' || (CASE WHEN substr(r.target, 1, 2) = './'"
           " THEN substr(r.target, 3) ELSE r.target END) = :target))";
  }
  if (!filter.job_id.empty()) sql += " AND r.job_id = :job";
  if (!filter.status.empty()) sql += " AND r.status = :status";
  if (!filter.since.empty()) sql += " AND r.started_at >= :since";
  if (!filter.function.empty())
    sql +=
        " AND EXISTS (SELECT 1 FROM metrics fm WHERE fm.run_id = r.id"
        " AND fm.region = 'fn:' || :function)";
  for (size_t i = 0; i < filter.tags.size(); ++i) {
    std::string n = std::to_string(i);
    sql += " AND EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.id AND t.key = :tk" + n +
           " AND t.value = :tv" + n + ")";
  }
  sql += " ORDER BY r.id DESC";
  if (filter.limit > 0) sql += " LIMIT " + std::to_string(filter.limit);

  Error why;
  Statement stmt;
  if (!db_.Prepare(sql, &stmt, &why)) return DbFail(why.message, err);
  // Named parameters are numbered in order of appearance, so bind them in the same order.
  int index = 1;
  if (!filter.target.empty()) {
    stmt.Bind(index++, filter.target);
    for (const std::string& name : filter.also_targets) stmt.Bind(index++, name);
  }
  if (!filter.job_id.empty()) stmt.Bind(index++, filter.job_id);
  if (!filter.status.empty()) stmt.Bind(index++, filter.status);
  if (!filter.since.empty()) stmt.Bind(index++, filter.since);
  if (!filter.function.empty()) stmt.Bind(index++, filter.function);
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
  if (!why.message.empty()) return DbFail(why.message, err);
  for (RunRecord& run : *out)
    if (!LoadDetails(&run, &why, filter.run_metrics_only)) return DbFail(why.message, err);
  return true;
}

}  // namespace rprof
