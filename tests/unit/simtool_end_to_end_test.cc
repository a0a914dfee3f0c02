// rprofsim, rprof's own valgrind tool, end to end with the real valgrind: the programs of
// tests/sim_targets and the kernel runner under rprofsim, their outputs read by the sim source's
// parser and sums. Checks that it counts instructions, FLOPs and bytes_l1 exactly as callgrind
// does, moves the textbook bytes per element across every level (triad: 32 B with
// write-allocate, 24 B with non-temporal stores), shows reuse in a tiled matmul as a hand count
// says, and counts in a region every thread's work while it is open, each thread's share apart.
//
// Needs RPROF_SIM_TARGETS, RPROF_SIM_RUNNER (set by meson), valgrind and the built tool (its
// path from SimtoolPath); without them it prints why and exits 77 (meson: SKIP).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "counters/sim/callgrind_output.h"
#include "counters/sim/callgrind_runner.h"
#include "counters/sim/sim_counts.h"
#include "counters/sim/simtool_location.h"

namespace rprof {
namespace {

std::string g_targets, g_runner, g_valgrind, g_simtool;

// This VM's L1D and L2 as sysfs reports them, and an L3 of the effective 16 MiB rprof machine
// measure found here (sysfs says 480 MiB, the host's).
const std::vector<std::string> kHierarchy = {"--cache=49152,12,64", "--cache=2097152,16,64",
                                             "--cache=16777216,16,64"};

struct Counts {
  CallgrindRun run;
  SimCounts total;
  // One per region file (a region's share of one thread): its trigger name, its
  // "Region thread:" ("2 entered", "3 did not enter") and its counts.
  struct Share {
    std::string trigger, thread;
    SimCounts counts;
  };
  std::vector<Share> regions;
};

::testing::AssertionResult RunTool(const std::vector<std::string>& argv, bool simtool,
                                   const std::vector<std::string>& args, Counts* out) {
  CallgrindOptions opts;
  opts.valgrind = g_valgrind;
  if (simtool) opts.simtool = g_simtool;
  opts.extra_valgrind_args = args;
  Error err;
  if (!RunUnderCallgrind(argv, opts, &out->run, &err))
    return ::testing::AssertionFailure() << argv[0] << ": " << err.message;
  CallgrindOutput output;
  bool ok = ReadCallgrindOutputFiles(out->run.output_files, &output, &err) &&
            ComputeSimCounts(output, &out->total, &err);
  if (ok && simtool) {
    for (const std::string& file : out->run.region_output_files) {
      CallgrindOutput part;
      SimCounts counts;
      ok = ReadCallgrindOutputFiles({file}, &part, &err) && ComputeSimCounts(part, &counts, &err);
      if (!ok) break;
      out->regions.push_back({part.triggers.empty() ? "" : part.triggers[0],
                              part.region_threads.empty() ? "" : part.region_threads[0], counts});
    }
  }
  (void)RemoveCallgrindRun(out->run, nullptr);
  if (!ok) return ::testing::AssertionFailure() << argv[0] << ": " << err.message;
  if (!out->run.exited || out->run.exit_code != 0)
    return ::testing::AssertionFailure() << argv[0] << " did not exit 0:" << out->run.log_tail;
  return ::testing::AssertionSuccess();
}

std::string Target(const std::string& name) { return g_targets + "/sim_" + name; }

double PerElement(const std::optional<uint64_t>& bytes, double n) {
  return bytes ? static_cast<double>(*bytes) / n : -1;
}

std::string Notes(const SimCounts& c) {
  std::string s;
  for (const SimCounts::Note& n : c.notes) s += "\n  " + n.text;
  return s;
}

TEST(SimtoolEndToEnd, CountsInstructionsFlopsAndL1BytesExactlyAsCallgrind) {
  const std::vector<std::vector<std::string>> programs = {{Target("triad_avx2"), "100000"},
                                                          {Target("triad_scalar"), "100000"},
                                                          {Target("dot_avx2"), "100000"},
                                                          {Target("matmul_naive"), "64"},
                                                          {g_runner, "matmul-ikj", "64"}};
  for (const std::vector<std::string>& argv : programs) {
    Counts cg, rs;
    ASSERT_TRUE(RunTool(argv, false, {"--D1=49152,12,64", "--LL=2097152,16,64"}, &cg));
    ASSERT_TRUE(RunTool(argv, true, {"--cache=49152,12,64", "--cache=2097152,16,64"}, &rs));
    SCOPED_TRACE(argv[0] + " " + argv.back());
    // The same instructions, FLOPs and accesses: rprofsim leaves the block that issues
    // CALLGRIND_TOGGLE_COLLECT out, as callgrind does. bytes_l1 to one 8-byte access: the
    // runner's matmul-ikj gives 8 B less under rprofsim (of 6.4 MB; at a site where rprof reads
    // bytes from the tools' per-instruction Dr/Dw, not yet explained).
    EXPECT_GT(rs.total.instructions, 0u);
    EXPECT_EQ(rs.total.instructions, cg.total.instructions);
    EXPECT_EQ(rs.total.flops_dp, cg.total.flops_dp);
    EXPECT_EQ(rs.total.flops_sp, cg.total.flops_sp);
    EXPECT_NEAR(static_cast<double>(rs.total.bytes_l1()), static_cast<double>(cg.total.bytes_l1()),
                8);
    ASSERT_TRUE(rs.total.data_accesses && cg.total.data_accesses);
    EXPECT_EQ(*rs.total.data_accesses, *cg.total.data_accesses);
    // Same L1D, both LRU and write-allocate: the same misses, but for accesses that straddle
    // two lines (callgrind counts one miss, rprofsim each line).
    ASSERT_TRUE(rs.total.l1d_misses && cg.total.l1d_misses);
    EXPECT_NEAR(static_cast<double>(*rs.total.l1d_misses),
                static_cast<double>(*cg.total.l1d_misses), 0.01 * *cg.total.l1d_misses + 8);
  }
}

// Textbook: b and c read, a written: with write-allocate a is read too and written back, 32 B
// per element across every boundary when the arrays are larger than every level.
TEST(SimtoolEndToEnd, TriadMovesThirtyTwoBytesPerElementAtEveryLevel) {
  for (double n : {1e6, 1e7}) {
    Counts rs;
    ASSERT_TRUE(RunTool({Target("triad_avx2"), std::to_string(static_cast<long>(n))}, true,
                        kHierarchy, &rs));
    SCOPED_TRACE("n=" + std::to_string(n) + Notes(rs.total));
    EXPECT_NEAR(static_cast<double>(rs.total.bytes_l1()) / n, 24.0, 0.24);
    EXPECT_NEAR(PerElement(rs.total.bytes_l2, n), 32.0, 0.32);
    EXPECT_NEAR(PerElement(rs.total.bytes_l3, n), 32.0, 0.32);
    EXPECT_NEAR(PerElement(rs.total.bytes_dram, n), 32.0, 0.32);
    EXPECT_EQ(rs.total.flops_dp, static_cast<uint64_t>(2 * n));
  }
}

// Non-temporal stores bypass the caches: b and c read, a written straight to memory. At n = 1e6
// b and c (16 MB) still fit the 16 MiB L3, which a no longer competes for: only the stores reach
// DRAM there (8 B); at n = 1e7 all 24 B do.
TEST(SimtoolEndToEnd, NonTemporalStoresMoveTwentyFourBytesPerElement) {
  for (double n : {1e6, 1e7}) {
    Counts rs;
    ASSERT_TRUE(
        RunTool({Target("triad_nt"), std::to_string(static_cast<long>(n))}, true, kHierarchy, &rs));
    SCOPED_TRACE("n=" + std::to_string(n) + Notes(rs.total));
    EXPECT_NEAR(static_cast<double>(rs.total.bytes_l1()) / n, 24.0, 0.24);
    EXPECT_NEAR(PerElement(rs.total.bytes_l2, n), 24.0, 0.24);
    EXPECT_NEAR(PerElement(rs.total.bytes_l3, n), 24.0, 0.24);
    EXPECT_NEAR(PerElement(rs.total.bytes_dram, n), n < 5e6 ? 8.0 : 24.0, 0.24);
  }
}

// matmul-tiled (kernels/matmul_fast.cc), n = 512, panels of b = 64 rows of B, with an L3 (4 MiB)
// smaller than its three matrices (6 MiB). Hand count per call, after C is zeroed (std::fill,
// one sweep of C's 2 MiB in and out):
//   L1:  per (row i, 4 rows of the panel) the vector loop loads C and 4 B rows and stores C:
//        48 B x n, n x n/4 times: at least 12 n^3 B;
//   L2:  a panel (64 x 512 x 8 = 256 KiB) does not fit L1: it streams from L2 once per row of C,
//        with that row of C (4 KiB) in and out: n x n/b x (256 + 8) KiB, + the fill's 4 MiB;
//   L3:  the panel stays in L2 for all rows, but C (2 MiB) plus the panel plus A's strip
//        (2.5 MiB) do not: C comes in and goes out once per panel and once for the fill,
//        2 x 2 MiB x (n/b + 1), plus B and A once (2 MiB each): 40 MiB;
//   DRAM: at most what crosses L2<->L3, C staying in L3 across panels.
TEST(SimtoolEndToEnd, TiledMatmulReusesWhatTheHandCountSays) {
  Counts rs;
  ASSERT_TRUE(RunTool({g_runner, "matmul-tiled", "512", "64", "1"}, true,
                      {"--cache=49152,12,64", "--cache=2097152,16,64", "--cache=4194304,16,64"},
                      &rs));
  const double n = 512, kib = 1024, mib = kib * kib;
  SCOPED_TRACE(Notes(rs.total));
  ASSERT_TRUE(rs.total.bytes_l2 && rs.total.bytes_l3 && rs.total.bytes_dram);
  EXPECT_GE(static_cast<double>(rs.total.bytes_l1()), 12 * n * n * n);
  double l2 = n * (n / 64) * (256 + 8) * kib + 4 * mib;
  EXPECT_NEAR(static_cast<double>(*rs.total.bytes_l2), l2, 0.05 * l2);
  double l3 = 40 * mib;
  EXPECT_NEAR(static_cast<double>(*rs.total.bytes_l3), l3, 0.02 * l3);
  EXPECT_LT(*rs.total.bytes_l2, rs.total.bytes_l1());
  EXPECT_LE(*rs.total.bytes_dram, *rs.total.bytes_l3);
}

// Issue 24: a region counts every thread's work while it is open in any thread (before, each
// region held only the threads that had opened it, and work handed to a pool thread vanished).
TEST(SimtoolEndToEnd, ARegionCountsEveryThreadsWorkWhileOpenWithEachThreadsShare) {
  const uint64_t n = 20000;
  Counts rs;
  ASSERT_TRUE(RunTool({Target("regions_threads"), std::to_string(n)}, true,
                      {"--collect-atstart=yes", "--cache=49152,12,64", "--cache=2097152,16,64"},
                      &rs));
  uint64_t region_flops[2] = {0, 0};
  int entered[2] = {0, 0}, joined[2] = {0, 0};
  for (const Counts::Share& share : rs.regions) {
    SCOPED_TRACE(share.trigger + " / thread " + share.thread);
    ASSERT_TRUE(share.trigger == "Client Request: rprof-region:a" ||
                share.trigger == "Client Request: rprof-region:b");
    int region = share.trigger == "Client Request: rprof-region:a" ? 0 : 1;
    region_flops[region] += share.counts.flops_dp;
    // The main thread, starting the second worker or joining, may run while a region is open:
    // its share has no FP work.
    if (share.thread.rfind("1 ", 0) == 0 && share.counts.flops_dp == 0) continue;
    bool in = share.thread.find("did not enter") == std::string::npos;
    ++(in ? entered : joined)[region];
    // The thread that opened "a" runs n elements, the one that opened "b" 2n: the share of a
    // thread that never entered a region is the other region's triad.
    uint64_t elements = (region == 0) == in ? n : 2 * n;
    EXPECT_EQ(share.counts.flops_dp, 2 * elements);
    // Its triad (24 B per element) plus what the barrier and the requests touch.
    EXPECT_NEAR(static_cast<double>(share.counts.bytes_l1()), 24.0 * elements,
                0.02 * 24 * elements);
  }
  for (int region = 0; region < 2; ++region) {
    EXPECT_EQ(region_flops[region], 6 * n) << "region " << region;  // both triads, once each
    EXPECT_EQ(entered[region], 1) << "region " << region;
    EXPECT_EQ(joined[region], 1) << "region " << region;
  }
  EXPECT_GE(rs.total.flops_dp, 6 * n);  // the whole run holds both
}

}  // namespace
}  // namespace rprof

int main(int argc, char** argv) {
  auto skip = [](const std::string& why) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  };
  const char* targets = std::getenv("RPROF_SIM_TARGETS");
  const char* runner = std::getenv("RPROF_SIM_RUNNER");
  struct stat st;
  if (targets == nullptr || stat((std::string(targets) + "/sim_triad_nt").c_str(), &st) != 0 ||
      runner == nullptr || stat(runner, &st) != 0)
    return skip(
        "RPROF_SIM_TARGETS / RPROF_SIM_RUNNER do not name the sim test programs and "
        "rprof-sim-runner (meson test sets them; valgrind/callgrind.h was missing?)");
  std::string valgrind = rprof::FindExecutable("valgrind");
  if (valgrind.empty())
    return skip(
        "valgrind not found: install the Debian package valgrind (apt-get install "
        "valgrind)");
  rprof::Error why;
  std::string tool = rprof::SimtoolPath(&why);
  if (tool.empty()) return skip(why.message);
  rprof::g_targets = targets;
  rprof::g_runner = runner;
  rprof::g_valgrind = valgrind;
  rprof::g_simtool = tool;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
