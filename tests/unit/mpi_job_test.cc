// MPI jobs without MPI: the rank read from each launcher's variables (hand-made environments),
// the network filesystem rule through the statfs magic numbers, where a rank's run goes, and a
// job's statistics, completeness and placement on hand-made runs and profiles, each expected
// number worked out next to it.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "roofline/job_summary.h"
#include "store/job_database.h"
#include "store/network_filesystem.h"
#include "targets/rank_identity.h"
#include "targets/uncore_claim.h"
#include "temp_files.h"

namespace rprof {
namespace {

EnvironmentLookup Env(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(RankFromEnvironment, NoLauncherIsNoJob) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(RankFromEnvironment(Env({{"HOME", "/root"}}), "vm", &job, &note, &err));
  EXPECT_FALSE(job);
}

TEST(RankFromEnvironment, OpenMpiNamesRankSizeLocalRankAndPmixNamespace) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(RankFromEnvironment(Env({{"OMPI_COMM_WORLD_RANK", "3"},
                                       {"OMPI_COMM_WORLD_SIZE", "4"},
                                       {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                       {"PMIX_RANK", "3"},
                                       {"PMIX_NAMESPACE", "1989607425"}}),
                                  "node7", &job, &note, &err));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->rank, 3);
  EXPECT_EQ(job->size, 4);
  EXPECT_EQ(job->local_rank, 1);
  EXPECT_FALSE(job->node);
  EXPECT_EQ(job->host, "node7");
  EXPECT_EQ(job->launcher, "openmpi");
  EXPECT_EQ(job->job_id, "pmix:1989607425");
  EXPECT_EQ(note, "");
}

TEST(RankFromEnvironment, RprofsOwnJobIdComesFirst) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(RankFromEnvironment(Env({{"OMPI_COMM_WORLD_RANK", "0"},
                                       {"OMPI_COMM_WORLD_SIZE", "2"},
                                       {"PMIX_NAMESPACE", "77"},
                                       {"RPROF_JOB_ID", "rprof:abc"}}),
                                  "vm", &job, &note, &err));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->job_id, "rprof:abc");
}

TEST(RankFromEnvironment, SlurmGivesNodeAndJobStep) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(RankFromEnvironment(Env({{"SLURM_PROCID", "5"},
                                       {"SLURM_NTASKS", "8"},
                                       {"SLURM_LOCALID", "1"},
                                       {"SLURM_NODEID", "2"},
                                       {"SLURM_JOB_ID", "812"},
                                       {"SLURM_STEP_ID", "0"}}),
                                  "c3", &job, &note, &err));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->launcher, "slurm");
  EXPECT_EQ(job->rank, 5);
  EXPECT_EQ(job->size, 8);
  EXPECT_EQ(job->local_rank, 1);
  EXPECT_EQ(job->node, 2);
  EXPECT_EQ(job->job_id, "slurm:812.0");
}

TEST(RankFromEnvironment, SlurmStepRecordsTheSchedulersJobAndStep) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(RankFromEnvironment(Env({{"SLURM_PROCID", "1"},
                                       {"SLURM_NTASKS", "2"},
                                       {"SLURM_LOCALID", "1"},
                                       {"SLURM_NODEID", "0"},
                                       {"SLURM_JOB_ID", "812"},
                                       {"SLURM_STEP_ID", "3"},
                                       {"RPROF_JOB_ID", "rprof:abc"}}),
                                  "c3", &job, &note, &err));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->job_id, "rprof:abc");  // rprof srun's own, shared by all steps' ranks
  EXPECT_EQ(job->scheduler, "slurm");
  EXPECT_EQ(job->scheduler_job_id, "812");
  EXPECT_EQ(job->scheduler_step_id, "3");
}

// Issue 37: inside any sbatch script every rprof run was taken for rank 0 of a job that never
// completed. The batch script has SLURM_PROCID and SLURM_NTASKS, but it is no srun step.
TEST(RankFromEnvironment, SlurmBatchScriptIsNoRank) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(RankFromEnvironment(Env({{"SLURM_PROCID", "0"},
                                       {"SLURM_NTASKS", "1"},
                                       {"SLURM_LOCALID", "0"},
                                       {"SLURM_NODEID", "0"},
                                       {"SLURM_JOB_ID", "812"}}),
                                  "c3", &job, &note, &err));
  EXPECT_FALSE(job);
  EXPECT_NE(note.find("Slurm job 812's batch script"), std::string::npos) << note;
}

