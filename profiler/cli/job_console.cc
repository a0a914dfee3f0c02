#include "cli/job_console.h"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "cli/job_report.h"
#include "cli/output_file.h"
#include "process/interruption.h"
#include "report/render.h"

namespace rprof {

namespace {

// How many of the job's ranks have a run in `db` (0 when it cannot be read yet).
int StoredRanks(const DatabasePath& db, const std::string& job_id) {
  RunStore store;
  Error ignored;
  if (!store.OpenReadOnly(db, &ignored)) return 0;
  int count = 0;
  if (!store.db()->ForEachRow(
          "SELECT count(DISTINCT job_rank) FROM runs WHERE job_id = ?", nullptr,
          [&](const Statement& s) { count = static_cast<int>(s.Int(0)); }, job_id))
    return 0;
  return count;
}

}  // namespace

std::string RankOutputPath(const std::string& output, int rank) {
  return output + "." + std::to_string(rank);
}

bool RankReportsItself(const JobConsole& console) {
  return console.verbose || !console.output.empty();
}

bool RankPrintsJobTable(const JobRank& job) {
  return job.rank == 0 && std::getenv(kJobConsoleVariable) == nullptr;
}

void WaitForRanks(const DatabasePath& db, const std::string& job_id, int size, double patience_s) {
  using Clock = std::chrono::steady_clock;
  int stored = StoredRanks(db, job_id);
  auto last_new = Clock::now();
  while (stored < size && InterruptingSignal() == 0 &&
         std::chrono::duration<double>(Clock::now() - last_new).count() < patience_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int now = StoredRanks(db, job_id);
    if (now > stored) last_new = Clock::now();
    stored = now;
  }
}

bool PrintJobTable(const DatabasePath& db, const std::string& job_id, const std::string& job_dir,
                   const JobConsole& console, Error* err) {
  const std::string stored = "the ranks' runs are stored (rprof job " + job_id + ")";
  std::string text;
  if (console.quiet) {
    text = job_id + "\n";
  } else if (!job_dir.empty()) {
    // On a network filesystem each rank wrote a database of its own: no one file holds the job.
    text = "job " + job_id + ": each rank stored its run in a database of its own in " + job_dir +
           "; `rprof --db " + db.path + " merge " + job_dir + "/rank-*.db`, then `rprof job " +
           job_id + "`\n";
  } else if (StoredRanks(db, job_id) == 0) {
    text = "job " + job_id + ": no rank stored a run in " + db.path + "\n";
  } else {
    RunStore store;
    if (!store.OpenExisting(db, err)) return false;
    Report report;
    if (!BuildJobReport(&store, job_id, &report, err)) return false;
    if (console.format == OutputFormat::kTable)
      report.AddText("\nthis table again: rprof job " + job_id +
                     "\na rank's full report: rprof show RUN (the run column)" +
                     (console.verbose ? "" : ", or -v to print each here") + "\n");
    text = Render(report, console.format, console.output.empty() ? console.width : kNoWidthLimit);
  }
  return WriteReport(text, console.output, ReportStream::kStandardError, stored, err);
}

}  // namespace rprof
