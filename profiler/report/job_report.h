// One parallel job read back from its ranks' runs: what `rprof job ID` prints, and what the
// launcher's console shows when the job ends (`rprof mpirun`, or rank 0 under a plain mpirun);
// and the list of the newest jobs, what `rprof job` alone prints. Built here as a Report; the
// commands render and print it.
#ifndef RPROF_REPORT_JOB_REPORT_H_
#define RPROF_REPORT_JOB_REPORT_H_

#include <string>

#include "core/error.h"
#include "report/render.h"
#include "store/run_store.h"

namespace rprof {

// The job `given` names: the batch scheduler's job id whole (Slurm job 812; its steps are
// several jobs of rprof's), else a stored job id whole, else the one stored job id that
// contains it (`rprof job 1989607425` for pmix:1989607425). kUsage when none or several do.
[[nodiscard]] bool FindJobId(RunStore* store, const std::string& given, std::string* out,
                             Error* err);

// How many of the job's ranks have a run in `store`; 0 when it cannot be read (yet).
int StoredJobRanks(RunStore* store, const std::string& job_id);

// A row per rank (its newest run), likwid-mpirun's STAT rows over the ranks, the load
// imbalance (slowest rank's time / mean time), the job on the sum of its nodes' roofs, its
// marker regions aggregated over the ranks, and where to look further.
[[nodiscard]] bool BuildJobReport(RunStore* store, const std::string& job_id, Report* report,
                                  Error* err);

// The newest 20 jobs, as squeue lists a cluster's, with the id each is known by (a job's
// scheduler job and step); a line saying there are none when `store` holds no parallel job.
[[nodiscard]] bool BuildJobList(RunStore* store, Report* report, Error* err);

}  // namespace rprof

#endif  // RPROF_REPORT_JOB_REPORT_H_