// mpirun inside an sbatch script: Open MPI names the ranks; the batch script's SLURM_LOCALID
// and SLURM_NODEID are not theirs, its job id is.
TEST(RankFromEnvironment, MpirunInsideABatchScriptKeepsSlurmsJobNotItsTaskVariables) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(RankFromEnvironment(Env({{"OMPI_COMM_WORLD_RANK", "3"},
                                       {"OMPI_COMM_WORLD_SIZE", "4"},
                                       {"PMIX_NAMESPACE", "77"},
                                       {"SLURM_PROCID", "0"},
                                       {"SLURM_NTASKS", "1"},
                                       {"SLURM_LOCALID", "0"},
                                       {"SLURM_NODEID", "0"},
                                       {"SLURM_JOB_ID", "812"}}),
                                  "c3", &job, &note, &err));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->launcher, "openmpi");
  EXPECT_EQ(job->rank, 3);
  EXPECT_FALSE(job->local_rank);
  EXPECT_FALSE(job->node);
  EXPECT_EQ(job->scheduler_job_id, "812");
  EXPECT_EQ(job->scheduler_step_id, "");
}

// srun --mpi=pmix: PMIx names the rank and nothing else; Slurm's step variables beside it give
// the local rank and the node (they were stored empty).
TEST(RankFromEnvironment, PmixUnderSrunTakesLocalRankAndNodeFromTheStep) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(RankFromEnvironment(Env({{"PMIX_RANK", "1"},
                                       {"PMIX_NAMESPACE", "slurm.pmix.812.0"},
                                       {"SLURM_PROCID", "1"},
                                       {"SLURM_NTASKS", "2"},
                                       {"SLURM_LOCALID", "1"},
                                       {"SLURM_NODEID", "0"},
                                       {"SLURM_JOB_ID", "812"},
                                       {"SLURM_STEP_ID", "0"}}),
                                  "c3", &job, &note, &err));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->launcher, "pmix");
  EXPECT_EQ(job->job_id, "pmix:slurm.pmix.812.0");
  EXPECT_EQ(job->size, 2);
  EXPECT_EQ(job->local_rank, 1);
  EXPECT_EQ(job->node, 0);
  EXPECT_EQ(job->scheduler_job_id, "812");
  EXPECT_EQ(job->scheduler_step_id, "0");
}

TEST(RankFromEnvironment, PbsJobIdIsRecordedForHydraRanks) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(
      RankFromEnvironment(Env({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}, {"PBS_JOBID", "4242.pbs01"}}),
                          "h1", &job, &note, &err));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->scheduler, "pbs");
  EXPECT_EQ(job->scheduler_job_id, "4242.pbs01");
}

TEST(RankFromEnvironment, HydraWithoutJobIdSaysTheNodesDiffer) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(
      RankFromEnvironment(Env({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"MPI_LOCALRANKID", "1"}}),
                          "h1", &job, &note, &err));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->launcher, "hydra");
  EXPECT_EQ(job->rank, 1);
  EXPECT_EQ(job->job_id.rfind("hydra:h1:", 0), 0u) << job->job_id;
  EXPECT_NE(note.find("rprof mpirun"), std::string::npos) << note;
}

TEST(RankFromEnvironment, PmixAloneTakesTheSizeElsewhereOrIsNoJob) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  ASSERT_TRUE(RankFromEnvironment(Env({{"PMIX_RANK", "2"}, {"PMIX_NAMESPACE", "x"}}), "vm", &job,
                                  &note, &err));
  EXPECT_FALSE(job);
  EXPECT_NE(note.find("no variable gives the job's size"), std::string::npos) << note;
  ASSERT_TRUE(
      RankFromEnvironment(Env({{"PMIX_RANK", "2"}, {"PMIX_NAMESPACE", "x"}, {"SLURM_NTASKS", "3"}}),
                          "vm", &job, &note, &err));
  ASSERT_TRUE(job);
  EXPECT_EQ(job->launcher, "pmix");
  EXPECT_EQ(job->size, 3);
  EXPECT_EQ(job->job_id, "pmix:x");
}

