// libFuzzer target for targets/benchmark_json.h: the file a Google Benchmark binary writes with
// --benchmark_out (untrusted input: the binary is the user's program). Any input must parse or
// fail with a reason, without crashing, hanging or leaking; what parses must hold no value a
// stored run could not: counts within their ranges, times never negative, every row named.
//
// `scripts/fuzz 60 benchmark_json` builds and runs it (tests/fuzz/meson.build). Built with
// -DRPROF_FUZZ_STANDALONE it is a plain program that replays the corpus and mutations of it
// (tests/fuzz/fuzz_replay.h).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "targets/benchmark_json.h"

namespace {

void Check(const std::string& text) {
  rprof::BenchmarkReport report;
  rprof::Error err;
  if (!rprof::ParseBenchmarkJson(text, &report, &err)) {
    if (err.message.empty()) std::abort();
    return;
  }
  for (const rprof::BenchmarkRow& row : report.rows) {
    if (row.name.empty() || row.run_name.empty()) std::abort();
    if (row.iterations < 0 || row.repetitions < 1 || row.threads < 1 || row.repetition_index < 0)
      std::abort();
    for (const auto& t : {row.real_time_s, row.cpu_time_s})
      if (t && !(std::isfinite(*t) && *t >= 0)) std::abort();
    for (const auto& [name, value] : row.counters)
      if (value && !std::isfinite(*value)) std::abort();
    // Rates turned per iteration stay finite or absent.
    for (const auto& [name, value] : row.counters)
      if (auto v = rprof::PerIterationFromRate(row, name); v && std::isnan(*v)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Check(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}

#ifdef RPROF_FUZZ_STANDALONE
#include "fuzz_replay.h"

int main(int argc, char** argv) {
  return rprof::ReplayCorpusMain(argc, argv, "benchmark_json",
                                 "{}[]:,\"0123456789.-+eE truefalsnulNaInfiy\\u", 20000,
                                 [](const std::string& text) { Check(text); });
}
#endif
