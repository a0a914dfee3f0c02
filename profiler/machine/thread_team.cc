#include "machine/thread_team.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace rprof {
namespace {

inline void CpuRelax() { __builtin_ia32_pause(); }

}  // namespace

double NowSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

ThreadTeam::ThreadTeam(std::vector<int> cpus) : cpus_(std::move(cpus)) {}

std::unique_ptr<ThreadTeam> ThreadTeam::Start(const std::vector<int>& cpus, Error* err) {
  if (cpus.empty()) {
    Fail(err, ErrorKind::kEnvironment, "no CPU to run on");
    return nullptr;
  }
  std::unique_ptr<ThreadTeam> team(new ThreadTeam(cpus));
  try {
    for (int i = 0; i < team->size(); ++i) {
      team->threads_.emplace_back(&ThreadTeam::Worker, team.get(), i);
    }
  } catch (const std::exception& e) {
    Fail(err, ErrorKind::kEnvironment,
         std::string("cannot start a measurement thread: ") + e.what());
    return nullptr;  // the destructor stops and joins those that started
  }
  // Wait until every worker has pinned itself (or failed to).
  int started;
  while ((started = team->started_.load(std::memory_order_acquire)) != team->size()) {
    team->started_.wait(started);
  }
  if (team->pin_failures_.load() > 0) {
    Fail(err, ErrorKind::kEnvironment,
         "cannot pin a measurement thread to its CPU (pthread_setaffinity_np failed); is the "
         "CPU outside this process's affinity mask?");
    return nullptr;
  }
  return team;
}

ThreadTeam::~ThreadTeam() {
  stop_ = true;
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadTeam::Worker(int index) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpus_[index], &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0) pin_failures_.fetch_add(1);
  started_.fetch_add(1, std::memory_order_release);
  started_.notify_all();

  uint64_t seen = 0;
  for (;;) {
    generation_.wait(seen, std::memory_order_acquire);
    seen = generation_.load(std::memory_order_acquire);
    if (stop_) return;
    if (index >= active_) continue;
    (*job_)(index);
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == active_) done_.notify_all();
  }
}

void ThreadTeam::Run(int n, const std::function<void(int)>& job) {
  n = std::max(1, std::min(n, size()));
  job_ = &job;
  active_ = n;
  done_.store(0, std::memory_order_relaxed);
  sync_count_.store(0, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  int done;
  while ((done = done_.load(std::memory_order_acquire)) != n) done_.wait(done);
  job_ = nullptr;
}

void ThreadTeam::Sync() {
  uint64_t gen = sync_generation_.load(std::memory_order_acquire);
  if (sync_count_.fetch_add(1, std::memory_order_acq_rel) + 1 == active_) {
    sync_count_.store(0, std::memory_order_relaxed);
    sync_generation_.fetch_add(1, std::memory_order_release);
    return;
  }
  while (sync_generation_.load(std::memory_order_acquire) == gen) CpuRelax();
}

RepStats Summarize(std::vector<double> values, bool higher_is_better) {
  RepStats s;
  s.repetitions = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  double lo = values.front(), hi = values.back();
  size_t n = values.size();
  s.median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  s.best = higher_is_better ? hi : lo;
  s.worst = higher_is_better ? lo : hi;
  s.spread_pct = hi > 0 ? (hi - lo) / hi * 100.0 : 0;
  s.runner_up = n < 2 ? s.best : higher_is_better ? values[n - 2] : values[1];
  return s;
}

bool BestConfirmed(const RepStats& stats) {
  if (stats.repetitions < 2 || stats.best <= 0) return stats.repetitions >= 1;
  return std::abs(stats.best - stats.runner_up) <= kConfirmedBestPct / 100 * stats.best;
}

}  // namespace rprof
