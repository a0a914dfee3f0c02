// Google Benchmark's JSON (targets/benchmark_json.h): rows, units, aggregates, counters, and the
// bare NaN / Infinity tokens it writes for non-finite doubles.
#include "targets/benchmark_json.h"

#include <gtest/gtest.h>

#include "targets/benchmark_binary.h"

namespace rprof {
namespace {

const char* kReport = R"({
  "context": {"date": "2026-12-01T14:18:12+00:00", "host_name": "h", "num_cpus": 2,
              "mhz_per_cpu": 2600, "library_build_type": "debug",
              "caches": [{"type": "Data", "level": 1, "size": 49152, "num_sharing": 1}]},
  "benchmarks": [
    {"name": "BM_saxpy/1024", "run_name": "BM_saxpy/1024", "run_type": "iteration",
     "repetitions": 2, "repetition_index": 0, "threads": 1, "iterations": 308940,
     "real_time": 4.3687188126892045e+02, "cpu_time": 4.3682628342072894e+02,
     "time_unit": "ns", "FLOPs": 4.6883625773668699e+09, "bytes_per_second": NaN},
    {"name": "BM_saxpy/1024", "run_name": "BM_saxpy/1024", "run_type": "iteration",
     "repetitions": 2, "repetition_index": 1, "threads": 1, "iterations": 308940,
     "real_time": 2.5, "cpu_time": 2.0, "time_unit": "us", "FLOPs": Infinity,
     "label": "NaN in a string stays"},
    {"name": "BM_saxpy/1024_cv", "run_name": "BM_saxpy/1024", "run_type": "aggregate",
     "repetitions": 2, "threads": 1, "aggregate_name": "cv", "aggregate_unit": "percentage",
     "iterations": 2, "real_time": 0.01, "cpu_time": -Infinity, "time_unit": "ns"},
    {"name": "BM_bad", "run_name": "BM_bad", "run_type": "iteration", "iterations": 0,
     "real_time": 0, "cpu_time": 0, "time_unit": "ms", "error_occurred": true,
     "error_message": "told to fail"}
  ]
})";

TEST(BenchmarkJson, ReadsRowsUnitsAggregatesAndNonFiniteValues) {
  BenchmarkReport report;
  Error err;
  ASSERT_TRUE(ParseBenchmarkJson(kReport, &report, &err)) << err.message;
  EXPECT_EQ(report.context.host_name, "h");
  EXPECT_EQ(report.context.num_cpus, 2);
  ASSERT_EQ(report.rows.size(), 4u);
  const BenchmarkRow& first = report.rows[0];
  EXPECT_EQ(first.iterations, 308940);
  EXPECT_DOUBLE_EQ(*first.real_time_s, 4.3687188126892045e+02 * 1e-9);
  ASSERT_EQ(first.counters.size(), 2u);
  EXPECT_EQ(first.counters[1].first, "bytes_per_second");
  EXPECT_FALSE(first.counters[1].second) << "NaN is absent, never 0";
  // A rate over the loop's CPU time, per iteration: 2n FLOPs of saxpy at n = 1024.
  EXPECT_NEAR(*PerIterationFromRate(first, "FLOPs"), 2048, 0.01);
  EXPECT_DOUBLE_EQ(*report.rows[1].real_time_s, 2.5e-6);
  EXPECT_FALSE(PerIterationFromRate(report.rows[1], "FLOPs")) << "Infinity is absent";
  const BenchmarkRow& cv = report.rows[2];
  EXPECT_TRUE(cv.aggregate);
  EXPECT_EQ(cv.aggregate_name, "cv");
  EXPECT_DOUBLE_EQ(*cv.real_time_s, 0.01) << "a ratio, not scaled by the time unit";
  EXPECT_FALSE(cv.cpu_time_s);
  EXPECT_TRUE(report.rows[3].error_occurred);
  EXPECT_EQ(report.rows[3].error_message, "told to fail");
}

TEST(BenchmarkJson, NonFiniteTokensOnlyOutsideStrings) {
  EXPECT_EQ(NonFiniteTokensAsNull(R"({"a": NaN, "b": "NaN \" Infinity", "c": [-Infinity]})"),
            R"({"a": null, "b": "NaN \" Infinity", "c": [null]})");
}

TEST(BenchmarkJson, RefusesWhatIsNotGoogleBenchmarksOutput) {
  BenchmarkReport report;
  Error err;
  EXPECT_FALSE(ParseBenchmarkJson(R"({"runs": []})", &report, &err));
  EXPECT_NE(err.message.find("not Google Benchmark's JSON"), std::string::npos) << err.message;
  EXPECT_EQ(err.kind, ErrorKind::kTargetFailed);
  EXPECT_FALSE(ParseBenchmarkJson("{\"benchmarks\": [", &report, &err));
  EXPECT_NE(err.message.find("line"), std::string::npos) << err.message;
  EXPECT_FALSE(ParseBenchmarkJson(R"({"benchmarks": [{"iterations": 1}]})", &report, &err));
}

TEST(BenchmarkBinary, InstanceNamesGiveParametersAndExactFilters) {
  EXPECT_EQ(BenchmarkParams("BM_saxpy/65536"), (KeyValues{{"arg0", "65536"}}));
  EXPECT_EQ(BenchmarkParams("BM_x/n:8/4/threads:2/real_time"),
            (KeyValues{{"n", "8"}, {"arg1", "4"}, {"threads", "2"}, {"real_time", "true"}}));
  EXPECT_EQ(ExactFilter("BM_a<int>/1.5"), "^BM_a<int>/1\\.5$");
}

TEST(BenchmarkBinary, MinTimeInTheSyntaxTheLibraryTakes) {
  BenchmarkBinary old_library, new_library;
  old_library.path = "b";
  new_library.min_time_takes_suffix = true;
  std::string value;
  Error why;
  EXPECT_TRUE(MinTimeFor(old_library, "0.5s", &value, &why));
  EXPECT_EQ(value, "0.5");
  EXPECT_FALSE(MinTimeFor(old_library, "10x", &value, &why));
  EXPECT_NE(why.message.find("seconds only"), std::string::npos) << why.message;
  EXPECT_EQ(why.kind, ErrorKind::kUsage);
  EXPECT_TRUE(MinTimeFor(new_library, "0.5", &value, &why));
  EXPECT_EQ(value, "0.5s");
  EXPECT_TRUE(MinTimeFor(new_library, "10x", &value, &why));
  EXPECT_EQ(value, "10x");
  EXPECT_FALSE(MinTimeFor(new_library, "fast", &value, &why));
  EXPECT_EQ(FewestMinTime(old_library), "1e-9");
  EXPECT_EQ(FewestMinTime(new_library), "1x");
}

}  // namespace
}  // namespace rprof
