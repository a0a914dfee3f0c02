// What a parallel job prints on the launcher's console: one job table, as likwid-mpirun prints
// one, not a full report per rank (8 ranks printed 920 lines). `rprof mpirun …` and `rprof srun
// …` print it when the launcher ends; under `srun rprof …` or `mpirun rprof …`, which no rprof
// watches, rank 0 prints it once the others' runs are stored. Each rank's own report is kept in
// the database (rprof show RUN), printed as well with -v, and written to FILE.RANK with -o FILE,
// beside the job's table in FILE.
#ifndef RPROF_CLI_JOB_CONSOLE_H_
#define RPROF_CLI_JOB_CONSOLE_H_

#include <string>

#include "core/error.h"
#include "core/run.h"
#include "report/output_format.h"
#include "store/run_store.h"

namespace rprof {

// Set by `rprof mpirun`/`rprof srun` for the ranks it starts: it prints the job's table
// itself when the launcher ends, so rank 0 does not.
inline constexpr char kJobConsoleVariable[] = "RPROF_JOB_CONSOLE";

// The run options that say what goes where, as given to rprof run (or to rprof mpirun/srun,
// which passes them on to every rank).
struct JobConsole {
  std::string output;  // -o FILE: the job's table to FILE, each rank's report to FILE.RANK
  OutputFormat format = OutputFormat::kTable;
  bool quiet = false;    // -q: the job's id alone where its table would go
  bool verbose = false;  // -v: each rank's full report too
  size_t width = 0;      // the console's width for the table (terminal_width.h), 0: none
};

// The file a rank writes its own report to under -o FILE: FILE.RANK.
std::string RankOutputPath(const std::string& output, int rank);

// Whether a rank prints (or writes) its own report: with -v, or -o (FILE.RANK).
bool RankReportsItself(const JobConsole& console);

// Whether this rank prints the job's table: rank 0, where no `rprof mpirun`/`rprof srun`
// started the job (kJobConsoleVariable unset).
bool RankPrintsJobTable(const JobRank& job);

// Rank 0's wait: until all `size` ranks of the job have a run in `store` (the job's database,
// as CommandContext::StoreView reads it), or no new one has come for `patience_s` (a rank
// killed outright stores nothing), or a signal came.
void WaitForRanks(RunStore* store, const std::string& job_id, int size, double patience_s);

// The job's table (report/job_report.h), read from `store`, to -o FILE or standard error; with
// -q the job's id alone. `store`: the job's database `db` as CommandContext::StoreView reads
// it; null when it cannot be read (no rank stored anything there), and then the table says
// so. `job_dir`: where the ranks wrote files of their own instead (a database on a network
// filesystem), and then, in place of the table, how to bring them together; `store` is not
// read.
bool PrintJobTable(RunStore* store, const DatabasePath& db, const std::string& job_id,
                   const std::string& job_dir, const JobConsole& console, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_JOB_CONSOLE_H_
