// A team of worker threads, each pinned to one CPU, that run a job together. The measurement
// kernels use it so that every thread starts its timed section at the same moment and idle
// workers sleep (a spinning idle worker would steal power and bandwidth from the measured ones).
#ifndef RPROF_MACHINE_THREAD_TEAM_H_
#define RPROF_MACHINE_THREAD_TEAM_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"

namespace rprof {

// Seconds on CLOCK_MONOTONIC.
double NowSeconds();

class ThreadTeam {
 public:
  // Starts one worker per entry of `cpus`, worker i pinned to cpus[i]. Returns nullptr and sets
  // *err when a thread cannot be created or pinned (a CPU outside this process's affinity mask).
  [[nodiscard]] static std::unique_ptr<ThreadTeam> Start(const std::vector<int>& cpus, Error* err);
  ~ThreadTeam();  // stops and joins the workers
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(cpus_.size()); }
  int cpu(int i) const { return cpus_[i]; }

  // Runs job(i) on workers 0..n-1 at once and returns when all of them have returned; workers
  // n.. stay asleep. 1 <= n <= size(). The caller's thread only waits (it is not pinned and
  // does not spin). Not reentrant: call it from one thread at a time, never from a job.
  void Run(int n, const std::function<void(int)>& job);

  // Inside a job: a spinning barrier over the n workers of the current Run. Threads leave it
  // within about a microsecond of each other, so timed sections that start right after it
  // overlap.
  void Sync();

 private:
  explicit ThreadTeam(std::vector<int> cpus);
  void Worker(int index);

  std::vector<int> cpus_;
  std::vector<std::thread> threads_;
  std::atomic<uint64_t> generation_{0};  // bumped to hand out a job (or to stop)
  std::atomic<int> done_{0};
  std::atomic<int> started_{0};
  std::atomic<int> pin_failures_{0};
  int active_ = 0;
  bool stop_ = false;
  const std::function<void(int)>* job_ = nullptr;
  alignas(64) std::atomic<int> sync_count_{0};
  alignas(64) std::atomic<uint64_t> sync_generation_{0};
};

// Statistics of one measurement repeated several times; values in the measurement's unit
// (GFLOP/s, GB/s or ns).
struct RepStats {
  double best = 0;  // max for rates (GFLOP/s, GB/s), min for times (ns): see Summarize
  double worst = 0;
  double median = 0;
  double spread_pct = 0;  // (max - min) / max * 100
  double runner_up = 0;   // the second best repetition (the best when there is one)
  int repetitions = 0;
};

// How close the second best repetition must come to the best for the best to stand confirmed.
constexpr double kConfirmedBestPct = 2;

// True when another repetition came within kConfirmedBestPct of the best: the ceiling (a best
// of repetitions) is reproducible, whatever the slower ones did. On a quiet 2-vCPU VM a third of
// 2 ms repetition sets spread more than 10 % (a tick, the host) while their best two agree.
bool BestConfirmed(const RepStats& stats);

// Summarises values; higher_is_better picks max (rates) or min (latencies) as best.
RepStats Summarize(std::vector<double> values, bool higher_is_better);

}  // namespace rprof

#endif  // RPROF_MACHINE_THREAD_TEAM_H_
