// A Google Benchmark binary as rprof sees it before running any benchmark: whether it is one,
// the benchmark instances it holds (--benchmark_list_tests, the user's filter applied), which
// --benchmark_min_time syntax its library takes, and how one instance is selected alone.
#ifndef RPROF_TARGETS_BENCHMARK_BINARY_H_
#define RPROF_TARGETS_BENCHMARK_BINARY_H_

#include <string>
#include <vector>

#include "core/error.h"
#include "core/run.h"

namespace rprof {

struct BenchmarkBinary {
  std::string path;                    // the file executed
  std::vector<std::string> instances;  // "BM_saxpy/1024", in the binary's order
  // Google Benchmark 1.8.0+ takes "--benchmark_min_time=10x" (iterations) and "0.5s"; 1.7.1
  // takes seconds only and exits 1 on anything else.
  bool min_time_takes_suffix = false;
};

// Whether `path` looks like a Google Benchmark binary (links libbenchmark, or holds its flag
// names when linked statically), without running it.
bool LooksLikeBenchmarkBinary(const std::string& path);

// Whether the binary links libbenchmark as a shared library (the shim can then bracket its
// timed loops; statically linked, it cannot).
bool LinksSharedBenchmarkLibrary(const std::string& path);

// Runs `path --benchmark_list_tests` with the user's own --benchmark_* options (a filter
// narrows the list). kUsage when it does not answer as Google Benchmark does (not one: --gbench
// on another program), or when the filter matches nothing.
bool ListBenchmarks(const std::string& path, const std::vector<std::string>& benchmark_args,
                    BenchmarkBinary* out, Error* err);

// --benchmark_filter's regular expression for exactly this instance name.
std::string ExactFilter(const std::string& instance);

// The value for --benchmark_min_time meaning `text` ("0.5", "0.5s" or "10x"), in the syntax
// this binary's library takes. False with *err (kUsage) when it cannot say it ("10x" to
// 1.7.1).
[[nodiscard]] bool MinTimeFor(const BenchmarkBinary& binary, const std::string& text,
                              std::string* value, Error* err);

// The fewest iterations the binary allows, for the sim replay: "1x" (1.8.0+), else the
// shortest time, so that the first trial, one iteration, is enough.
std::string FewestMinTime(const BenchmarkBinary& binary);

// The parameters in an instance name, as run params: "BM_saxpy/65536" -> arg0=65536;
// "BM_x/n:8/threads:2" -> n=8, threads=2; "min_time:", "repeats:", "real_time" too.
KeyValues BenchmarkParams(const std::string& instance);

}  // namespace rprof

#endif  // RPROF_TARGETS_BENCHMARK_BINARY_H_
