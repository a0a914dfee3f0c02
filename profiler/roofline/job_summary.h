// One parallel job read back from its ranks' runs: which ranks are there and how they ended,
// likwid-mpirun's STAT rows over the ranks, the load imbalance, and the job's place on the
// roofline of the nodes it ran on together.
#ifndef RPROF_ROOFLINE_JOB_SUMMARY_H_
#define RPROF_ROOFLINE_JOB_SUMMARY_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/run.h"
#include "machine/machine_profile.h"
#include "roofline/placement.h"

namespace rprof {

// likwid-mpirun's STAT row of one value over the ranks that have it: count, min, max, mean,
// sum and the 25th, 50th and 75th percentiles, linearly interpolated between the two nearest
// ranks' values (numpy's default). count 0: no rank has it, every other field is meaningless.
struct RankStats {
  int count = 0;
  double min = 0, p25 = 0, median = 0, p75 = 0, max = 0, mean = 0, sum = 0;
};
RankStats SummarizeRanks(std::vector<double> values);

// Whether every rank of the job is stored and ended ok; when not, why, in words ("rank 2
// crashed (signal 11); ranks 3 not stored").
struct JobCompleteness {
  int size = 0;                 // the ranks' own size (the largest any of them says)
  std::vector<int> missing;     // ranks no run was found for
  std::vector<int> not_ok;      // ranks whose run did not end ok
  std::vector<int> duplicated;  // ranks stored by more than one run (the newest is used)
  bool complete() const { return missing.empty() && not_ok.empty(); }
  std::string reason;  // "" when complete
};
// `runs`: one job's, any order; the newest run of a rank stands for it (by id).
JobCompleteness CheckCompleteness(const std::vector<RunRecord>& runs);

// One node of a job: its machine, its ranks and the roof they could reach on it.
struct JobNode {
  std::string fingerprint;
  std::string host;
  int ranks = 0;
  int64_t profile_id = 0;  // its own newest profile; 0: none
  int roof_threads = 0;    // the thread count of the ceilings taken for its ranks
};

// The job placed as one program: its total FLOPs (and bytes, per level and source) over the
// slowest rank's time, against the sum of the nodes' roofs, each node's own profile taken at
// the thread count nearest its number of ranks. Not placed, with the reason, when the job is
// incomplete, a node has no profile, or the ranks' FLOPs or bytes are not all known.
struct JobPlacement {
  std::vector<JobNode> nodes;
  std::vector<Metric> metrics;  // the job's summed counts, time_s the slowest rank's, derived
  Placement placement;
  std::string reason;  // why it was not placed ("" when it was)
};
// `ranks`: one run per rank (the job's complete set). `profiles`: the newest profile of each
// fingerprint that has one, with its id.
JobPlacement PlaceJob(const std::vector<const RunRecord*>& ranks,
                      const std::map<std::string, std::pair<int64_t, MachineProfile>>& profiles);

// The job's counts over its ranks, for the region ("" the whole run): FLOP and byte counts
// summed per source where every rank has one (a count absent on one rank is absent), time_s
// (clock) the slowest rank's; then the derived metrics (GFLOP/s, GB/s, AI).
std::vector<Metric> SumOverRanks(const std::vector<const RunRecord*>& ranks,
                                 const std::string& region);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_JOB_SUMMARY_H_