TEST(RankFromEnvironment, ContradictionsFailAsEnvironmentErrors) {
  std::optional<JobRank> job;
  std::string note;
  Error err;
  EXPECT_FALSE(
      RankFromEnvironment(Env({{"OMPI_COMM_WORLD_RANK", "4"}, {"OMPI_COMM_WORLD_SIZE", "4"}}), "vm",
                          &job, &note, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_NE(err.message.find("is not a rank of OMPI_COMM_WORLD_SIZE=4"), std::string::npos)
      << err.message;
  Error bad;
  EXPECT_FALSE(
      RankFromEnvironment(Env({{"PMI_RANK", "one"}, {"PMI_SIZE", "2"}}), "vm", &job, &note, &bad));
  EXPECT_NE(bad.message.find("PMI_RANK='one' is not a rank number"), std::string::npos)
      << bad.message;
}

TEST(NetworkFilesystem, MagicNumbersOfSharedFilesystems) {
  EXPECT_EQ(NetworkFilesystemName(0x6969), "nfs");
  EXPECT_EQ(NetworkFilesystemName(0xFF534D42), "cifs");
  // f_type is signed on some ABIs: CIFS's magic arrives negative there.
  EXPECT_EQ(NetworkFilesystemName(static_cast<int32_t>(0xFF534D42)), "cifs");
  EXPECT_EQ(NetworkFilesystemName(0xFE534D42), "smb2");
  EXPECT_EQ(NetworkFilesystemName(0x0BD00BD0), "lustre");
  EXPECT_EQ(NetworkFilesystemName(0x47504653), "gpfs");
  EXPECT_EQ(NetworkFilesystemName(0x19830326), "beegfs");
  EXPECT_EQ(NetworkFilesystemName(0x00C36400), "cephfs");
  // Local ones: ext4, xfs, btrfs, tmpfs, overlayfs; FUSE may be either, so it is not claimed.
  for (int64_t local :
       std::vector<int64_t>{0xEF53, 0x58465342, 0x9123683E, 0x01021994, 0x794C7630, 0x65735546})
    EXPECT_FALSE(NetworkFilesystemName(local)) << std::hex << local;
}

TEST(NetworkFilesystem, ThisMachinesTemporaryDirectoryIsLocal) {
  // /proc is procfs (local); a file that does not exist yet is judged by its directory.
  EXPECT_FALSE(NetworkFilesystemOf("/proc/self/status"));
  EXPECT_FALSE(NetworkFilesystemOf("/proc/no/such/file.db"));
}

TEST(ChooseJobDatabase, LocalDiskKeepsTheSharedFile) {
  JobRank job{"pmix:12", 3, 16, 3, std::nullopt, "vm", "openmpi"};
  JobDatabase chosen = ChooseJobDatabase({"/data/rprof.db", false}, job, std::nullopt);
  EXPECT_EQ(chosen.path.path, "/data/rprof.db");
  EXPECT_EQ(chosen.job_dir, "");
  EXPECT_EQ(chosen.notice, "");
}

TEST(ChooseJobDatabase, NetworkFilesystemGivesEachRankItsOwnFile) {
  JobRank job{"pmix:12/a b", 3, 16, 3, std::nullopt, "vm", "openmpi"};
  JobDatabase chosen = ChooseJobDatabase({"/home/u/rprof.db", false}, job, std::string("nfs"));
  EXPECT_EQ(chosen.job_dir, "/home/u/rprof.db.jobs/pmix_12_a_b");
  EXPECT_EQ(chosen.path.path, "/home/u/rprof.db.jobs/pmix_12_a_b/rank-03.db");
  EXPECT_TRUE(chosen.path.is_default);  // its directory is made
  EXPECT_NE(chosen.notice.find("is on nfs"), std::string::npos) << chosen.notice;
  EXPECT_NE(chosen.notice.find("merge /home/u/rprof.db.jobs/pmix_12_a_b/*.db"), std::string::npos)
      << chosen.notice;
}

TEST(SummarizeRanks, PercentilesInterpolateLinearly) {
  // Sorted 1 2 3 4: the 25th percentile at index 0.75 -> 1.75, the median at 1.5 -> 2.5, the
  // 75th at 2.25 -> 3.25; sum 10, mean 2.5.
  RankStats s = SummarizeRanks({4, 1, 3, 2});
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.p25, 1.75);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p75, 3.25);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.sum, 10);
  EXPECT_EQ(SummarizeRanks({}).count, 0);
  RankStats one = SummarizeRanks({7});
  EXPECT_DOUBLE_EQ(one.p25, 7);
  EXPECT_DOUBLE_EQ(one.p75, 7);
}

RunRecord Rank(int rank, int size, const std::string& host, double time_s, double flops,
               double bytes, RunStatus status = RunStatus::kOk) {
  RunRecord run;
  static int64_t next_id = 1;
  run.id = next_id++;
  run.target_kind = "executable";
  run.status = status;
  run.machine.fingerprint = "fp-" + host;
  run.machine.hostname = host;
  run.job = JobRank{"pmix:1", rank, size, 0, std::nullopt, host, "openmpi"};
  run.metrics = {{"time_s", time_s, "s", Source::kClock, "", ""},
                 {"threads", 1.0, "count", Source::kClock, "", ""},
                 {"flops", flops, "FLOP", Source::kModel, "", ""},
                 {"flops_dp", flops, "FLOP", Source::kModel, "", ""},
                 {"flops_sp", 0.0, "FLOP", Source::kModel, "", ""},
                 {"bytes_dram", bytes, "B", Source::kModel, "", ""}};
  return run;
}

