// rprof job ID: one parallel job read back from its ranks' runs (report/job_report.h).
#include <iostream>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/options.h"
#include "report/job_report.h"
#include "report/render.h"
#include "store/run_store.h"

namespace rprof {

bool JobCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("job", "[JOB_ID]",
                 "Shows one parallel job from its ranks' runs (mpirun -n N rprof ./app, or "
                 "rprof mpirun -n N ./app): time, GFLOP/s, DRAM GB/s and verdict per rank; "
                 "min, 25th/50th/75th percentile, max, mean and sum over the ranks; the load "
                 "imbalance (slowest rank's time / mean time); and the job's placement: its "
                 "FLOPs over the slowest rank's time against the sum of its nodes' roofs, each "
                 "node's own profile taken for the ranks it ran.");
  std::string given;
  cl.AddPositional("job", po::value(&given),
                   "the job id, the batch scheduler's (Slurm's) job id, or a unique part of a "
                   "job id; none: the newest jobs (rprof history --job lists a job's runs)");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  RunStore* store = context.Store(err);
  if (!store) return false;
  Report report;
  if (given.empty()) {
    // `rprof job` alone: the newest jobs, with the id each is known by.
    if (!BuildJobList(store, &report, err)) return false;
  } else {
    std::string job_id;
    if (!FindJobId(store, given, &job_id, err)) return false;
    if (!BuildJobReport(store, job_id, &report, err)) return false;
  }
  std::cout << Render(report, cl.format(), cl.text_width());
  return true;
}

}  // namespace rprof
