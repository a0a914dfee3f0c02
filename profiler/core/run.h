// The nouns of one run, shared by targets, store, report and roofline: the machine it ran on,
// its target, outcome, per-repetition times, metrics, tags, trust notes and placement.
#ifndef RPROF_CORE_RUN_H_
#define RPROF_CORE_RUN_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/metric.h"

namespace rprof {

// The machine a run was measured on, as the machines table keeps it.
struct MachineRecord {
  std::string fingerprint;
  std::string cpu_model;
  int cores = 0;
  std::string caches;
  std::string kernel;
  std::string hostname;
};

// How a run ended: the closed list, one table read by the CLI (history --status), the JSON
// reader and writer, and the store (runs.status holds the name).
enum class RunStatus { kOk, kFailed, kCrashed, kInterrupted };

struct RunStatusInfo {
  RunStatus status;
  const char* name;  // as stored and written in the JSON
  const char* text;  // what it means, for help
};

inline constexpr std::array<RunStatusInfo, 4> kRunStatuses = {{
    {RunStatus::kOk, "ok", "the target ran to its end and succeeded"},
    {RunStatus::kFailed, "failed", "the target exited non-zero, or its check failed"},
    {RunStatus::kCrashed, "crashed", "the target was killed by a signal of its own"},
    {RunStatus::kInterrupted, "interrupted", "rprof was interrupted or the time limit struck"},
}};

const char* RunStatusName(RunStatus status);
std::optional<RunStatus> ParseRunStatus(const std::string& name);
// "ok, failed, crashed or interrupted": the names, for "use ..." messages.
std::string RunStatusChoices();

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Where the run stood on its machine's roofline when it was stored (the placements table).
struct PlacementRecord {
  int64_t profile_id = 0;
  std::string compute_ceiling;
  double peak_gflops = 0;
  std::string binding;  // "dram bandwidth (dram_triad)"; "" when not placed
  std::string bound;    // the binding ceiling's kind alone: "dram bandwidth", "compute"
  // The binding level's bytes were the model's compulsory bytes alone: `bound` is not measured.
  std::optional<bool> bytes_compulsory_only;
  std::optional<double> attainable_gflops;
  std::optional<double> percent_of_roof;
  std::string verdict;  // or why it was not placed
  std::string note;     // why it stood above its roof; "" when it did not
  // Where the verdict binds: the level ("l1" … "dram") whose roof binds (compute-bound: the
  // level whose memory roof is nearest) and the source of its bytes, so that tables show that
  // level's AI. "" when not placed or not known (stored before schema 16 by a compute bound).
  std::string binding_level;
  std::string binding_source;
  // What tables print for the bound (BoundText, roofline/placement.h): "l3 bandwidth",
  // "compute", "≥ compute side (model bytes only)". "" when not placed.
  std::string bound_text;
};

// Why some of a run's numbers may be less than exact (the run_trust table): one note of a kind
// that kTrustKinds lists.
struct TrustNote {
  std::string kind;
  std::string detail;  // one sentence: which values, how much, what to do
};

// The kinds of trust note, as the trust_kinds table keeps them (store/closed_list_sync.cc makes
// the table equal to this list): a new kind is a line here.
struct TrustKindInfo {
  const char* name;  // as stored and written in the JSON
  const char* text;  // what a note of this kind says about the run's numbers
};

inline constexpr std::array<TrustKindInfo, 10> kTrustKinds = {{
    {"multiplexed", "pmu values counted part of the time and scaled up"},
    {"approximated", "values estimated from related events, not counted directly"},
    {"uncore", "socket-wide counts that include other processes' traffic"},
    {"hypervisor", "hardware counts taken in a virtual machine"},
    {"events_missing", "events or metrics that could not be counted, and why"},
    {"untrusted", "values this machine's calibration, or the run's declared work, contradicts"},
    {"uncalibrated", "values no calibration of this machine has checked"},
    {"noisy_profile", "placed against a machine profile measured noisy"},
    {"time_contradicts_bytes", "bytes the native run's time says came from another level"},
    {"replay_ran_other_code", "sim's replay did not run the code the timed run ran"},
}};

// Where a run stood in a parallel (MPI) job: one run per rank, every run of the job under the
// same job id (targets/rank_identity.h reads it from the launcher's environment).
struct JobRank {
  std::string job_id;             // "pmix:1989607425", "slurm:812.0", "rprof:<32 hex digits>"
  int rank = 0;                   // 0-based, in the job's world
  int size = 0;                   // ranks in the job's world
  std::optional<int> local_rank;  // among the ranks on its node; nullopt: the launcher said not
  std::optional<int> node;        // the launcher's node index (SLURM_NODEID); nullopt: not said
  std::string host;               // the node's hostname
  std::string launcher;           // the environment that named the rank: openmpi, pmix, hydra,
                                  // slurm
  // The batch scheduler's own names for the job the ranks ran in, whatever named the rank:
  // what squeue, sacct and the scheduler's logs call it. Empty: no scheduler (or not said).
  std::string scheduler;          // "slurm", "pbs", "lsf"
  std::string scheduler_job_id;   // SLURM_JOB_ID, PBS_JOBID, LSB_JOBID
  std::string scheduler_step_id;  // SLURM_STEP_ID: the srun step the ranks ran as
};

// One cache level as the sim source simulated it for a run (the run_sim_caches table): the same
// binary on the same machine gives the same counts only under the same geometry, so the run
// keeps it.
struct SimCacheRecord {
  int level = 0;            // 1, 2, 3, 4
  uint64_t size_bytes = 0;  // sets x ways x line, as simulated
  int ways = 0;
  int line_bytes = 0;
  std::string inclusion;    // "non-inclusive", "inclusive", "victim" (relative to the levels above)
  std::string size_origin;  // "reported" (CPUID/sysfs), "measured" (a machine profile's
                            // decided size, level_sizes.h) or "given" (--sim-cache l3=32M)
};

struct RunRecord {
  int64_t id = 0;  // set by the store
  // The run's identity wherever it is stored (NewRunUid): the same run imported twice, or into
  // a second database, is known by it. "" until it is first stored or saved.
  std::string uid;
  MachineRecord machine;
  std::string target_kind;  // a name of core/target_kind.h's kTargetKinds; ask its traits
  std::string target;
  KeyValues params;                  // kernel parameters, values as text
  std::vector<std::string> command;  // executables: argv
  std::string cwd;
  std::string cpu_list;   // the CPUs the target was pinned to (run --cpu-list), "0,2-3"; "": none
  std::string precision;  // fp64 | fp32 | ""
  RunStatus status = RunStatus::kOk;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::string note;
  std::vector<std::string> sources;  // clock, pmu, sim, model: those that gave values
  std::vector<double> samples;       // seconds per call, one per timed repetition
  int64_t calls_per_rep = 1;
  std::vector<Metric> metrics;
  KeyValues tags;
  std::vector<TrustNote> trust;
  std::optional<PlacementRecord> placement;  // stored with the run when a profile existed
  std::string started_at;                    // ISO 8601 UTC
  std::string ended_at;
  std::string rprof_version;
  std::optional<JobRank> job;  // the run was one rank of a parallel job
  // The cache hierarchy the sim source simulated, L1 first; empty when sim did not count.
  std::vector<SimCacheRecord> sim_caches;
};

// The note a run gets when `source` was asked for and gave no counts, e.g. "sim counts absent:
// valgrind stopped on an AVX-512 instruction …" (targets/measure.cc writes it), and whether a
// run's note has one: placement and trust then never advise that source for that run.
std::string SourceAbsentNote(Source source, const std::string& reason);
bool SourceWasAbsent(const RunRecord& run, Source source);

// What a rank of a parallel job is told where another run is told `--counters sim`: a rank
// refuses sim (its replay would run the program again, outside its launcher), one process
// alone does not.
inline constexpr const char* kSimOutsideTheJob =
    "sim counts one process alone, without the launcher (rprof run --counters sim ./app)";

// Whether a run is a Python script's (python3 x.py, a script whose interpreter is python):
// advice then names the Python module's rprof.region, not the C API.
bool IsPythonRun(const RunRecord& run);

// "2026-11-29T23:40:00.123Z" for now.
std::string UtcNow();

// A new run uid: 128 random bits as 32 lowercase hex digits.
std::string NewRunUid();
// Whether text is one (32 lowercase hex digits), as a file to import must hold.
bool IsRunUid(const std::string& text);

}  // namespace rprof

#endif  // RPROF_CORE_RUN_H_
