// A Google Benchmark whose timed loop hands its work to an OpenMP team (tests/cli/gbench_test.py,
// issue 24): the benchmark's own thread runs the loop; the team's other thread, which never
// enters rprof's region around it, does half of every iteration's triad. Under pmu that half is
// missing from the loop's counts and measured as the CPU time of threads that never entered it.
// AVX2 at most and never instrumented, as bench_fixture.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <vector>

namespace {

void BM_omp_triad(benchmark::State& state) {
  const long n = state.range(0);
  std::vector<double> a(n, 0.0), b(n, 1.5), c(n, 0.5);
  const double s = 3.0;
  for (auto _ : state) {
#pragma omp parallel for num_threads(2) schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_omp_triad)->Arg(1 << 20);

}  // namespace

BENCHMARK_MAIN();
