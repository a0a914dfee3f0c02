// What a Google Benchmark binary writes with --benchmark_out=FILE --benchmark_out_format=json
// (1.7.1): a context block about the machine and one row per run of a benchmark instance
// (run_type "iteration", one per repetition) or per aggregate over its repetitions (run_type
// "aggregate": mean, median, stddev, cv). Google Benchmark prints non-finite doubles as the bare
// tokens NaN, Infinity and -Infinity, which JSON does not have: they are read, and their values
// are absent (nullopt), never 0.
#ifndef RPROF_TARGETS_BENCHMARK_JSON_H_
#define RPROF_TARGETS_BENCHMARK_JSON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace rprof {

struct BenchmarkRow {
  std::string name;      // "BM_saxpy/1024", "BM_saxpy/1024_mean" for an aggregate
  std::string run_name;  // the instance: "BM_saxpy/1024" for both
  bool aggregate = false;
  std::string aggregate_name;  // mean | median | stddev | cv | "" for an iteration row
  int64_t repetitions = 1;
  int64_t repetition_index = 0;
  int64_t threads = 1;
  int64_t iterations = 0;
  // Per iteration, in seconds (time_unit applied); nullopt for NaN/Infinity. For the cv
  // aggregate Google Benchmark writes a ratio, not a time: kept as written, unit "ratio".
  std::optional<double> real_time_s, cpu_time_s;
  std::string time_unit;  // as written: ns | us | ms | s
  bool error_occurred = false;
  std::string error_message;
  // User counters and the rates Google Benchmark computes (bytes_per_second,
  // items_per_second), as written; nullopt for NaN/Infinity.
  std::vector<std::pair<std::string, std::optional<double>>> counters;
};

struct BenchmarkContext {
  std::string host_name, date, library_build_type;
  std::optional<int64_t> num_cpus;
  std::optional<double> mhz_per_cpu;
};

struct BenchmarkReport {
  BenchmarkContext context;
  std::vector<BenchmarkRow> rows;
};

// Replaces each bare NaN, Infinity and -Infinity outside strings by null, so that the strict
// reader (core/json_reader.h) takes the rest.
std::string NonFiniteTokensAsNull(const std::string& text);

// Parses the whole file's text. False with *err (kTargetFailed: the benchmark wrote it; "line 3,
// column 5: ...", or "benchmarks[2]: no name") when it is not Google Benchmark's JSON.
[[nodiscard]] bool ParseBenchmarkJson(const std::string& text, BenchmarkReport* out, Error* err);

// The per-iteration value of a counter reported as a rate over the timed loop (Google
// Benchmark's kIsRate and kIsIterationInvariantRate, which it divides by the loop's CPU time):
// rate x CPU time per iteration.
std::optional<double> PerIterationFromRate(const BenchmarkRow& row, const std::string& counter);

}  // namespace rprof

#endif  // RPROF_TARGETS_BENCHMARK_JSON_H_
