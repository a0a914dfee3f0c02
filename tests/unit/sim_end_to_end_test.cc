// The sim source end to end with the real valgrind: run the programs of tests/sim_targets under
// callgrind, parse, decode, sum, and compare with the work they are known to do.
//
// Needs RPROF_SIM_TARGETS (the build directory of tests/sim_targets, set by meson) and valgrind
// (RPROF_VALGRIND, else the first on PATH). Without them it prints why and exits 77, which meson
// reports as SKIP. So this file has its own main() instead of gtest_main.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "counters/sim/callgrind_output.h"
#include "counters/sim/callgrind_runner.h"
#include "counters/sim/sim_counts.h"

namespace rprof {
namespace {

std::string g_targets;   // directory of the sim_* programs
std::string g_valgrind;  // valgrind executable

struct SimResult {
  CallgrindRun run;
  SimCounts counts;
};

// Runs tests/sim_targets/sim_<name> with argument n under callgrind and analyses the output.
::testing::AssertionResult RunTarget(const std::string& name, const std::string& n,
                                     SimResult* result) {
  std::string program = g_targets + "/sim_" + name;
  CallgrindOptions opts;
  opts.valgrind = g_valgrind;
  Error err;
  if (!RunUnderCallgrind({program, n}, opts, &result->run, &err)) {
    return ::testing::AssertionFailure() << "run " << program << ": " << err.message;
  }
  CallgrindOutput output;
  bool ok = ReadCallgrindOutputFiles(result->run.output_files, &output, &err) &&
            ComputeSimCounts(output, &result->counts, &err);
  (void)RemoveCallgrindRun(result->run, nullptr);
  if (!ok) return ::testing::AssertionFailure() << program << ": " << err.message;
  if (!result->run.exited || result->run.exit_code != 0) {
    return ::testing::AssertionFailure() << program << " did not exit 0";
  }
  return ::testing::AssertionSuccess();
}

double RelativeError(double value, double expected) {
  return std::fabs(value - expected) / expected;
}

std::string Notes(const SimCounts& c) {
  std::string s;
  for (const SimCounts::Note& n : c.notes) s += "\n  " + n.text;
  return s;
}

constexpr long kTriadN = 100000;

TEST(SimEndToEnd, TriadAvx2) {
  SimResult r;
  ASSERT_TRUE(RunTarget("triad_avx2", std::to_string(kTriadN), &r));
  const SimCounts& c = r.counts;
  EXPECT_EQ(c.flops_dp, 2u * kTriadN) << Notes(c);
  EXPECT_EQ(c.flops_sp, 0u);
  EXPECT_LT(RelativeError(static_cast<double>(c.bytes_l1()), 24.0 * kTriadN), 1e-3)
      << "bytes_l1 " << c.bytes_l1();
  EXPECT_LT(RelativeError(static_cast<double>(c.bytes_l1_loads), 16.0 * kTriadN), 1e-3);
  EXPECT_LT(RelativeError(static_cast<double>(c.bytes_l1_stores), 8.0 * kTriadN), 1e-3);
  EXPECT_EQ(c.undecoded_executions, 0u) << Notes(c);
  // Vectorised: the bulk of the FLOPs from 256-bit FMAs (4 lanes x 2), a scalar tail at most.
  EXPECT_GE(c.flops_dp_by_width[static_cast<int>(VectorWidth::k256)], 2u * kTriadN - 8);
  EXPECT_NE(DescribeFpMix(c).find("256-bit vector code"), std::string::npos) << DescribeFpMix(c);
  // Three 800 kB streams do not fit the simulated 32 kB D1: every line of a, b, c misses once.
  ASSERT_TRUE(c.l1d_misses.has_value());
  ASSERT_TRUE(c.bytes_l2.has_value());
  EXPECT_LT(RelativeError(static_cast<double>(*c.bytes_l2), 24.0 * kTriadN), 0.02)
      << "bytes_l2 " << *c.bytes_l2;
  ASSERT_TRUE(c.llc_misses.has_value());
  ASSERT_TRUE(c.bytes_dram.has_value());
  ASSERT_TRUE(c.cache.d1.has_value());
  ASSERT_TRUE(c.cache.ll.has_value());
  EXPECT_GT(c.instructions, static_cast<uint64_t>(kTriadN / 4 * 6));
}

TEST(SimEndToEnd, ScalarTriadGivesTheSameFlops) {
  SimResult vec, scalar;
  ASSERT_TRUE(RunTarget("triad_avx2", std::to_string(kTriadN), &vec));
  ASSERT_TRUE(RunTarget("triad_scalar", std::to_string(kTriadN), &scalar));
  EXPECT_EQ(scalar.counts.flops_dp, 2u * kTriadN);
  EXPECT_EQ(scalar.counts.flops_dp, vec.counts.flops_dp);
  EXPECT_EQ(scalar.counts.flops_dp_by_width[static_cast<int>(VectorWidth::kScalar)], 2u * kTriadN);
  EXPECT_LT(RelativeError(static_cast<double>(scalar.counts.bytes_l1()), 24.0 * kTriadN), 1e-3);
  EXPECT_NE(DescribeFpMix(scalar.counts).find("scalar code"), std::string::npos);
  // Same data moved, about four times the instructions.
  EXPECT_GT(scalar.counts.instructions, 3 * vec.counts.instructions);
}

TEST(SimEndToEnd, MatmulNaiveIsExactly2NCubed) {
  SimResult r;
  ASSERT_TRUE(RunTarget("matmul_naive", "64", &r));
  EXPECT_EQ(r.counts.flops_dp, 2u * 64 * 64 * 64) << Notes(r.counts);
  EXPECT_EQ(r.counts.flops_sp, 0u);
  EXPECT_EQ(r.counts.undecoded_executions, 0u);
  // Two loads per multiply-add (a[i][k], b[k][j]) at least.
  EXPECT_GE(r.counts.bytes_l1_loads, 16u * 64 * 64 * 64);
}

TEST(SimEndToEnd, Dot) {
  constexpr long n = 100000;
  SimResult scalar;
  ASSERT_TRUE(RunTarget("dot_scalar", std::to_string(n), &scalar));
  EXPECT_EQ(scalar.counts.flops_dp, 2u * n);
  EXPECT_LT(RelativeError(static_cast<double>(scalar.counts.bytes_l1()), 16.0 * n), 1e-3)
      << scalar.counts.bytes_l1();

  // -ffast-math lets GCC keep partial sums in vector lanes; the horizontal reduction at the end
  // adds a handful of additions.
  SimResult vec;
  ASSERT_TRUE(RunTarget("dot_avx2", std::to_string(n), &vec));
  EXPECT_GE(vec.counts.flops_dp, 2u * n);
  EXPECT_LE(vec.counts.flops_dp, 2u * n + 64);
  EXPECT_LT(RelativeError(static_cast<double>(vec.counts.bytes_l1()), 16.0 * n), 1e-3);
  EXPECT_NE(DescribeFpMix(vec.counts).find("256-bit"), std::string::npos)
      << DescribeFpMix(vec.counts);
}

TEST(SimEndToEnd, Avx512StopsWithAnExplanation) {
  CallgrindOptions opts;
  opts.valgrind = g_valgrind;
  CallgrindRun run;
  Error err;
  EXPECT_FALSE(RunUnderCallgrind({g_targets + "/sim_avx512_probe"}, opts, &run, &err));
  EXPECT_NE(err.message.find("AVX-512"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("AVX2 build"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("bytes 62 "), std::string::npos) << err.message;
  EXPECT_FALSE(run.exited);
  (void)RemoveCallgrindRun(run, nullptr);
}

TEST(SimEndToEnd, ExitStatusAndEnvironmentPassThrough) {
  CallgrindOptions opts;
  opts.valgrind = g_valgrind;
  opts.env = {{"RPROF_SIM_TEST_STATUS", "7"}};
  CallgrindRun run;
  Error err;
  // A usage error of the program is the program's business: the run itself succeeds.
  ASSERT_TRUE(RunUnderCallgrind({g_targets + "/sim_triad_avx2", "-5"}, opts, &run, &err))
      << err.message;
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.exit_code, 2);
  (void)RemoveCallgrindRun(run, nullptr);

  ASSERT_TRUE(RunUnderCallgrind({"sh", "-c", "exit $RPROF_SIM_TEST_STATUS"}, opts, &run, &err))
      << err.message;
  EXPECT_EQ(run.exit_code, 7);
  (void)RemoveCallgrindRun(run, nullptr);
}

}  // namespace
}  // namespace rprof

int main(int argc, char** argv) {
  const char* targets = std::getenv("RPROF_SIM_TARGETS");
  struct stat st;
  if (targets == nullptr || stat(targets, &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::printf(
        "SKIP: RPROF_SIM_TARGETS does not name the tests/sim_targets build directory "
        "(meson test sets it)\n");
    return 77;
  }
  if (stat((std::string(targets) + "/sim_triad_avx2").c_str(), &st) != 0) {
    std::printf(
        "SKIP: no sim test programs in %s (valgrind/callgrind.h was missing at "
        "configure time)\n",
        targets);
    return 77;
  }
  const char* valgrind = std::getenv("RPROF_VALGRIND");
  std::string path =
      rprof::FindExecutable(valgrind != nullptr && *valgrind ? valgrind : "valgrind");
  if (path.empty()) {
    std::printf(
        "SKIP: valgrind not found: install the Debian package valgrind "
        "(apt-get install valgrind)\n");
    return 77;
  }
  rprof::g_targets = targets;
  rprof::g_valgrind = path;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
