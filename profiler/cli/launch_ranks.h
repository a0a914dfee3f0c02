// `rprof mpirun ...` and `rprof srun ...`: rprof hands the launcher itself as every rank's
// wrapper, the likwid-mpirun model, and starts no rank of its own. `rprof [run options] mpirun
// -n 4 ./app args` runs `mpirun -n 4 rprof --db DB [run options] -- ./app args`: each rank
// then measures itself and stores its run (cli/cmd_run.cc, targets/rank_identity.h), all under
// one job id that rprof makes and passes on in $RPROF_JOB_ID.
#ifndef RPROF_CLI_LAUNCH_RANKS_H_
#define RPROF_CLI_LAUNCH_RANKS_H_

#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/job_console.h"
#include "core/error.h"

namespace rprof {

// Whether `program` (as typed, or its path) is an MPI or Slurm launcher rprof wraps ranks in:
// mpirun, mpiexec, orterun, prterun, mpiexec.hydra, srun.
bool IsRankLauncher(const std::string& program);

// The launcher's words split where the program to start begins: `launcher_args` its own
// options (with their values), `program` the program and its arguments. Options that take a
// separate value are known per launcher (Open MPI's --mca takes two); a `--` ends the
// launcher's options and is dropped. False with *err (kUsage) when no program is named.
struct LauncherWords {
  std::vector<std::string> launcher_args;
  std::vector<std::string> program;
};
bool SplitLauncherWords(const std::string& launcher, const std::vector<std::string>& args,
                        LauncherWords* out, Error* err);

// Runs the launcher with rprof as each rank's wrapper, rprof's own run options
// (`run_options`) passed to every rank, waits for it, then prints the job's table as `console`
// says (cli/job_console.h; the ranks print none). Fails with kTargetFailed when the launcher
// does (a rank failed; the ranks' runs are stored), kEnvironment when it cannot start.
bool LaunchRanks(CommandContext& context, const std::string& launcher_path,
                 const std::string& launcher_typed, const std::vector<std::string>& launcher_args,
                 const std::vector<std::string>& run_options, const JobConsole& console,
                 Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_LAUNCH_RANKS_H_
