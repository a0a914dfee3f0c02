// Programs whose work depends on their speed: a benchmark harness found in its bytes, and a
// replay whose instruction count is far from the native run's.
#include "counters/time_adaptive.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "temp_files.h"

namespace rprof {
namespace {

using testing_support::TempDir;

std::string Write(const TempDir& dir, const std::string& name, const std::string& bytes) {
  std::string path = dir.File(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(TimeAdaptive, GoogleBenchmarkBinariesAreFoundByWhatTheyLinkOrContain) {
  TempDir dir;
  std::string text = std::string(
                         "\x7f"
                         "ELF") +
                     std::string(1000, '\0');
  EXPECT_TRUE(IsGoogleBenchmarkBinary(Write(dir, "dynamic", text + "libbenchmark.so.1" + text)));
  EXPECT_TRUE(IsGoogleBenchmarkBinary(Write(dir, "static", text + "benchmark_min_time")));
  EXPECT_FALSE(IsGoogleBenchmarkBinary(Write(dir, "plain", text + "benchmark")));
  EXPECT_FALSE(IsGoogleBenchmarkBinary(Write(dir, "empty", "")));
  EXPECT_FALSE(IsGoogleBenchmarkBinary(dir.File("missing")));
}

TEST(TimeAdaptive, AReplayFarFromTheNativeWorkIsAMismatch) {
  EXPECT_FALSE(WorkMismatch(1e9, 1.2e9));  // the same work, give or take start-up
  EXPECT_FALSE(WorkMismatch(1e9, 0.6e9));
  EXPECT_FALSE(WorkMismatch(std::nullopt, 1e9));  // no PMU: nothing to compare
  EXPECT_FALSE(WorkMismatch(1e9, std::nullopt));
  std::optional<std::string> fewer = WorkMismatch(1.55e11, 7e8);
  ASSERT_TRUE(fewer);
  EXPECT_NE(fewer->find("under valgrind the program executed 7e+08 instructions, natively "
                        "1.55e+11"),
            std::string::npos)
      << *fewer;
  EXPECT_TRUE(WorkMismatch(1e9, 3e9));
}

}  // namespace
}  // namespace rprof
