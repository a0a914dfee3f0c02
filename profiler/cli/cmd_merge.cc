// rprof merge DB...: other databases' machines, profiles, calibrations and runs stored in this
// one: the per-node (or, on a network filesystem, per-rank) databases of a parallel job, or any
// other machine's history. Each source is merged in one transaction, whole or not at all. A run
// is known by its uid, a profile by its machine and the time it was measured, a calibration
// likewise: merging twice stores nothing the second time. A source of a newer schema than this
// rprof is refused before anything is read from it, and left untouched.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/options.h"
#include "store/run_store.h"

namespace rprof {

namespace {

// The columns of a table in the destination: the source has the same ones, as both are at
// this rprof's schema version once opened.
bool Columns(Database* db, const std::string& table, std::vector<std::string>* out, Error* err) {
  out->clear();
  return db->ForEachRow(
      "SELECT name FROM pragma_table_info(?) ORDER BY cid", err,
      [&](const Statement& s) { out->push_back(s.Text(0)); }, table);
}

// Copies the source's rows of `table` whose `where` column is `where_value` into main, with
// column `set` = `set_value`, and without their `id` column where !keep_id (main numbers them).
bool CopyRows(Database* db, const std::string& table, const std::string& where, int64_t where_value,
              const std::string& set, int64_t set_value, bool keep_id, Error* err) {
  std::vector<std::string> columns;
  if (!Columns(db, table, &columns, err)) return false;
  std::string names, values;
  for (const std::string& c : columns) {
    if (c == "id" && !keep_id) continue;
    names += (names.empty() ? "" : ", ") + c;
    values += (values.empty() ? "" : ", ") + (c == set ? std::string("?1") : c);
  }
  return db->Run("INSERT INTO main." + table + " (" + names + ") SELECT " + values + " FROM src." +
                     table + " WHERE " + where + " = ?2",
                 err, set_value, where_value);
}

// Copies the source's rows of `table` whose `parent` column is `old_id` (src), with `parent`
// set to `new_id`: a profile's ceilings, a calibration's points.
bool CopyChildren(Database* db, const std::string& table, const std::string& parent, int64_t old_id,
                  int64_t new_id, Error* err) {
  return CopyRows(db, table, parent, old_id, parent, new_id, /*keep_id=*/true, err);
}

// Copies one row of `table` (id `old_id` in src) with a new id and `machine_id` = `machine`;
// *new_id is its id here.
bool CopyRow(Database* db, const std::string& table, int64_t old_id, int64_t machine,
             int64_t* new_id, Error* err) {
  if (!CopyRows(db, table, "id", old_id, "machine_id", machine, /*keep_id=*/false, err))
    return false;
  *new_id = db->LastInsertId();
  return true;
}

// A source's row of a table whose rows are known by their machine, their kind (a profile's
// mode, a calibration's source) and the time they were made.
struct DatedRow {
  int64_t id = 0;
  int64_t machine_id = 0;  // the source's
  std::string kind, created_at;
};

// The source's rows of `table`, `kind_column` naming its kind, in the order SQLite gives.
bool ReadDatedRows(Database* db, const std::string& table, const std::string& kind_column,
                   std::vector<DatedRow>* out, Error* err) {
  return db->ForEachRow("SELECT id, machine_id, " + kind_column + ", created_at FROM src." + table,
                        err, [&](const Statement& s) {
                          out->push_back({s.Int(0), s.Int(1), s.Text(2), s.Text(3)});
                        });
}

// *stored: the id of the first row of `table` here with `row`'s kind and time on `machine` (its
// id here), 0 when there is none.
bool FindStoredRow(Database* db, const std::string& table, const std::string& kind_column,
                   const DatedRow& row, int64_t machine, int64_t* stored, Error* err) {
  *stored = 0;
  return db->ForEachRow(
      "SELECT id FROM main." + table + " WHERE machine_id = ? AND " + kind_column +
          " = ? AND created_at = ? ORDER BY id LIMIT 1",
      err, [&](const Statement& s) { *stored = s.Int(0); }, machine, row.kind, row.created_at);
}

struct MergeCounts {
  int runs = 0, runs_known = 0, profiles = 0, profiles_known = 0, calibrations = 0,
      calibrations_known = 0;
  std::vector<std::string> conflicts;
};

// A stored run with the uid of a source's run but other content: the two databases disagree
// about what the run was. The stored one is kept, and said.
void CheckConflict(RunStore* store, const RunRecord& incoming, int64_t stored_id,
                   MergeCounts* counts) {
  RunRecord stored;
  Error ignored;
  if (!store->Load(stored_id, &stored, &ignored)) return;
  std::vector<std::string> differ;
  if (stored.target != incoming.target) differ.push_back("target");
  if (stored.started_at != incoming.started_at) differ.push_back("started_at");
  if (stored.ended_at != incoming.ended_at) differ.push_back("ended_at");
  if (stored.status != incoming.status) differ.push_back("status");
  if (stored.machine.fingerprint != incoming.machine.fingerprint) differ.push_back("machine");
  if (stored.metrics.size() != incoming.metrics.size()) differ.push_back("metrics");
  if (stored.samples.size() != incoming.samples.size()) differ.push_back("samples");
  if (differ.empty()) return;
  std::string list;
  for (const std::string& d : differ) list += (list.empty() ? "" : ", ") + d;
  counts->conflicts.push_back("run uid " + incoming.uid + " is stored as run " +
                              std::to_string(stored_id) + " with another " + list +
                              ": the stored run is kept");
}

// Everything of one source, inside the caller's transaction, the source attached as `src`.
bool MergeSource(RunStore* store, RunStore* source, MergeCounts* counts, Error* err) {
  Database* db = store->db();
  // Machines, by fingerprint; one stored under the same fingerprint with another hostname or
  // CPU is a conflict: the stored row is kept.
  std::map<int64_t, int64_t> machine_of;  // src machines.id -> main machines.id
  std::vector<std::pair<int64_t, MachineRecord>> machines;
  if (!db->ForEachRow(
          "SELECT id, fingerprint, cpu_model, cores, caches, kernel, hostname FROM src.machines",
          err, [&](const Statement& s) {
            machines.push_back({s.Int(0),
                                {s.Text(1), s.Text(2), static_cast<int>(s.Int(3)), s.Text(4),
                                 s.Text(5), s.Text(6)}});
          }))
    return false;
  for (const auto& [src_id, m] : machines) {
    std::string stored_host, stored_cpu;
    if (!db->ForEachRow(
            "SELECT hostname, cpu_model FROM main.machines WHERE fingerprint = ?", err,
            [&](const Statement& s) {
              stored_host = s.Text(0);
              stored_cpu = s.Text(1);
            },
            m.fingerprint))
      return false;
    if (!stored_host.empty() && (stored_host != m.hostname || stored_cpu != m.cpu_model))
      counts->conflicts.push_back("machine " + m.fingerprint + " is stored as " + stored_host +
                                  " (" + stored_cpu + "), the source says " + m.hostname + " (" +
                                  m.cpu_model + "): the stored one is kept");
    int64_t id = 0;
    if (!store->FindOrInsertMachine(m, &id, err)) return false;
    machine_of[src_id] = id;
  }

  // Profiles, known by machine, mode and the time they were measured.
  std::map<int64_t, int64_t> profile_of;  // src machine_profiles.id -> main
  std::vector<DatedRow> profiles;
  if (!ReadDatedRows(db, "machine_profiles", "mode", &profiles, err)) return false;
  for (const DatedRow& profile : profiles) {
    int64_t machine = machine_of[profile.machine_id], found = 0;
    if (!FindStoredRow(db, "machine_profiles", "mode", profile, machine, &found, err)) return false;
    if (found) {
      profile_of[profile.id] = found;
      ++counts->profiles_known;
      continue;
    }
    int64_t id = 0;
    if (!CopyRow(db, "machine_profiles", profile.id, machine, &id, err)) return false;
    for (const char* child : {"ceilings", "latency_points", "bandwidth_points", "memory_levels"})
      if (!CopyChildren(db, child, "profile_id", profile.id, id, err)) return false;
    profile_of[profile.id] = id;
    ++counts->profiles;
  }

  // Calibrations, known by machine, source and the time they were made.
  std::vector<DatedRow> calibrations;
  if (!ReadDatedRows(db, "calibrations", "source", &calibrations, err)) return false;
  for (const DatedRow& calibration : calibrations) {
    int64_t machine = machine_of[calibration.machine_id], found = 0;
    if (!FindStoredRow(db, "calibrations", "source", calibration, machine, &found, err))
      return false;
    if (found) {
      ++counts->calibrations_known;
      continue;
    }
    int64_t id = 0;
    if (!CopyRow(db, "calibrations", calibration.id, machine, &id, err) ||
        !CopyChildren(db, "calibration_points", "calibration_id", calibration.id, id, err))
      return false;
    ++counts->calibrations;
  }

  // A status outside the schema's CHECK (a source written around it) would be read back as
  // "failed": the source is refused instead, naming the first such run.
  std::string odd, statuses;
  for (const RunStatusInfo& status : kRunStatuses)
    statuses += std::string(statuses.empty() ? "'" : ", '") + status.name + "'";
  if (!db->ForEachRow(
          "SELECT id, status FROM src.runs WHERE status NOT IN (" + statuses + ") LIMIT 1", err,
          [&](const Statement& s) {
            odd = "run " + std::to_string(s.Int(0)) + " has the unknown status '" +
                  s.Text(1).substr(0, 40) + "'";
          }))
    return false;
  if (!odd.empty())
    return Fail(err, ErrorKind::kEnvironment, odd + " (not " + RunStatusChoices() + ")");

  // Runs, whole, by uid; a stored placement keeps its profile, now under this database's id.
  RunFilter all;
  all.limit = 0;
  std::vector<RunRecord> runs;
  if (!source->List(all, &runs, err)) return false;
  for (RunRecord& run : runs) {
    if (!run.placement) continue;
    auto it = profile_of.find(run.placement->profile_id);
    if (it != profile_of.end())
      run.placement->profile_id = it->second;
    else
      run.placement.reset();
  }
  std::vector<RunStore::Imported> results;
  if (!store->ImportRows(&runs, &results, err)) return false;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].already_stored) {
      ++counts->runs;
      continue;
    }
    ++counts->runs_known;
    CheckConflict(store, runs[i], results[i].run_id, counts);
  }
  return true;
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

