// The runs database: opening (with migrations), storing a run in one transaction, reading runs
// back. Each run is stored whole or not at all.
#ifndef RPROF_STORE_RUN_STORE_H_
#define RPROF_STORE_RUN_STORE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/run.h"
#include "store/database.h"

namespace rprof {

// The database path: --db, else $RPROF_DB, else $XDG_DATA_HOME/rprof/rprof.db, else
// ~/.local/share/rprof/rprof.db. `is_default` tells whether rprof chose it (and may create
// its directory).
struct DatabasePath {
  std::string path;
  bool is_default = false;
};
DatabasePath ResolveDatabasePath(const std::string& flag_value);

struct RunFilter {
  std::string target;  // exact kernel name or executable path; "" for all
  // More names the same target's runs are stored under (see StoredTargetNames): a program's
  // path as typed, from before targets were stored canonical. With an absolute `target`, runs
  // whose stored relative path names it from their own cwd (`./app` run in /home/u) match too.
  std::vector<std::string> also_targets;
  std::string job_id;  // only the ranks of this job (runs.job_id); "" for all
  std::string status;  // "" for all
  std::string since;   // ISO 8601 prefix compared as text; "" for all
  KeyValues tags;      // every tag must match
  // Only runs in which this function was a hot function (metrics under region "fn:" + it);
  // "" for all.
  std::string function;
  int limit = 20;  // newest first; <= 0 for all
  // The runs' own metrics only, not their regions' (marker regions, hot functions, lines):
  // what a one-line-a-run table needs. A run with 10^6 regions cost every later `history` 5 s
  // and 1 GB of reading what it never printed.
  bool run_metrics_only = false;
};

class RunStore {
 public:
  // For the commands that write (run, machine measure, calibrate, import), before they measure
  // anything: opens, creating the file (and, for the default path, its directory), migrates it,
  // and checks that it can take a run now: its schema is whole (store/schema_check.h) and the
  // write lock can be taken within the busy timeout. Fails with kEnvironment naming the path,
  // the reason and what to do: missing or unwritable directory, not an SQLite file, schema
  // newer than this binary (the file is left untouched), a table missing, a read-only file, a
  // lock held by another process, a full disk.
  [[nodiscard]] bool Open(const DatabasePath& path, Error* err);
  // For the commands that only read (history, show, compare, plot, machine show and list,
  // calibrate --show): opens an existing database, never creating one; a missing file fails
  // with kEnvironment ("no database at PATH: nothing is stored there yet"). A file of an older
  // schema is brought up to date first, as the readers expect the current one; any other file
  // is read through a query-only connection and left as it is. Its schema is checked as Open
  // checks it.
  [[nodiscard]] bool OpenExisting(const DatabasePath& path, Error* err);
  // Opens an existing database without writing to it, or checking its schema (rprof query and
  // doctor: the user's own SQL on whatever the file holds).
  [[nodiscard]] bool OpenReadOnly(const DatabasePath& path, Error* err);

  // Stores the run with its machine, samples, metrics and tags in one transaction; sets run->id.
  // A run without a uid gets one first, kept even when storing fails, so the run can be saved
  // elsewhere under the identity it will have. Fails with kEnvironment and the cause alone
  // ("database PATH: the disk is full ...; free space ..."): the caller says what becomes of the
  // run.
  [[nodiscard]] bool Insert(RunRecord* run, Error* err);

  // What Import did with one run.
  struct Imported {
    int64_t run_id = 0;              // the run's id in this database
    bool already_stored = false;     // it was there before: nothing was stored
    bool placement_dropped = false;  // its stored placement named a profile this database lacks
  };
  // Stores runs read back from JSON (another database's, a recovery file's), all in one
  // transaction, whole or not at all; sets each one's id. A run already stored is skipped: one
  // with the same uid or, for a run without one (JSON of an older rprof), with the same machine,
  // target and start and end times. A stored placement is kept only when this database has its
  // profile, for the run's machine (the profile ids of another database mean nothing here):
  // `rprof show` places the run against this database's profiles in any case.
  [[nodiscard]] bool Import(std::vector<RunRecord>* runs, std::vector<Imported>* results,
                            Error* err);
  // Import's work inside the caller's transaction (rprof merge: a source database's profiles,
  // calibrations and runs in one), failing with the cause alone in *err (kEnvironment).
  [[nodiscard]] bool ImportRows(std::vector<RunRecord>* runs, std::vector<Imported>* results,
                                Error* err);

  // Reads one run back, whole. A missing id fails with kUsage.
  [[nodiscard]] bool Load(int64_t id, RunRecord* out, Error* err);
  // Runs matching the filter, newest first, whole.
  [[nodiscard]] bool List(const RunFilter& filter, std::vector<RunRecord>* out, Error* err);

  // The machines row of `machine` (by fingerprint), inserted when new. Call inside a
  // transaction when the id is about to be referenced. Fails as the database does.
  [[nodiscard]] bool FindOrInsertMachine(const MachineRecord& machine, int64_t* id, Error* err);

  // Inserts a row that belongs to `machine` (a run, a profile, a calibration): the machines row
  // (FindOrInsertMachine), then `sql` run with its id as the first value and `values` after it.
  // *id: the new row's id. Call inside a transaction. Fails as the database does.
  template <typename... Values>
  [[nodiscard]] bool InsertMachineRow(const MachineRecord& machine, std::string_view sql,
                                      int64_t* id, Error* err, const Values&... values) {
    int64_t machine_id = 0;
    if (!FindOrInsertMachine(machine, &machine_id, err) ||
        !db_.Run(sql, err, machine_id, values...))
      return false;
    *id = db_.LastInsertId();
    return true;
  }

  // Fails *err as every database error does: kEnvironment, "database <path>: <why>". For the
  // stores built on this one (profiles, calibrations), so all name the file the same way.
  bool DbFail(const std::string& why, Error* err) const;

  // Runs write(Error* why) in one transaction, whole or not at all: false from write, or a
  // failure to begin or commit, rolls back and fails *err as DbFail does with *why.
  template <typename Write>
  [[nodiscard]] bool WriteInTransaction(Write&& write, Error* err) {
    Error why;
    Transaction txn(&db_);
    if (!txn.Begin(&why) || !write(&why) || !txn.Commit(&why)) return DbFail(why.message, err);
    return true;
  }

  Database* db() { return &db_; }
  const std::string& path() const { return path_; }

 private:
  [[nodiscard]] bool LoadDetails(RunRecord* run, Error* err, bool run_metrics_only = false);
  // The rows of one run, inside the caller's transaction.
  [[nodiscard]] bool InsertRows(RunRecord* run, Error* err);
  // The id of the run stored as `run` (see Import), or 0.
  [[nodiscard]] bool FindStored(const RunRecord& run, int64_t* id, Error* err);
  // Opens an existing file in `mode` and reads its schema version, refusing a missing file or a
  // newer schema.
  [[nodiscard]] bool OpenForReading(const DatabasePath& path, Database::Mode mode, int* version,
                                    Error* err);
  Database db_;
  std::string path_;
};

}  // namespace rprof

#endif  // RPROF_STORE_RUN_STORE_H_
