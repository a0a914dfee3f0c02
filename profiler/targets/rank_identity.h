// Which rank of a parallel (MPI) job this process is, from the environment the launcher gave it:
// Open MPI, PMIx, Hydra (MPICH, Intel MPI) and Slurm each name the rank, the world's size and
// the rank's place on its node in variables of their own. rprof starts no ranks itself: under
// `mpirun -n 4 rprof ./app` (or `rprof mpirun -n 4 ./app`) every rank is an rprof of its own,
// and each stores its run with what is read here.
#ifndef RPROF_TARGETS_RANK_IDENTITY_H_
#define RPROF_TARGETS_RANK_IDENTITY_H_

#include <functional>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/run.h"

namespace rprof {

// The variable through which `rprof mpirun` and `rprof srun` pass the job id they made to every
// rank, on every node (the launchers forward the environment).
inline constexpr char kJobIdVariable[] = "RPROF_JOB_ID";

// Reads one environment variable: nullptr when it is not set (std::getenv; a map in tests).
using EnvironmentLookup = std::function<const char*(const char*)>;
EnvironmentLookup ProcessEnvironment();

// This process's rank, when a launcher started it: *out is set, or left nullopt when no
// launcher's variables are there (a run of no job). `host` is stored as the rank's node.
// The job id is $RPROF_JOB_ID when set (`rprof mpirun` made it for this job), else the
// launcher's: pmix:NAMESPACE (Open MPI, PMIx), slurm:JOB.STEP; Hydra gives none, so there the
// ranks of one node share one made from their common parent, the node's proxy, and *note says
// that the nodes' ids then differ. Fails with kEnvironment when the variables contradict each
// other (a rank not below the size, a number that is not one): the run would be stored as the
// wrong rank.
bool RankFromEnvironment(const EnvironmentLookup& env, const std::string& host,
                         std::optional<JobRank>* out, std::string* note, Error* err);

// A job id of rprof's own, "rprof:" and 32 hex digits, for a launcher that gives none.
std::string NewJobId();

}  // namespace rprof

#endif  // RPROF_TARGETS_RANK_IDENTITY_H_
