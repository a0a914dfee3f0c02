// Where a rank of a parallel job stores its run. By default in the database every run goes to
// (a node's own disk: one file per node, its ranks writing in turn under SQLite's locks). A
// database on a network filesystem (store/network_filesystem.h) is never opened by the ranks of
// several hosts at once: each rank then writes a file of its own in the job's directory beside
// it, and `rprof merge` brings the files into the shared one afterwards.
#ifndef RPROF_STORE_JOB_DATABASE_H_
#define RPROF_STORE_JOB_DATABASE_H_

#include <optional>
#include <string>

#include "core/run.h"
#include "store/run_store.h"

namespace rprof {

struct JobDatabase {
  DatabasePath path;    // where this rank's run goes
  std::string job_dir;  // the job's directory of per-rank files; "" when the shared file is used
  // What rank 0 says once, for the whole job, when the ranks write files of their own; "".
  std::string notice;
};

// `shared` the database the run would go to; `network_fs` the network filesystem it is on
// (NetworkFilesystemOf), nullopt when local. The job's directory is `<shared>.jobs/<job id>`, the
// job id with every character but letters, digits, '.', '-' and '_' made '_'; the rank's file
// rank-<RANK>.db in it, the rank zero-padded to the width of the job's size.
JobDatabase ChooseJobDatabase(const DatabasePath& shared, const JobRank& job,
                              const std::optional<std::string>& network_fs);

}  // namespace rprof

#endif  // RPROF_STORE_JOB_DATABASE_H_
