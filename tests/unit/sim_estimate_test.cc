// The sim time estimate against the valgrind times measured on this project's Xeon VM (issue
// 13), and the size it says would fit a budget. No valgrind runs here: the estimate is a
// formula over the model's FLOPs and compulsory bytes and the native time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "counters/sim_source.h"
#include "targets/kernel_catalog.h"

namespace rprof {
namespace {

// One replay of a built-in kernel: the runner's warm-up and counted call, so twice the model's
// work of one call.
SimWork Replay(double flops_per_call, double bytes_per_call, double native_s) {
  SimWork w;
  w.flops = 2 * flops_per_call;
  w.bytes = 2 * bytes_per_call;
  w.native_s = native_s;
  return w;
}

struct Measured {
  const char* what;
  double flops_per_call, bytes_per_call;
  double native_s;  // setup + 2 calls, natively (about)
  double sim_s;     // valgrind's wall time, measured (the lower of two runs where there were two)
};

// Measured 2026-12-01 with `rprof run K -p n=N -r 1 --counters sim` minus the same with
// --counters model, load 1.5-7 on 2 cores. The issue's own figures (copy n=4e6 3.5 s, triad
// n=2e7 23.5 s, matmul-naive n=512 31.6 s) came from a busier moment of the same VM.
const Measured kMeasured[] = {
    {"copy n=1e6", 0, 16e6, 0.005, 0.54},
    {"copy n=4e6", 0, 64e6, 0.02, 1.0},
    {"copy n=2e7", 0, 320e6, 0.1, 4.28},
    {"triad n=1e6", 2e6, 24e6, 0.005, 0.46},
    {"triad n=4e6", 8e6, 96e6, 0.02, 1.28},
    {"triad n=2e7", 4e7, 480e6, 0.15, 5.1},
    {"matmul-naive n=128", 2 * 128. * 128 * 128, 3 * 128. * 128 * 8, 0.006, 0.38},
    {"matmul-naive n=256", 2 * 256. * 256 * 256, 3 * 256. * 256 * 8, 0.03, 1.41},
    {"matmul-naive n=384", 2 * 384. * 384 * 384, 3 * 384. * 384 * 8, 0.09, 5.55},
    {"matmul-naive n=512", 2 * 512. * 512 * 512, 3 * 512. * 512 * 8, 0.75, 10.6},
};

TEST(SimEstimate, WithinTwiceTheMeasuredTimeOfTheBuiltInKernels) {
  for (const Measured& m : kMeasured) {
    SCOPED_TRACE(m.what);
    double expected = EstimateSimSeconds(Replay(m.flops_per_call, m.bytes_per_call, m.native_s));
    EXPECT_LE(expected, 2 * m.sim_s) << expected << " s expected, " << m.sim_s << " s measured";
    EXPECT_GE(expected, m.sim_s / 2) << expected << " s expected, " << m.sim_s << " s measured";
  }
}

TEST(SimEstimate, TheOldEstimateWasFarTooHighForNaiveMatmul) {
  // The old one: native x 150 (or FLOPs / 2e7) + 1 s gave 0.75 x 150 + 1 = 113 s at n=512.
  double expected = EstimateSimSeconds(Replay(2 * 512. * 512 * 512, 3 * 512. * 512 * 8, 0.75));
  EXPECT_LT(expected, 20) << "fits the default --sim-budget of 20 s";
}

TEST(SimEstimate, NativeTimeBoundsItFromBelow) {
  // A kernel whose model says almost nothing (a plugin with "0" FLOPs and few bytes) but runs
  // 1 s natively is not expected to take less than 10 x that under valgrind.
  EXPECT_GE(EstimateSimSeconds(Replay(0, 1000, 1.0)), 10);
  // Without any model (a program), callgrind's typical slowdown of the native time.
  SimWork program;
  program.native_s = 0.1;
  EXPECT_NEAR(EstimateSimSeconds(program), 0.4 + 0.1 * 50, 1e-9);
  // Start-up alone, for nothing at all.
  EXPECT_NEAR(EstimateSimSeconds(SimWork{}), 0.4, 1e-9);
}

TEST(SimEstimate, GrowsWithTheWork) {
  double last = 0;
  for (double n : {64., 128., 256., 512., 1024.}) {
    double e = EstimateSimSeconds(Replay(2 * n * n * n, 24 * n * n, 0));
    EXPECT_GT(e, last) << n;
    last = e;
  }
}

CountedTarget Kernel(const std::string& name, const std::vector<std::string>& params) {
  const CatalogEntry* entry = BuiltinCatalog().Find(name);
  EXPECT_NE(entry, nullptr) << name;
  CountedTarget t;
  t.kind = CountedTarget::Kind::kKernel;
  t.kernel = entry->kernel;
  KeyValues shown;
  Error err;
  EXPECT_TRUE(ParseKernelArgs(*t.kernel, params, &t.args, &shown, &err)) << err.message;
  return t;
}

// The size said to fit is one whose own estimate fits within three quarters of the budget
// (room for the next run's native time to be slower), and the next size up (by the rounding
// step) does not.
// A program without a model, its sampled code's slowdown known: measured on this project's
// Xeon VM (tests/bench/sim_estimate_table.py --programs, 2026-12-07), STREAM's replay took 4.2-5
// s for 0.25 s of native CPU time and 0.29 G instructions: its throughput-bound slowdown (365x)
// overestimates it 20x, its instructions at the mix's 16 ns each do not.
SimWork Program(double native_s, double cpu_s, double slowdown, double ns_per_instruction) {
  SimWork w;
  w.native_s = native_s;
  w.native_cpu_s = cpu_s;
  ReplaySlowdown code;
  code.slowdown = slowdown;
  code.ns_per_instruction = ns_per_instruction;
  code.decoded = code.samples = 500;
  w.code = code;
  return w;
}

TEST(SimEstimate, AProgramFromItsSampledCode) {
  SimWork stream = Program(0.25, 0.25, 365, 16);
  EXPECT_NEAR(SimWorkSeconds(stream), kSimStartupSeconds + 0.25 * 365, 1e-9);
  EXPECT_EQ(EstimateSimSeconds(stream), SimWorkSeconds(stream));
  // Off the CPU, valgrind waits as long: 1 s asleep, 0.1 s computing at 20x.
  SimWork sleeper = Program(1.1, 0.1, 20, 1);
  EXPECT_NEAR(SimWorkSeconds(sleeper), kSimStartupSeconds + 1.0 + 0.1 * 20, 1e-9);
  SimPrior prior = SimWorkPrior(stream);
  EXPECT_FALSE(prior.other_targets_scale_it);
  EXPECT_NE(prior.basis.find("365x the native CPU time"), std::string::npos) << prior.basis;
  // Without the sampled code: callgrind's typical 50x of the native time, as before.
  stream.code.reset();
  EXPECT_NEAR(SimWorkSeconds(stream), kSimStartupSeconds + 0.25 * 50, 1e-9);
  EXPECT_TRUE(SimWorkPrior(stream).other_targets_scale_it);
}

TEST(SimEstimate, AProgramFromItsCountedInstructions) {
  SimWork stream = Program(0.25, 0.25, 365, 16);
  stream.native_instructions = 0.29e9;
  EXPECT_NEAR(SimWorkSeconds(stream), kSimStartupSeconds + 0.29e9 * 16e-9, 1e-9);
  EXPECT_NE(SimWorkPrior(stream).basis.find("counted instructions (pmu)"), std::string::npos);
  // REP string instructions: one to the PMU, one per element to valgrind: the time it is.
  ReplaySlowdown& code = *stream.code;
  code.rep_cost_share = 0.5;
  EXPECT_NEAR(SimWorkSeconds(stream), kSimStartupSeconds + 0.25 * 365, 1e-9);
}

TEST(SimSizeThatFits, NaiveMatmulShrinksNToTheBudget) {
  CountedTarget t = Kernel("matmul-naive", {"n=384"});
  // Native time small enough not to bind: the model's cost decides.
  std::string fits = KernelSizeThatFits(t, 0.09, 2);
  // 0.4 + 2.5e-8 x 4 n^3 + 5e-9 x 48 n^2 <= 0.75 x 2  ->  n <= 221, rounded down to 220.
  EXPECT_EQ(fits, "n <= 220 would fit");
  double at_220 = EstimateSimSeconds(Replay(2 * 220. * 220 * 220, 24 * 220. * 220, 0));
  double at_230 = EstimateSimSeconds(Replay(2 * 230. * 230 * 230, 24 * 230. * 230, 0));
  EXPECT_LE(at_220, 1.5);
  EXPECT_GT(at_230, 1.5);
}

TEST(SimSizeThatFits, StreamingKernelByItsBytes) {
  CountedTarget t = Kernel("triad", {"n=200000000"});
  // 0.4 + 5e-9 x 48 n + 2.5e-8 x 4 n <= 0.75 x 5  ->  n <= 9.85e6, rounded down to 9.8e6.
  EXPECT_EQ(KernelSizeThatFits(t, 1.0, 5), "n <= 9800000 would fit");
}

TEST(SimSizeThatFits, NamesTheFirstParameterAndKeepsTheOthers) {
  CountedTarget t = Kernel("gemv", {"m=8192", "k=8192"});
  std::string fits = KernelSizeThatFits(t, 0.05, 3);
  EXPECT_EQ(fits.rfind("m <= ", 0), 0u) << fits;
  EXPECT_NE(fits.find("would fit, the other parameters as given"), std::string::npos) << fits;
}

TEST(SimSizeThatFits, NothingWhenEvenTheSmallestSizeIsOverBudget) {
  // valgrind's start-up alone (0.4 s) is over a 0.1 s budget.
  EXPECT_EQ(KernelSizeThatFits(Kernel("matmul-naive", {"n=384"}), 0.09, 0.1), "");
}

TEST(SimSizeThatFits, NothingForAProgram) {
  CountedTarget program;
  program.kind = CountedTarget::Kind::kProgram;
  EXPECT_EQ(KernelSizeThatFits(program, 10, 1), "");
}

}  // namespace
}  // namespace rprof
