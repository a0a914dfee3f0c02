#include "targets/measure_loop.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "process/interruption.h"

namespace rprof {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Warm-up: at least one call, and calls until this much time has passed, so caches, TLBs,
// page tables and the CPU clock settle and the per-call time estimate is good.
constexpr double kWarmupSeconds = 0.02;

}  // namespace

bool MeasureRepeated(const std::function<void()>& call,
                     const std::vector<CounterSession*>& counters, const MeasureOptions& options,
                     MeasureResult* result, Error* err) {
  *result = MeasureResult();
  auto stopped = [&] { return options.interrupted && options.interrupted->load(); };
  auto enter = [&](Phase phase) {
    EnterPhase(phase);
    if (options.on_phase) options.on_phase(phase);
  };

  enter(Phase::kWarmUp);
  int64_t warmup_calls = 0;
  Clock::time_point warmup_start = Clock::now();
  double warmup_elapsed = 0;
  do {
    call();
    ++warmup_calls;
    warmup_elapsed = Seconds(Clock::now() - warmup_start);
  } while (warmup_elapsed < kWarmupSeconds && !stopped());
  double per_call = warmup_elapsed / static_cast<double>(warmup_calls);
  result->calls_per_repetition = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(options.target_repetition_s / std::max(per_call, 1e-9))));

  // Counters that take turns need a repetition per turn; an explicit repetition count is still
  // obeyed, and those counters then say which events missed their turn.
  int min_repetitions = options.min_repetitions;
  for (CounterSession* c : counters)
    min_repetitions = std::max(min_repetitions, c->MinRepetitions());

  enter(Phase::kRepetitions);
  double total = 0;
  while (!stopped()) {
    int reps = static_cast<int>(result->seconds_per_call.size());
    if (options.repetitions > 0 ? reps >= options.repetitions
                                : reps >= min_repetitions && total >= options.min_time_s)
      break;
    if (reps >= kMaxRepetitions) break;
    for (CounterSession* c : counters)
      if (!c->Start(err)) return false;
    Clock::time_point start = Clock::now();
    for (int64_t i = 0; i < result->calls_per_repetition; ++i) call();
    double elapsed = Seconds(Clock::now() - start);
    for (CounterSession* c : counters)
      if (!c->Stop(err)) return false;
    total += elapsed;
    result->seconds_per_call.push_back(elapsed / static_cast<double>(result->calls_per_repetition));
    result->timed_calls += result->calls_per_repetition;
    if (options.on_repetition)
      options.on_repetition(result->seconds_per_call.back(), result->calls_per_repetition);
  }
  result->interrupted = stopped();
  return true;
}

}  // namespace rprof
