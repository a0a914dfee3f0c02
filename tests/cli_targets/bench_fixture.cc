// A Google Benchmark binary whose work is known exactly, for tests/cli/gbench_test.py: saxpy
// does 2n FLOPs per iteration (one multiply, one add per element) and moves 24n bytes (x and y
// read, y written, doubles); naive matmul does 2n^3 FLOPs. Each declares its FLOPs the way
// Google Benchmark's users do (a kIsIterationInvariantRate counter: FLOP/s over the timed loop)
// and its bytes with SetBytesProcessed. Built for AVX2 at most: valgrind (the sim source)
// cannot execute AVX-512.
//
// RPROF_FIXTURE_CRASH_IN=NAME makes the benchmark named NAME crash (SIGSEGV) in its timed loop;
// RPROF_FIXTURE_ERROR_IN=NAME makes it report SkipWithError; RPROF_FIXTURE_RATE_MISTAKE=1
// makes saxpy declare its FLOPs with the frequent mistake, a kIsRate counter of one iteration's
// work (Google Benchmark divides it by the whole loop's time): the bad-input tests' cases.
#include <benchmark/benchmark.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

bool Is(const char* variable, const std::string& name) {
  const char* value = std::getenv(variable);
  return value != nullptr && name == value;
}

void BM_saxpy(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::vector<double> x(n, 1.5), y(n, 0.5);
  const double a = 1.0000001;
  const std::string name = "BM_saxpy/" + std::to_string(n);
  if (Is("RPROF_FIXTURE_ERROR_IN", name)) state.SkipWithError("told to fail");
  bool crash = Is("RPROF_FIXTURE_CRASH_IN", name);
  for (auto _ : state) {
    if (crash) std::raise(SIGSEGV);
    for (size_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.counters["FLOPs"] = benchmark::Counter(2.0 * static_cast<double>(n),
                                               std::getenv("RPROF_FIXTURE_RATE_MISTAKE")
                                                   ? benchmark::Counter::kIsRate
                                                   : benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 24 * static_cast<int64_t>(n));
}
BENCHMARK(BM_saxpy)->Arg(1024)->Arg(65536)->Arg(1048576);

void BM_matmul(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::vector<double> a(n * n, 1.25), b(n * n, 0.75), c(n * n, 0.0);
  const std::string name = "BM_matmul/" + std::to_string(n);
  if (Is("RPROF_FIXTURE_ERROR_IN", name)) state.SkipWithError("told to fail");
  bool crash = Is("RPROF_FIXTURE_CRASH_IN", name);
  for (auto _ : state) {
    if (crash) std::raise(SIGSEGV);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        double sum = c[i * n + j];
        for (size_t k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];  // hot line
        c[i * n + j] = sum;
      }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  const double nd = static_cast<double>(n);
  state.counters["FLOPs"] =
      benchmark::Counter(2.0 * nd * nd * nd, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_matmul)->Arg(64)->Arg(128);

}  // namespace

// BENCHMARK_MAIN, but RPROF_FIXTURE_THREADS=1 adds BM_saxpy_threads/4096/threads:2, each
// thread running its own saxpy: per iteration of both, 2 x 2n FLOPs.
int main(int argc, char** argv) {
  if (std::getenv("RPROF_FIXTURE_THREADS"))
    benchmark::RegisterBenchmark("BM_saxpy_threads", BM_saxpy)->Arg(4096)->Threads(2);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
