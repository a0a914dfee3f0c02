// Uncore counters count a whole socket: the ranks of a job sharing a socket would each count
// the same socket's traffic, and summed over the job it would be counted once per rank. So one
// rank per socket counts them (the first of the job's ranks there to claim the socket, LIKWID's
// rule of one socket lock); the others leave their socket-wide values out, with the reason.
#ifndef RPROF_TARGETS_UNCORE_CLAIM_H_
#define RPROF_TARGETS_UNCORE_CLAIM_H_

#include <string>
#include <vector>

#include "core/metric.h"
#include "core/run.h"

namespace rprof {

// The socket this process runs on, from its CPU affinity and sysfs's physical_package_id:
// "socket 0"; "sockets 0-1" when its CPUs span several (an unpinned rank), which it then claims
// as one.
std::string SocketOfThisProcess();

// Claims `socket` for the job's uncore counts on this node: true when this rank is the first,
// or already held it. The claim is a file in `dir` (the node's /dev/shm, else /tmp), created
// with O_EXCL and holding the claiming rank: *holder is the rank that holds it. A claim that
// cannot be made (an unwritable directory) counts as this rank's: better counted twice, and
// said, than by none.
bool ClaimSocket(const std::string& dir, const JobRank& job, const std::string& socket,
                 int* holder);

// Applies the rule to a rank's metrics: when `holder` is another rank, every socket-wide value
// is made absent, its note naming the rank that counted the socket. Returns the trust note's
// detail ("" when nothing socket-wide was measured).
std::string ApplyUncoreClaim(const JobRank& job, const std::string& socket, int holder,
                             std::vector<Metric>* metrics);

}  // namespace rprof

#endif  // RPROF_TARGETS_UNCORE_CLAIM_H_
