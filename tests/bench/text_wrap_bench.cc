// What wrapping costs as text grows (issue 41): a note without spaces (one word that must be
// cut into pieces) and prose, each at 80 columns, from 16 KiB to 1 MiB. Google Benchmark fits
// the growth (BigO): linear is what `show` of a 1 MiB note in well under a second needs; the
// cutting used to be quadratic (102 s for 1 MiB).
#include <benchmark/benchmark.h>

#include <string>

#include "report/text_wrap.h"

namespace {

void BM_WrapOneLongWord(benchmark::State& state) {
  const std::string note = "  " + std::string(static_cast<size_t>(state.range(0)), 'x');
  for (auto _ : state) benchmark::DoNotOptimize(rprof::WrapProse(note, 80));
  state.SetComplexityN(state.range(0));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_WrapOneLongWord)->RangeMultiplier(4)->Range(16 << 10, 1 << 20)->Complexity();

void BM_WrapProse(benchmark::State& state) {
  std::string note = "  ";
  while (note.size() < static_cast<size_t>(state.range(0))) note += "bytes_l2 moved 1,024 ";
  for (auto _ : state) benchmark::DoNotOptimize(rprof::WrapProse(note, 80));
  state.SetComplexityN(state.range(0));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_WrapProse)->RangeMultiplier(4)->Range(16 << 10, 1 << 20)->Complexity();

}  // namespace

BENCHMARK_MAIN();
