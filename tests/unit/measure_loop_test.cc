// The measurement loop, driven with a fake counter session that records how it is used: counters
// wrap each timed repetition exactly once, the repetition count and minimum time are honoured,
// short calls are batched, an interrupt ends the loop, and a counter failure stops it.
#include "targets/measure_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <string>

namespace rprof {
namespace {

using Clock = std::chrono::steady_clock;

// Busy-waits: sleeping would hand the CPU away and make short calls far longer than asked.
void Spin(double seconds) {
  Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(seconds));
  while (Clock::now() < end) {
  }
}

class FakeCounters : public CounterSession {
 public:
  Source source() const override { return Source::kPmu; }
  bool Start(Error* err) override {
    ++starts;
    if (running) double_start = true;
    if (fail_start) return Fail(err, ErrorKind::kEnvironment, "fake: cannot start");
    running = true;
    return true;
  }
  bool Stop(Error* err) override {
    ++stops;
    if (!running) stray_stop = true;
    running = false;
    if (fail_stop) return Fail(err, ErrorKind::kEnvironment, "fake: cannot stop");
    if (interrupt_after_stops > 0 && stops == interrupt_after_stops) interrupt->store(true);
    return true;
  }
  std::vector<Metric> Results(double) const override { return {}; }
  int MinRepetitions() const override { return passes; }

  int passes = 1;  // a counter whose events take turns needs a repetition per turn
  int starts = 0;
  int stops = 0;
  bool running = false;
  bool double_start = false;
  bool stray_stop = false;
  bool fail_start = false;
  bool fail_stop = false;
  int interrupt_after_stops = 0;
  std::atomic<bool>* interrupt = nullptr;
};

// A target that counts its calls and how many of them ran while the counters were on.
struct CountingCall {
  explicit CountingCall(const FakeCounters* watched, double call_seconds = 0)
      : counters(watched), seconds(call_seconds) {}
  void operator()() {
    ++calls;
    if (counters->running) ++counted_calls;
    if (seconds > 0) Spin(seconds);
  }
  const FakeCounters* counters;
  double seconds;
  int64_t calls = 0;
  int64_t counted_calls = 0;
};

TEST(MeasureRepeated, ExactRepetitionsEachWrappedOnceByCounters) {
  FakeCounters counters;
  CountingCall call(&counters, 1e-4);
  MeasureOptions options;
  options.repetitions = 5;
  options.target_repetition_s = 1e-3;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err)) << err.message;

  EXPECT_EQ(result.seconds_per_call.size(), 5u);
  EXPECT_EQ(counters.starts, 5);
  EXPECT_EQ(counters.stops, 5);
  EXPECT_FALSE(counters.double_start);
  EXPECT_FALSE(counters.stray_stop);
  EXPECT_FALSE(counters.running) << "counters left running after the loop";
  EXPECT_FALSE(result.interrupted);
  EXPECT_GE(result.calls_per_repetition, 1);
  EXPECT_EQ(result.timed_calls, 5 * result.calls_per_repetition);
  // The counters saw exactly the timed calls: the warm-up ran with them off.
  EXPECT_EQ(call.counted_calls, result.timed_calls);
  EXPECT_GT(call.calls, result.timed_calls) << "no warm-up call";
  for (double s : result.seconds_per_call) EXPECT_GE(s, 1e-4);
}

TEST(MeasureRepeated, RepeatCountOverridesMinTime) {
  FakeCounters counters;
  CountingCall call(&counters);
  MeasureOptions options;
  options.repetitions = 2;
  options.min_time_s = 100;  // would take forever if it were honoured
  options.min_repetitions = 10;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err)) << err.message;
  EXPECT_EQ(result.seconds_per_call.size(), 2u);
  EXPECT_EQ(counters.starts, 2);
}

TEST(MeasureRepeated, MinTimeIsHonoured) {
  FakeCounters counters;
  CountingCall call(&counters, 1e-3);
  MeasureOptions options;
  options.min_time_s = 0.05;
  options.min_repetitions = 3;
  options.target_repetition_s = 0.005;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err)) << err.message;
  double per_call_sum =
      std::accumulate(result.seconds_per_call.begin(), result.seconds_per_call.end(), 0.0);
  // Seconds per call times calls gives back each repetition's time, give or take rounding.
  EXPECT_GE(per_call_sum * static_cast<double>(result.calls_per_repetition), 0.05 * (1 - 1e-9));
  EXPECT_GE(result.seconds_per_call.size(), 3u);
  EXPECT_EQ(counters.starts, static_cast<int>(result.seconds_per_call.size()));
  EXPECT_EQ(call.counted_calls, result.timed_calls);
}

TEST(MeasureRepeated, MinRepetitionsWhenTimeIsAlreadyEnough) {
  FakeCounters counters;
  CountingCall call(&counters, 1e-3);
  MeasureOptions options;
  options.min_time_s = 0;
  options.min_repetitions = 4;
  options.target_repetition_s = 1e-3;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err)) << err.message;
  EXPECT_EQ(result.seconds_per_call.size(), 4u);
}