TEST(CheckCompleteness, SaysWhichRanksCrashedOrAreMissing) {
  std::vector<RunRecord> runs = {Rank(0, 4, "a", 1, 1, 1),
                                 Rank(1, 4, "a", 1, 1, 1, RunStatus::kCrashed)};
  runs[1].signal = 6;
  JobCompleteness c = CheckCompleteness(runs);
  EXPECT_FALSE(c.complete());
  EXPECT_EQ(c.size, 4);
  EXPECT_EQ(c.not_ok, std::vector<int>{1});
  EXPECT_EQ(c.missing, (std::vector<int>{2, 3}));
  EXPECT_EQ(c.reason.rfind("rank 1 crashed (signal 6); ranks 2, 3 not stored", 0), 0u) << c.reason;
  std::vector<RunRecord> whole = {Rank(1, 2, "a", 1, 1, 1), Rank(0, 2, "a", 1, 1, 1)};
  EXPECT_TRUE(CheckCompleteness(whole).complete());
}

Ceiling Roof(const std::string& kind, const std::string& name, int threads, double value) {
  Ceiling c;
  c.kind = kind;
  c.name = name;
  c.threads = threads;
  c.value = value;
  c.repetitions = 3;
  if (kind == "compute") {
    c.isa = "avx2";
    c.precision = "fp64";
    c.pattern = "fma";
    c.unit = "GFLOP/s";
  } else {
    c.level = "dram";
    c.isa = "avx2";
    c.precision = "fp64";
    c.pattern = "triad";
    c.unit = "GB/s";
    c.working_set_bytes = 1 << 28;
  }
  return c;
}

// A node of `cores` measured at 1 and `cores` threads: `peak` GFLOP/s and `dram` GB/s per
// thread at 1, and cores times that at `cores` threads.
MachineProfile Node(const std::string& host, int cores, double peak, double dram) {
  MachineProfile p;
  p.fingerprint = "fp-" + host;
  p.threads = cores;
  p.mode = "quick";
  p.ceilings = {Roof("compute", "fp64_avx2_fma", 1, peak),
                Roof("compute", "fp64_avx2_fma", cores, peak * cores),
                Roof("bandwidth", "dram_triad", 1, dram),
                Roof("bandwidth", "dram_triad", cores, dram * cores)};
  return p;
}

TEST(PlaceJob, TotalFlopsOverSlowestRankAgainstTheSumOfTheNodesRoofs) {
  // Node a: 2 ranks on 2 cores (its 2-thread roof: 20 GFLOP/s, 8 GB/s). Node b: 1 rank on 4
  // cores (its 1-thread roof: 5 GFLOP/s, 2 GB/s). Summed: 25 GFLOP/s, 10 GB/s.
  // FLOPs 3 x 2e9 = 6e9, bytes 3 x 1e9 = 3e9 (AI 2), slowest rank 2 s: 3 GFLOP/s achieved.
  // Attainable: min(25, 2 x 10) = 20 GFLOP/s, DRAM-bound, at 15 % of it.
  std::vector<RunRecord> runs = {Rank(0, 3, "a", 1.5, 2e9, 1e9), Rank(1, 3, "a", 2.0, 2e9, 1e9),
                                 Rank(2, 3, "b", 1.0, 2e9, 1e9)};
  std::vector<const RunRecord*> ranks = {&runs[0], &runs[1], &runs[2]};
  std::map<std::string, std::pair<int64_t, MachineProfile>> profiles = {
      {"fp-a", {11, Node("a", 2, 10, 4)}}, {"fp-b", {12, Node("b", 4, 5, 2)}}};
  JobPlacement job = PlaceJob(ranks, profiles);
  ASSERT_EQ(job.reason, "");
  ASSERT_TRUE(job.placement.placed);
  ASSERT_EQ(job.nodes.size(), 2u);
  EXPECT_EQ(job.nodes[0].ranks, 2);
  EXPECT_EQ(job.nodes[0].roof_threads, 2);
  EXPECT_EQ(job.nodes[0].profile_id, 11);
  EXPECT_EQ(job.nodes[1].ranks, 1);
  EXPECT_EQ(job.nodes[1].roof_threads, 1);
  EXPECT_DOUBLE_EQ(job.placement.peak, 25);
  ASSERT_TRUE(job.placement.achieved);
  EXPECT_DOUBLE_EQ(*job.placement.achieved, 3);
  EXPECT_DOUBLE_EQ(job.placement.attainable, 20);
  ASSERT_TRUE(job.placement.percent_of_roof);
  EXPECT_DOUBLE_EQ(*job.placement.percent_of_roof, 15);
  EXPECT_EQ(job.placement.bound, "dram bandwidth");
}

