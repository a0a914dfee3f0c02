#include "targets/rank_identity.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <iterator>

namespace rprof {

namespace {

// One launcher's names for the rank's variables, tried in this order: Open MPI's own before
// PMIx's (Open MPI sets both, and only its own give the size), both before Slurm's (mpirun
// inside an allocation sees SLURM_* of the batch step, not of its ranks).
struct LauncherVariables {
  const char* launcher;
  const char* rank;
  const char* size;        // nullptr: the launcher puts no size in the environment
  const char* local_rank;  // nullptr: none
  const char* node;        // nullptr: none
};
// Slurm's variables name a rank only inside a step (srun): a batch script's own process has
// SLURM_PROCID=0 and SLURM_NTASKS too, but no step id; it is the job's script, not a rank.
constexpr LauncherVariables kSlurmStep = {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
                                          "SLURM_NODEID"};
constexpr LauncherVariables kLaunchers[] = {
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     nullptr},
    {"pmix", "PMIX_RANK", nullptr, nullptr, nullptr},
    {"hydra", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", nullptr},
    kSlurmStep,
};
// A rank's place on its node where the launcher that named it does not say it (PMIx puts only
// the rank in the environment; srun --mpi=pmix adds Slurm's step variables beside it).
constexpr const char* kLocalRankVariables[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                               "SLURM_LOCALID"};
constexpr const char* kNodeVariables[] = {"SLURM_NODEID"};
// The schedulers' job ids, in the order tried.
struct SchedulerVariables {
  const char* scheduler;
  const char* job_id;
};
constexpr SchedulerVariables kSchedulers[] = {
    {"slurm", "SLURM_JOB_ID"}, {"pbs", "PBS_JOBID"}, {"lsf", "LSB_JOBID"}};
// Where a launcher without a size of its own (PMIx) may find it.
constexpr const char* kSizeVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};

std::string Text(const EnvironmentLookup& env, const char* name) {
  const char* value = name ? env(name) : nullptr;
  return value ? value : "";
}

// A whole non-negative number, or a failure naming the variable.
bool ReadCount(const EnvironmentLookup& env, const char* name, std::optional<int>* out,
               Error* err) {
  out->reset();
  std::string text = Text(env, name);
  if (text.empty()) return true;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0)
    return Fail(err, ErrorKind::kEnvironment,
                std::string(name) + "='" + text +
                    "' is not a rank number; the MPI launcher sets it: unset it when rprof runs "
                    "outside a parallel job");
  *out = value;
  return true;
}

// The srun step this process runs in: SLURM_STEP_ID (SLURM_STEPID before Slurm 20), empty in
// a batch script or an salloc shell, which are no steps of srun's.
std::string SlurmStep(const EnvironmentLookup& env) {
  std::string step = Text(env, "SLURM_STEP_ID");
  if (step.empty()) step = Text(env, "SLURM_STEPID");
  return step;
}

// The first of `names` set to a count, for a value the launcher did not give.
bool ReadFallback(const EnvironmentLookup& env, const char* const* names, size_t count,
                  bool slurm_step, std::optional<int>* out, Error* err) {
  for (size_t i = 0; i < count && !*out; ++i) {
    // Slurm's per-task variables describe this process only inside a step: in a batch script
    // they are the script's, and mpirun's ranks there are not its tasks.
    if (std::string(names[i]).rfind("SLURM_", 0) == 0 && !slurm_step) continue;
    if (!ReadCount(env, names[i], out, err)) return false;
  }
  return true;
}

}  // namespace

EnvironmentLookup ProcessEnvironment() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

std::string NewJobId() { return "rprof:" + NewRunUid(); }

bool RankFromEnvironment(const EnvironmentLookup& env, const std::string& host,
                         std::optional<JobRank>* out, std::string* note, Error* err) {
  out->reset();
  note->clear();
  const std::string slurm_step = SlurmStep(env);
  const LauncherVariables* found = nullptr;
  for (const LauncherVariables& l : kLaunchers) {
    if (l.launcher == kSlurmStep.launcher && slurm_step.empty()) continue;
    if (!Text(env, l.rank).empty()) {
      found = &l;
      break;
    }
  }
  if (!found) {
    if (!Text(env, kSlurmStep.rank).empty())
      *note = "in Slurm job " + Text(env, "SLURM_JOB_ID") +
              "'s batch script, outside any srun step: a run of its own, not a rank";
    return true;
  }
  std::optional<int> rank, size, local_rank, node;
  if (!ReadCount(env, found->rank, &rank, err) || !ReadCount(env, found->size, &size, err) ||
      !ReadCount(env, found->local_rank, &local_rank, err) ||
      !ReadCount(env, found->node, &node, err) ||
      !ReadFallback(env, kLocalRankVariables, std::size(kLocalRankVariables), !slurm_step.empty(),
                    &local_rank, err) ||
      !ReadFallback(env, kNodeVariables, std::size(kNodeVariables), !slurm_step.empty(), &node,
                    err))
    return false;
  const char* size_name = found->size;
  for (const char* name : kSizeVariables) {
    if (size) break;
    if (!ReadCount(env, name, &size, err)) return false;
    size_name = name;
  }
  if (!size) {
    *note = std::string(found->rank) + " names this process rank " + std::to_string(*rank) +
            ", but no variable gives the job's size (" + "OMPI_COMM_WORLD_SIZE, PMI_SIZE, " +
            "SLURM_NTASKS): stored as a run of no job";
    return true;
  }
  if (*size < 1 || *rank >= *size)
    return Fail(err, ErrorKind::kEnvironment,
                std::string(found->rank) + "=" + std::to_string(*rank) + " is not a rank of " +
                    size_name + "=" + std::to_string(*size) +
                    "; the launcher's variables contradict each other: unset them when rprof "
                    "runs outside a parallel job");
  JobRank job;
  job.rank = *rank;
  job.size = *size;
  job.local_rank = local_rank;
  job.node = node;
  job.host = host;
  job.launcher = found->launcher;
  for (const SchedulerVariables& sched : kSchedulers)
    if (std::string id = Text(env, sched.job_id); !id.empty()) {
      job.scheduler = sched.scheduler;
      job.scheduler_job_id = id;
      if (job.scheduler == "slurm") job.scheduler_step_id = slurm_step;
      break;
    }
  if (std::string made = Text(env, kJobIdVariable); !made.empty()) {
    job.job_id = made;
  } else if (std::string ns = Text(env, "PMIX_NAMESPACE"); !ns.empty()) {
    job.job_id = "pmix:" + ns;
  } else if (job.scheduler == "slurm" && !slurm_step.empty()) {
    job.job_id = "slurm:" + job.scheduler_job_id + "." + slurm_step;
  } else {
    // Hydra names no job: its ranks on one node are children of one proxy, so they agree on
    // this id; another node's proxy has another.
    job.job_id = std::string(found->launcher) + ":" + host + ":" + std::to_string(getppid());
    *note = std::string(
        "the launcher gave no job id: this node's ranks share one made from "
        "their parent process, other nodes' ranks get others; run the job as "
        "`rprof mpirun ...` to give all its ranks one");
  }
  *out = job;
  return true;
}

}  // namespace rprof
