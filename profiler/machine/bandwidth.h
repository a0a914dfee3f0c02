// Bandwidth ceilings: GB/s of the streaming kernels (bandwidth_kernels.h) at one working set on
// 1..N pinned threads, each thread on its own slice of the working set.
#ifndef RPROF_MACHINE_BANDWIDTH_H_
#define RPROF_MACHINE_BANDWIDTH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "machine/bandwidth_kernels.h"
#include "machine/huge_buffer.h"
#include "machine/isa.h"
#include "machine/thread_team.h"

namespace rprof {

// Memory for the bandwidth kernels, one buffer per worker, mapped and first touched by that
// worker (so on a NUMA machine each thread streams from its own node). Reused between
// measurements; grows when a larger working set needs it.
class BandwidthBuffers {
 public:
  // Makes sure workers 0..threads-1 each own at least bytes_per_thread bytes. Returns false and
  // sets *err when memory cannot be mapped.
  [[nodiscard]] bool Reserve(ThreadTeam& team, int threads, uint64_t bytes_per_thread, Error* err);
  // Address space each buffer may grow into in place (HugeBuffer::Ensure) before it is mapped
  // again: the most any sweep may ask for, so that growing never zeroes a page twice.
  void set_growth_limit(uint64_t bytes_per_thread) { growth_limit_ = bytes_per_thread; }
  // One buffer for all workers, worker t's slice t slices in, where the machine has one memory
  // node: first touch then puts no page nearer one worker than another, and the all-threads sweep
  // streams the pages the 1-thread sweep (or the latency chase) mapped, rather than mapping and
  // zeroing its own. A VM pays for every page its host backs anew: the first touch of 512 MiB
  // took 0.09 to 1.43 s on the Intel Xeon guest. Set before the first Reserve; the growth limit
  // stays the 1-thread size, and the shared buffer reserves room for every worker's slice.
  void set_shared(bool shared) { shared_ = shared; }
  void Release() { buffers_.clear(); }
  // Worker `thread`'s memory, as the last Reserve laid it out.
  char* data(int thread) const {
    return shared_ ? buffers_[0].data() + static_cast<uint64_t>(thread) * slice_bytes_
                   : buffers_[thread].data();
  }
  // Worker `thread`'s buffer, for another measurement on that worker (the latency sweep): it
  // was first touched there, and reusing it spares mapping and zeroing it again.
  HugeBuffer* buffer(int thread) {
    if (static_cast<int>(buffers_.size()) <= thread) buffers_.resize(thread + 1);
    return &buffers_[thread];
  }
  uint64_t size(int thread) const {
    return thread < static_cast<int>(buffers_.size()) ? buffers_[thread].size() : 0;
  }

 private:
  std::vector<HugeBuffer> buffers_;
  uint64_t growth_limit_ = 0;
  bool shared_ = false;
  uint64_t slice_bytes_ = 0;  // shared: each worker's slice of buffers_[0], whole pages
};

struct BandwidthOptions {
  BandwidthPattern pattern = BandwidthPattern::kLoad;
  Isa isa = Isa::kAvx2;
  int threads = 1;
  // All arrays of all threads together, as likwid-bench's -W size: each thread gets
  // working_set_bytes / threads, split evenly over the pattern's arrays, each array rounded down
  // to whole 512-byte blocks (at least one).
  uint64_t working_set_bytes = 1 << 20;
  double seconds_per_rep = 0.01;  // the number of passes is calibrated to this
  int repetitions = 5;
};

struct BandwidthResult {
  // GB/s (1e9 bytes/s) of each repetition: bytes the kernels load and store (no write-allocate
  // traffic) / the slowest thread's time. best = max.
  RepStats gbs;
  uint64_t working_set_bytes = 0;  // after rounding: what was actually used
  uint64_t bytes_per_rep = 0;      // counted bytes, all threads
  // Arrays up to 8 MiB: each repetition makes `passes` whole passes over every array. Larger
  // ones: passes = 0 and each repetition streams the next chunk_bytes of every array
  // (round-robin over their second half, the first half streamed untimed at each wrap), which
  // keeps repetitions at seconds_per_rep whatever the working set.
  uint64_t passes = 0;
  uint64_t chunk_bytes = 0;  // per array and thread
};

// Bytes per worker that BandwidthBuffers must hold for this pattern and working set.
uint64_t BandwidthBytesPerThread(BandwidthPattern pattern, int threads, uint64_t working_set_bytes);

// Measures one bandwidth point. The slices are warmed by a first pass (so cache-sized working
// sets start in cache), the pass count (or, for arrays over 8 MiB, the chunk) calibrated to
// seconds_per_rep, then all threads run `repetitions` times, starting together. Arrays over
// 8 MiB are flushed from the caches before their warm-up pass, so that no earlier measurement
// decides which of their chunks are cached, and only chunks of their second half are timed.
// Returns false and sets *err when the ISA cannot run here, threads is outside 1..team.size(),
// or memory cannot be mapped.
[[nodiscard]] bool MeasureBandwidth(ThreadTeam& team, BandwidthBuffers* buffers,
                                    const IsaFlags& flags, const BandwidthOptions& opts,
                                    BandwidthResult* result, Error* err);

// Working sets from `from` to `to` bytes (both included, `to` rounded to the grid), geometric with
// `steps_per_octave` points per doubling, each rounded to 1 KiB.
std::vector<uint64_t> GeometricSizes(uint64_t from, uint64_t to, int steps_per_octave);

}  // namespace rprof

#endif  // RPROF_MACHINE_BANDWIDTH_H_
