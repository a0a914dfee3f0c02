// rprof job ID: one parallel job read back from its ranks' runs (cli/job_report.h).
#include <iostream>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/job_report.h"
#include "cli/options.h"
#include "report/render.h"
#include "report/table.h"
#include "store/run_store.h"

namespace rprof {

namespace {

// `rprof job` alone: the newest jobs, as squeue lists a cluster's, with the id each is known by.
bool ListJobs(RunStore* store, OutputFormat format, size_t width, Error* err) {
  Report report;
  Table& table = report.AddTable({{"job_id", "job"},
                                  {"scheduler_job_id", "scheduler job"},
                                  {"ranks_stored", "ranks", Align::kRight},
                                  {"size", "size", Align::kRight},
                                  {"started_at", "started"}},
                                 kInAll, "jobs");
  Error why;
  if (!store->db()->ForEachRow(
          "SELECT job_id, max(job_scheduler_job_id) || coalesce('.' || max("
          "job_scheduler_step_id), ''), count(DISTINCT job_rank), max(job_size), "
          "min(started_at) FROM runs WHERE job_id IS NOT NULL GROUP BY job_id "
          "ORDER BY max(id) DESC LIMIT 20",
          &why, [&](const Statement& s) {
            table.AddRow({Cell::Text(s.Text(0)), Cell::TextOrNull(s.Text(1)), Cell::Int(s.Int(2)),
                          Cell::Int(s.Int(3)), Cell::Text(s.Text(4))});
          }))
    return store->DbFail(why.message, err);
  if (table.rows().empty())
    report.AddText("no runs of a parallel job in " + store->path() + "\n");
  else
    report.AddText("the newest jobs; rprof job ID shows one\n");
  std::cout << Render(report, format, width);
  return true;
}

}  // namespace

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
  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;
  if (given.empty()) return ListJobs(&store, cl.format(), cl.text_width(), err);
  std::string job_id;
  if (!FindJobId(&store, given, &job_id, err)) return false;
  Report report;
  if (!BuildJobReport(&store, job_id, &report, err)) return false;
  std::cout << Render(report, cl.format(), cl.text_width());
  return true;
}

}  // namespace rprof
