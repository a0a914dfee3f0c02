// One parallel job read back from its ranks' runs: what `rprof job ID` prints, and what the
// launcher's console shows when the job ends (cli/job_console.h).
#ifndef RPROF_CLI_JOB_REPORT_H_
#define RPROF_CLI_JOB_REPORT_H_

#include <string>

#include "core/error.h"
#include "report/render.h"
#include "store/run_store.h"

namespace rprof {

// The job `given` names: the batch scheduler's job id whole (Slurm job 812; its steps are
// several jobs of rprof's), else a stored job id whole, else the one stored job id that
// contains it (`rprof job 1989607425` for pmix:1989607425). kUsage when none or several do.
bool FindJobId(RunStore* store, const std::string& given, std::string* out, Error* err);

// A row per rank (its newest run), likwid-mpirun's STAT rows over the ranks, the load
// imbalance (slowest rank's time / mean time), the job on the sum of its nodes' roofs, its
// marker regions aggregated over the ranks, and where to look further.
bool BuildJobReport(RunStore* store, const std::string& job_id, Report* report, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_JOB_REPORT_H_