TEST(PlaceJob, ANodeWithoutAProfileLeavesTheJobUnplaced) {
  std::vector<RunRecord> runs = {Rank(0, 2, "a", 1, 1e9, 1e9), Rank(1, 2, "c", 1, 1e9, 1e9)};
  std::vector<const RunRecord*> ranks = {&runs[0], &runs[1]};
  std::map<std::string, std::pair<int64_t, MachineProfile>> profiles = {
      {"fp-a", {1, Node("a", 2, 10, 4)}}};
  JobPlacement job = PlaceJob(ranks, profiles);
  EXPECT_FALSE(job.placement.placed);
  EXPECT_NE(job.reason.find("node c has no machine profile"), std::string::npos) << job.reason;
}

TEST(SumOverRanks, ACountOneRankLacksIsAbsentNotPartial) {
  std::vector<RunRecord> runs = {Rank(0, 2, "a", 1, 1e9, 1e9), Rank(1, 2, "a", 3, 1e9, 1e9)};
  runs[1].metrics.erase(runs[1].metrics.begin() + 5);  // rank 1 has no bytes_dram
  std::vector<Metric> sum = SumOverRanks({&runs[0], &runs[1]}, "");
  const Metric* time = FindMetric(sum, "time_s", Source::kClock);
  ASSERT_TRUE(time);
  EXPECT_DOUBLE_EQ(*time->value, 3);  // the slowest rank's
  const Metric* flops = FindMetric(sum, "flops", Source::kModel);
  ASSERT_TRUE(flops);
  EXPECT_DOUBLE_EQ(*flops->value, 2e9);
  EXPECT_FALSE(FindMetric(sum, "bytes_dram", Source::kModel));
  const Metric* gflops = FindMetric(sum, "gflops", Source::kModel);
  ASSERT_TRUE(gflops);
  EXPECT_NEAR(*gflops->value, 2.0 / 3.0, 1e-12);  // 2e9 FLOP / 3 s
}

TEST(UncoreClaim, TheFirstRankOnASocketCountsItTheOthersLeaveItOut) {
  testing_support::TempDir dir;
  JobRank first{"pmix:9", 2, 4, 0, std::nullopt, "vm", "openmpi"};
  JobRank second{"pmix:9", 0, 4, 1, std::nullopt, "vm", "openmpi"};
  int holder = -1;
  EXPECT_TRUE(ClaimSocket(dir.path(), first, "socket 0", &holder));
  EXPECT_EQ(holder, 2);
  EXPECT_TRUE(ClaimSocket(dir.path(), first, "socket 0", &holder));  // held already: still its
  EXPECT_FALSE(ClaimSocket(dir.path(), second, "socket 0", &holder));
  EXPECT_EQ(holder, 2);
  EXPECT_TRUE(ClaimSocket(dir.path(), second, "socket 1", &holder));  // another socket
  JobRank other_job{"pmix:10", 0, 4, 0, std::nullopt, "vm", "openmpi"};
  EXPECT_TRUE(ClaimSocket(dir.path(), other_job, "socket 0", &holder));  // another job

  std::vector<Metric> metrics = {{"bytes_dram", 1e9, "B", Source::kPmu, "", ""},
                                 {"flops", 2e9, "FLOP", Source::kPmu, "", ""}};
  metrics[0].socket_wide = true;
  std::vector<Metric> kept = metrics;
  std::string counted = ApplyUncoreClaim(first, "socket 0", 2, &kept);
  EXPECT_TRUE(kept[0].value);
  EXPECT_NE(counted.find("this rank counts socket 0's uncore"), std::string::npos) << counted;
  std::string left = ApplyUncoreClaim(second, "socket 0", 2, &metrics);
  EXPECT_FALSE(metrics[0].value);
  EXPECT_NE(metrics[0].note.find("rank 2 of job pmix:9 counts socket 0"), std::string::npos);
  EXPECT_TRUE(metrics[1].value);  // the rank's own counts stay
  EXPECT_NE(left.find("left out, rank 2 counts socket 0"), std::string::npos) << left;
  std::vector<Metric> none = {{"flops", 2e9, "FLOP", Source::kPmu, "", ""}};
  EXPECT_EQ(ApplyUncoreClaim(second, "socket 0", 2, &none), "");
}

}  // namespace
}  // namespace rprof