TEST(MeasureRepeated, CountersThatTakeTurnsGetARepetitionPerTurn) {
  FakeCounters counters;
  counters.passes = 7;
  CountingCall call(&counters, 1e-3);
  MeasureOptions options;
  options.min_time_s = 0;
  options.min_repetitions = 3;
  options.target_repetition_s = 1e-3;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err)) << err.message;
  EXPECT_EQ(result.seconds_per_call.size(), 7u);
  // An explicit repetition count is obeyed all the same: the counter then says what it missed.
  FakeCounters exact;
  exact.passes = 7;
  CountingCall exact_call(&exact, 1e-3);
  options.repetitions = 2;
  MeasureResult two;
  ASSERT_TRUE(MeasureRepeated([&] { exact_call(); }, {&exact}, options, &two, &err)) << err.message;
  EXPECT_EQ(two.seconds_per_call.size(), 2u);
}

TEST(MeasureRepeated, ShortCallsAreBatched) {
  FakeCounters counters;
  CountingCall call(&counters, 1e-6);
  MeasureOptions options;
  options.repetitions = 3;
  options.target_repetition_s = 0.01;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err)) << err.message;
  // About 10 ms / 1 µs; a loaded machine makes calls slower, so ask only for real batching.
  EXPECT_GT(result.calls_per_repetition, 10);
  EXPECT_EQ(result.timed_calls, 3 * result.calls_per_repetition);
  EXPECT_EQ(call.counted_calls, result.timed_calls);
  for (double s : result.seconds_per_call) {
    EXPECT_GE(s, 1e-6);
    EXPECT_LT(s, 1e-3) << "per-call time must be divided by the batch";
  }
}

TEST(MeasureRepeated, LongCallsAreNotBatched) {
  FakeCounters counters;
  CountingCall call(&counters, 0.005);
  MeasureOptions options;
  options.repetitions = 2;
  options.target_repetition_s = 0.001;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err)) << err.message;
  EXPECT_EQ(result.calls_per_repetition, 1);
  EXPECT_EQ(result.timed_calls, 2);
}

TEST(MeasureRepeated, InterruptedBeforeTheLoopStopsAtOnce) {
  std::atomic<bool> interrupted{true};
  FakeCounters counters;
  CountingCall call(&counters, 1e-4);
  MeasureOptions options;
  options.repetitions = 50;
  options.interrupted = &interrupted;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err)) << err.message;
  EXPECT_TRUE(result.interrupted);
  EXPECT_LE(result.seconds_per_call.size(), 1u);
  EXPECT_EQ(counters.starts, counters.stops);
  EXPECT_EQ(result.timed_calls,
            static_cast<int64_t>(result.seconds_per_call.size()) * result.calls_per_repetition);
}

TEST(MeasureRepeated, InterruptedDuringTheLoopKeepsWhatWasMeasured) {
  std::atomic<bool> interrupted{false};
  FakeCounters counters;
  counters.interrupt = &interrupted;
  counters.interrupt_after_stops = 2;  // the signal arrives during the second repetition
  CountingCall call(&counters, 1e-4);
  MeasureOptions options;
  options.repetitions = 50;
  options.target_repetition_s = 1e-3;
  options.interrupted = &interrupted;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err)) << err.message;
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(result.seconds_per_call.size(), 2u);
  EXPECT_EQ(counters.starts, 2);
  EXPECT_EQ(counters.stops, 2);
  EXPECT_EQ(result.timed_calls, 2 * result.calls_per_repetition);
}

TEST(MeasureRepeated, CounterThatCannotStartFailsWithItsError) {
  FakeCounters counters;
  counters.fail_start = true;
  CountingCall call(&counters);
  MeasureOptions options;
  options.repetitions = 3;
  MeasureResult result;
  Error err;
  EXPECT_FALSE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err));
  EXPECT_EQ(err.message, "fake: cannot start");
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_EQ(counters.starts, 1) << "the loop must stop at the first failure";
  EXPECT_EQ(call.counted_calls, 0);
}

TEST(MeasureRepeated, CounterThatCannotStopFailsWithItsError) {
  FakeCounters counters;
  counters.fail_stop = true;
  CountingCall call(&counters);
  MeasureOptions options;
  options.repetitions = 3;
  MeasureResult result;
  Error err;
  EXPECT_FALSE(MeasureRepeated([&] { call(); }, {&counters}, options, &result, &err));
  EXPECT_EQ(err.message, "fake: cannot stop");
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_EQ(counters.stops, 1);
}

TEST(MeasureRepeated, EveryCounterWrapsEveryRepetition) {
  FakeCounters first, second;
  CountingCall call(&first);
  MeasureOptions options;
  options.repetitions = 4;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {&first, &second}, options, &result, &err))
      << err.message;
  EXPECT_EQ(first.starts, 4);
  EXPECT_EQ(second.starts, 4);
  EXPECT_EQ(first.stops, 4);
  EXPECT_EQ(second.stops, 4);
}

TEST(MeasureRepeated, NoCountersIsFine) {
  FakeCounters unused;
  CountingCall call(&unused);
  MeasureOptions options;
  options.repetitions = 3;
  MeasureResult result;
  Error err;
  ASSERT_TRUE(MeasureRepeated([&] { call(); }, {}, options, &result, &err)) << err.message;
  EXPECT_EQ(result.seconds_per_call.size(), 3u);
}

}  // namespace
}  // namespace rprof