bool MergeCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("merge", "DB...",
                 "Stores other rprof databases' machines, profiles, calibrations and runs in "
                 "this one (--db): the databases of a job's nodes, or of its ranks when the "
                 "database was on a network filesystem. Each source is merged in one "
                 "transaction; what is stored already (a run by its uid, a profile or a "
                 "calibration by its machine and time) is not stored again, and where the two "
                 "disagree the stored one is kept and the conflict said. A source of a newer "
                 "schema is refused untouched; an older one is brought up to date first, as "
                 "every reader does.",
                 CommandLine::Format::kNone);
  std::vector<std::string> paths;
  cl.AddPositional("database", po::value(&paths)->composing(), "rprof databases to merge", -1);
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  if (paths.empty())
    return Fail(err, ErrorKind::kUsage,
                "merge: name the databases to merge, e.g. rprof --db all.db merge node1.db "
                "node2.db");
  const DatabasePath& target = context.database_path();
  // Before the database merged into is opened (and maybe created): a mistyped source costs
  // nothing.
  for (const std::string& path : paths) {
    struct stat st;
    bool exists = stat(path.c_str(), &st) == 0;
    if (!exists || !S_ISREG(st.st_mode))
      return Fail(
          err, ErrorKind::kUsage,
          "merge: " + path + ": " +
              (!exists ? (errno == ENOENT ? std::string("no such file") : std::strerror(errno))
                       : std::string("not a file")) +
              "; name rprof databases (a node's rprof.db, a job's rank-N.db)");
  }
  for (const std::string& path : paths)
    if (SameFile(path, target.path))
      return Fail(err, ErrorKind::kUsage,
                  "merge: " + path + " is the database merged into (--db); name another");

  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
    std::string before = i > 0 ? " (the " + std::to_string(i) + " before it were merged)" : "";
    RunStore source;
    if (!source.OpenExisting({path, false}, err)) {
      err->message = "merge: " + err->message + "; nothing of it was merged" + before;
      return false;
    }
    Error why;
    MergeCounts counts;
    bool attached = store.db()->Run("ATTACH DATABASE ? AS src", &why, path);
    bool ok = attached;
    if (ok) {
      Transaction txn(store.db());
      ok = txn.Begin(&why) && MergeSource(&store, &source, &counts, &why) && txn.Commit(&why);
    }
    // Whatever DETACH says, this source's outcome is decided above.
    if (attached) (void)store.db()->Exec("DETACH DATABASE src", nullptr);
    if (!ok) {
      store.DbFail(why.message, err);
      err->message = "merge " + path + ": " + err->message + "; nothing of it was merged" + before +
                     ": merge it again once the cause is fixed";
      return false;
    }
    std::cout << path << ": " << counts.runs << " runs stored, " << counts.runs_known
              << " already stored; " << counts.profiles << " profiles stored, "
              << counts.profiles_known << " already stored; " << counts.calibrations
              << " calibrations stored, " << counts.calibrations_known << " already stored\n";
    for (const std::string& c : counts.conflicts) std::cout << path << ": conflict: " << c << "\n";
  }
  return true;
}

}  // namespace rprof
