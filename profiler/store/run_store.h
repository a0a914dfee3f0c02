// The runs database: opening (with migrations), storing a run in one transaction, reading runs
// back. Each run is stored whole or not at all.
#ifndef RPROF_STORE_RUN_STORE_H_
#define RPROF_STORE_RUN_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "store/database.h"
#include "core/run.h"

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
  std::string status;  // "" for all
  std::string since;   // ISO 8601 prefix compared as text; "" for all
  KeyValues tags;      // every tag must match
  int limit = 20;      // newest first; <= 0 for all
};

class RunStore {
 public:
  // Opens for writing, creating the file (and, for the default path, its directory) and
  // migrating it. Fails with kEnvironment naming the path and the reason: missing or unwritable
  // directory, not an SQLite file, schema newer than this binary (the file is left untouched).
  bool Open(const DatabasePath& path, Error* err);
  // Opens an existing database without writing to it (rprof query).
  bool OpenReadOnly(const DatabasePath& path, Error* err);

  // Stores the run with its machine, samples, metrics and tags in one transaction; sets run->id.
  bool Insert(RunRecord* run, Error* err);

  // Reads one run back, whole. A missing id fails with kUsage.
  bool Load(int64_t id, RunRecord* out, Error* err);
  // Runs matching the filter, newest first, whole.
  bool List(const RunFilter& filter, std::vector<RunRecord>* out, Error* err);

  // The machines row of `machine` (by fingerprint), inserted when new. Call inside a
  // transaction when the id is about to be referenced.
  bool FindOrInsertMachine(const MachineRecord& machine, int64_t* id, std::string* err);

  // Fails *err as every database error does: kEnvironment, "database <path>: <why>". For the
  // stores built on this one (profiles, calibrations), so all name the file the same way.
  bool DbFail(const std::string& why, Error* err) const;

  Database* db() { return &db_; }
  const std::string& path() const { return path_; }

 private:
  bool LoadDetails(RunRecord* run, std::string* err);
  Database db_;
  std::string path_;
};

}  // namespace rprof

#endif  // RPROF_STORE_RUN_STORE_H_
