#include "cli/job_console.h"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "cli/output_file.h"
#include "process/interruption.h"
#include "report/job_report.h"
#include "report/render.h"

namespace rprof {

std::string RankOutputPath(const std::string& output, int rank) {
  return output + "." + std::to_string(rank);
}

bool RankReportsItself(const JobConsole& console) {
  return console.verbose || !console.output.empty();
}

bool RankPrintsJobTable(const JobRank& job) {
  return job.rank == 0 && std::getenv(kJobConsoleVariable) == nullptr;
}

void WaitForRanks(RunStore* store, const std::string& job_id, int size, double patience_s) {
  using Clock = std::chrono::steady_clock;
  int stored = StoredJobRanks(store, job_id);
  auto last_new = Clock::now();
  while (stored < size && InterruptingSignal() == 0 &&
         std::chrono::duration<double>(Clock::now() - last_new).count() < patience_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int now = StoredJobRanks(store, job_id);
    if (now > stored) last_new = Clock::now();
    stored = now;
  }
}

bool PrintJobTable(RunStore* store, const DatabasePath& db, const std::string& job_id,
                   const std::string& job_dir, const JobConsole& console, Error* err) {
  const std::string stored = "the ranks' runs are stored (rprof job " + job_id + ")";
  std::string text;
  if (console.quiet) {
    text = job_id + "\n";
  } else if (!job_dir.empty()) {
    // On a network filesystem each rank wrote a database of its own: no one file holds the job.
    text = "job " + job_id + ": each rank stored its run in a database of its own in " + job_dir +
           "; `rprof --db " + db.path + " merge " + job_dir + "/rank-*.db`, then `rprof job " +
           job_id + "`\n";
  } else if (!store || StoredJobRanks(store, job_id) == 0) {
    text = "job " + job_id + ": no rank stored a run in " + db.path + "\n";
  } else {
    Report report;
    if (!BuildJobReport(store, job_id, &report, err)) return false;
    if (console.format == OutputFormat::kTable)
      report.AddText("\nthis table again: rprof job " + job_id +
                     "\na rank's full report: rprof show RUN (the run column)" +
                     (console.verbose ? "" : ", or -v to print each here") + "\n");
    text = Render(report, console.format, console.output.empty() ? console.width : kNoWidthLimit);
  }
  return WriteReport(text, console.output, ReportStream::kStandardError, stored, err);
}

}  // namespace rprof
