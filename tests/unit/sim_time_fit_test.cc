// The sim time estimate fitted to this machine's stored replays (counters/sim_time_fit.h): the
// prior without history; a target's own replays first, any target's next; the
// median, so one slow replay does not move it; replays of another simulator or machine, or too
// short to say anything, left out; and the history read back from a real database.
#include "counters/sim_time_fit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipeline/sim_inputs.h"
#include "store/run_store.h"
#include "temp_files.h"
#include "test_runs.h"

namespace rprof {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A replay whose measured time is `factor` times its work beyond start-up.
SimReplayRecord Replay(const std::string& target, double work_s, double factor) {
  return {target, work_s, kSimStartupSeconds + factor * (work_s - kSimStartupSeconds)};
}

TEST(SimTimeFit, WithoutHistoryThePrior) {
  // The prior (EstimateSimSeconds: at least 10x the native time) rather than the work alone.
  SimTimeExpectation e = SimTimeFit().Expect("matmul-naive", 13.9, {25.4});
  EXPECT_DOUBLE_EQ(e.seconds, 25.4);
  EXPECT_FALSE(e.factor.has_value());
  EXPECT_TRUE(Contains(e.basis, "the reference cost")) << e.basis;
  // A fit built from nothing says the same, naming its simulator.
  e = SimTimeFit("rprofsim", {}).Expect("matmul-naive", 13.9, {25.4});
  EXPECT_DOUBLE_EQ(e.seconds, 25.4);
  EXPECT_TRUE(Contains(e.basis, "no replay under rprofsim")) << e.basis;
}

// The case: naive matmul n=512, 13.9 reference seconds of work, put at 25 s by the
// prior (10x its native time), 12 s under rprofsim here. Once one replay of it is stored, the
// next is expected at what it took.
TEST(SimTimeFit, ATargetsOwnReplaysScaleItsWork) {
  SimTimeFit fit("rprofsim", {{"matmul-naive", 13.9, 12.1}});
  SimTimeExpectation e = fit.Expect("matmul-naive", 13.9, {25.4});
  EXPECT_NEAR(e.seconds, 12.1, 1e-9);
  ASSERT_TRUE(e.factor.has_value());
  EXPECT_NEAR(*e.factor, (12.1 - 0.4) / (13.9 - 0.4), 1e-12);
  EXPECT_TRUE(Contains(e.basis, "1 replay of matmul-naive under rprofsim")) << e.basis;
  // Another size: the work scales, the factor stays, the prior is not used.
  EXPECT_NEAR(fit.Expect("matmul-naive", 2.1, {9}).seconds, 0.4 + *e.factor * 1.7, 1e-9);
}

TEST(SimTimeFit, AnotherTargetTakesTheMachinesMedianFactor) {
  SimTimeFit fit("rprofsim", {Replay("copy", 5, 0.4), Replay("triad", 7, 0.6),
                              Replay("matmul-naive", 25, 0.5)});
  SimTimeExpectation e = fit.Expect("dot", 10.4, {30});
  EXPECT_NEAR(e.factor.value_or(0), 0.5, 1e-12);
  EXPECT_NEAR(e.seconds, 0.4 + 0.5 * 10, 1e-9);
  EXPECT_TRUE(Contains(e.basis, "none of dot yet")) << e.basis;
  EXPECT_TRUE(Contains(e.basis, "3 replays under rprofsim")) << e.basis;
}

TEST(SimTimeFit, TheMedianOfTheNewestFiveOfATarget) {
  // Newest first: five near 0.5, one slowed by a busy moment, then old ones of a slower build
  // that the newest five leave out.
  SimTimeFit fit("rprofsim",
                 {Replay("triad", 6, 0.5), Replay("triad", 6, 2.0), Replay("triad", 6, 0.45),
                  Replay("triad", 6, 0.55), Replay("triad", 6, 0.5), Replay("triad", 6, 3.0),
                  Replay("triad", 6, 3.0), Replay("triad", 6, 3.0)});
  EXPECT_NEAR(fit.Expect("triad", 6, {6}).factor.value_or(0), 0.5, 1e-12);
}

TEST(SimTimeFit, ReplaysTooShortToSayAnythingAreLeftOut) {
  // 0.3 s of work beyond start-up: start-up's guess and the load decide its ratio.
  SimTimeFit fit("rprofsim", {{"copy", 0.7, 2.0}, Replay("copy", 4.4, 0.5)});
  EXPECT_NEAR(fit.Expect("copy", 4.4, {4.4}).factor.value_or(0), 0.5, 1e-12);
  // Only short ones: no history at all.
  SimTimeFit none("rprofsim", {{"copy", 0.7, 2.0}});
  EXPECT_FALSE(none.Expect("copy", 4.4, {4.4}).factor.has_value());
}

TEST(SimTimeFit, AReplayFasterThanStartUpDoesNotMakeTheNextFree) {
  SimTimeFit fit("rprofsim", {{"copy", 3.0, 0.2}});
  EXPECT_GT(fit.Expect("copy", 100, {100}).seconds, 0.4 + 0.04 * 99.6);
}

// Stores a kernel run with a replay's two sim_replay_s metrics, as the sim source does.
void StoreReplay(RunStore* store, const std::string& fingerprint, const std::string& simulator,
                 const std::string& target, double work_s, double measured_s,
                 const std::string& started_at) {
  RunRecord run = testing_support::SmallRun(target, RunStatus::kOk, started_at, {});
  run.machine = testing_support::TestMachine(fingerprint);
  run.sources = {"clock", "sim"};
  SimTimeExpectation expected;
  expected.seconds = work_s;
  expected.basis = "the reference cost";
  run.metrics.push_back({kSimReplayMetric, measured_s, "s", Source::kClock, "",
                         SimReplayMeasuredNote(simulator, expected)});
  run.metrics.push_back(
      {kSimReplayMetric, work_s, "s", Source::kModel, "", SimReplayReferenceNote()});
  Error err;
  ASSERT_TRUE(store->Insert(&run, &err)) << err.message;
}

TEST(SimTimeFitStore, ReadsThisMachinesReplaysUnderThisSimulatorNewestFirst) {
  testing_support::TempDir dir;
  RunStore store;
  Error err;
  ASSERT_TRUE(store.Open({dir.File("runs.db"), false}, &err)) << err.message;
  // This machine under rprofsim: an old replay at 0.9x, a newer one at 0.5x; the newest of
  // matmul-naive is the median of the two.
  StoreReplay(&store, "fp-here", "rprofsim", "matmul-naive", 25.4, 0.4 + 0.9 * 25,
              "2026-12-01T10:00:00Z");
  StoreReplay(&store, "fp-here", "rprofsim", "matmul-naive", 25.4, 0.4 + 0.5 * 25,
              "2026-12-01T11:00:00Z");
  // Under callgrind on this machine, and under rprofsim on another: neither counts.
  StoreReplay(&store, "fp-here", "callgrind", "matmul-naive", 25.4, 0.4 + 3.0 * 25,
              "2026-12-01T12:00:00Z");
  StoreReplay(&store, "fp-other", "rprofsim", "matmul-naive", 25.4, 0.4 + 5.0 * 25,
              "2026-12-01T12:00:00Z");
  // A run without a replay.
  RunRecord plain =
      testing_support::SmallRun("matmul-naive", RunStatus::kOk, "2026-12-01T13:00:00Z", {});
  plain.machine = testing_support::TestMachine("fp-here");
  ASSERT_TRUE(store.Insert(&plain, &err)) << err.message;

  SimTimeFit fit;
  ASSERT_TRUE(LoadSimTimeFit(&store, "fp-here", "rprofsim", &fit, &err)) << err.message;
  SimTimeExpectation e = fit.Expect("matmul-naive", 25.4, {50});
  EXPECT_NEAR(e.factor.value_or(0), 0.7, 1e-9);
  EXPECT_TRUE(Contains(e.basis, "2 replays of matmul-naive under rprofsim")) << e.basis;

  ASSERT_TRUE(LoadSimTimeFit(&store, "fp-here", "callgrind", &fit, &err)) << err.message;
  EXPECT_NEAR(fit.Expect("matmul-naive", 25.4, {50}).factor.value_or(0), 3.0, 1e-9);
  ASSERT_TRUE(LoadSimTimeFit(&store, "fp-new", "rprofsim", &fit, &err)) << err.message;
  EXPECT_FALSE(fit.Expect("matmul-naive", 25.4, {50}).factor.has_value());
}

// Every run reads the replays: through the metrics' name index, not a scan of every metric of
// every run (a database of 27,200 runs took 30 ms a run for it).
TEST(SimTimeFitStore, ReadsTheReplaysWithoutScanningEveryMetric) {
  testing_support::TempDir dir;
  RunStore store;
  Error err;
  ASSERT_TRUE(store.Open({dir.File("runs.db"), false}, &err)) << err.message;
  StoreReplay(&store, "fp-here", "rprofsim", "triad", 2.0, 1.5, "2026-12-01T10:00:00Z");
  std::string plan;
  ASSERT_TRUE(store.db()->ForEachRow(
      std::string("EXPLAIN QUERY PLAN ") + kSimReplaysSql, &err,
      [&](const Statement& s) { plan += s.Text(3) + "\n"; }, std::string("fp-here"),
      std::string("rprofsim"), std::string("sim_replay_s"), 500, std::string("clock"),
      std::string("model")))
      << err.message;
  EXPECT_TRUE(Contains(plan, "metrics_by_name")) << plan;
  EXPECT_FALSE(Contains(plan, "SCAN mc")) << plan;
  EXPECT_FALSE(Contains(plan, "SCAN mm")) << plan;
}

}  // namespace
}  // namespace rprof
