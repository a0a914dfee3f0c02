// The parser of the marker results file (format: rprof/marker.h, versions 1 to 4) on hand-written
// files: merging processes, missing events, problems, declarations, malformed input.
#include "targets/marker_results.h"

#include <gtest/gtest.h>

#include <string>

#include "core/derived_metrics.h"
#include "rprof/marker.h"

namespace rprof {
namespace {

// Two processes (a parent and the child it forked): same events, regions merged by name.
const char kTwoProcesses[] =
    "rprof-markers\t1\t100\n"
    "event\t0\tperf::TASK-CLOCK\tok\t\n"
    "event\t1\tPAPI_TOT_CYC\tmissing\tEvent does not exist (PAPI error -7)\n"
    "region\tinit\t1\t0.250000000\t-\t-\t250000000\t-\n"
    "region\ttriad\t10\t1.500000000\t8000000\t96000000\t1400000000\t-\n"
    "rprof-markers\t1\t101\n"
    "event\t0\tperf::TASK-CLOCK\tok\t\n"
    "event\t1\tPAPI_TOT_CYC\tmissing\tEvent does not exist (PAPI error -7)\n"
    "region\ttriad\t5\t0.750000000\t8000000\t96000000\t700000000\t-\n"
    "region\twork\t2\t0.100000000\t-\t-\t90000000\t-\n";

const Metric* Find(const std::vector<Metric>& metrics, const std::string& name,
                   const std::string& region) {
  for (const Metric& metric : metrics)
    if (metric.name == name && metric.region == region) return &metric;
  return nullptr;
}

TEST(MarkerResults, EmptyFileMeansNoProcessReported) {
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults("", &results, &err)) << err.message;
  EXPECT_TRUE(results.pids.empty());
  EXPECT_TRUE(results.regions.empty());
  EXPECT_TRUE(MarkerMetrics(results).empty());
}

TEST(MarkerResults, MergesProcessesByRegionName) {
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(kTwoProcesses, &results, &err)) << err.message;
  EXPECT_EQ(results.pids, (std::vector<long>{100, 101}));
  ASSERT_EQ(results.regions.size(), 3u);
  EXPECT_EQ(results.regions[0].name, "init");
  EXPECT_EQ(results.regions[1].name, "triad");
  EXPECT_EQ(results.regions[2].name, "work");

  const MarkerRegion& triad = results.regions[1];
  EXPECT_EQ(triad.calls, 15u);
  EXPECT_DOUBLE_EQ(triad.seconds, 2.25);
  ASSERT_TRUE(triad.flops_per_call);
  EXPECT_DOUBLE_EQ(*triad.flops_per_call, 8e6);
  ASSERT_TRUE(triad.counts[0]);
  EXPECT_DOUBLE_EQ(*triad.counts[0], 2.1e9);
  EXPECT_TRUE(results.problems.empty());
}

TEST(MarkerResults, MissingEventIsAbsentWithItsReasonNeverZero) {
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(kTwoProcesses, &results, &err)) << err.message;
  ASSERT_EQ(results.events.size(), 2u);
  EXPECT_TRUE(results.events[0].counted);
  EXPECT_FALSE(results.events[1].counted);
  EXPECT_NE(results.events[1].reason.find("Event does not exist"), std::string::npos);

  std::vector<Metric> metrics = MarkerMetrics(results);
  const Metric* cycles = Find(metrics, "PAPI_TOT_CYC", "triad");
  ASSERT_NE(cycles, nullptr);
  EXPECT_FALSE(cycles->value);
  EXPECT_EQ(cycles->source, Source::kPmu);
  EXPECT_NE(cycles->note.find("Event does not exist"), std::string::npos);
  EXPECT_NE(cycles->note.find("process 100"), std::string::npos);
}

TEST(MarkerResults, MetricsPerRegionWithTheirSources) {
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(kTwoProcesses, &results, &err)) << err.message;
  std::vector<Metric> metrics = MarkerMetrics(results);

  const Metric* time = Find(metrics, "time_s", "triad");
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(time->source, Source::kClock);
  EXPECT_EQ(time->unit, "s");
  EXPECT_DOUBLE_EQ(*time->value, 2.25);

  const Metric* calls = Find(metrics, "calls", "triad");
  ASSERT_NE(calls, nullptr);
  EXPECT_EQ(calls->source, Source::kClock);
  EXPECT_EQ(calls->unit, "count");
  EXPECT_DOUBLE_EQ(*calls->value, 15);

  const Metric* task_clock = Find(metrics, "perf::TASK-CLOCK", "triad");
  ASSERT_NE(task_clock, nullptr);
  EXPECT_EQ(task_clock->source, Source::kPmu);
  EXPECT_EQ(task_clock->unit, "ns");
  EXPECT_DOUBLE_EQ(*task_clock->value, 2.1e9);

  // Declared per call, multiplied by all calls of all processes.
  const Metric* flops = Find(metrics, "flops", "triad");
  ASSERT_NE(flops, nullptr);
  EXPECT_EQ(flops->source, Source::kModel);
  EXPECT_DOUBLE_EQ(*flops->value, 8e6 * 15);
  EXPECT_EQ(flops->note, "declared by rprof_region_declare");
  const Metric* bytes = Find(metrics, "bytes_dram", "triad");
  ASSERT_NE(bytes, nullptr);
  EXPECT_EQ(bytes->unit, "B");
  EXPECT_DOUBLE_EQ(*bytes->value, 96e6 * 15);

  // Undeclared regions have no model metrics.
  EXPECT_EQ(Find(metrics, "flops", "init"), nullptr);
  EXPECT_EQ(Find(metrics, "bytes_dram", "work"), nullptr);
  ASSERT_NE(Find(metrics, "time_s", "work"), nullptr);
}

TEST(MarkerResults, ProblemsNameTheRegionAndTheProcess) {
  const char text[] =
      "rprof-markers\t1\t7\n"
      "region\tloop\t3\t0.001000000\t-\t-\n"
      "problem\tloop\tended without a matching begin in that thread, once; those ends were "
      "ignored\n"
      "problem\t*\ta null region name was passed twice; ignored\n";
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  ASSERT_EQ(results.problems.size(), 2u);
  EXPECT_EQ(results.problems[0],
            "loop: ended without a matching begin in that thread, once; those ends were ignored "
            "(process 7)");
  EXPECT_EQ(results.problems[1],
            "markers: a null region name was passed twice; ignored (process 7)");
}

TEST(MarkerResults, ConflictingDeclarationsKeepTheFirstAndSaySo) {
  const char text[] =
      "rprof-markers\t1\t1\n"
      "region\tk\t1\t0.1\t100\t800\n"
      "rprof-markers\t1\t2\n"
      "region\tk\t1\t0.1\t200\t800\n";
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  ASSERT_EQ(results.regions.size(), 1u);
  EXPECT_DOUBLE_EQ(*results.regions[0].flops_per_call, 100);
  EXPECT_DOUBLE_EQ(*results.regions[0].bytes_per_call, 800);
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_EQ(results.problems[0],
            "k: declared flops differ between processes (100 in process 1, 200 in process 2); "
            "the first is kept");
}

TEST(MarkerResults, UncountedCallsOrAnEventMissingInOneProcessMakeTheTotalAbsent) {
  const char text[] =
      "rprof-markers\t1\t1\n"
      "event\t0\tperf::PAGE-FAULTS\tok\t\n"
      "region\ta\t2\t0.1\t-\t-\t-\n"
      "region\tb\t2\t0.1\t-\t-\t5\n"
      "rprof-markers\t1\t2\n"
      "event\t0\tperf::PAGE-FAULTS\tmissing\tPermission denied\n"
      "region\tb\t1\t0.1\t-\t-\t-\n"
      "region\tc\t1\t0.1\t-\t-\t-\n";
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  ASSERT_EQ(results.regions.size(), 3u);
  EXPECT_FALSE(results.regions[0].counts[0]);
  EXPECT_NE(results.regions[0].count_notes[0].find("ran without counters"), std::string::npos);
  EXPECT_FALSE(results.regions[1].counts[0]);  // 5 from process 1 is only part of the total
  EXPECT_EQ(results.regions[1].count_notes[0], "process 2: Permission denied");
  EXPECT_FALSE(results.events[0].counted);
}

TEST(MarkerResults, EventNotAskedForInAProcessIsAbsentThere) {
  const char text[] =
      "rprof-markers\t1\t1\n"
      "region\tr\t1\t0.1\t-\t-\n"
      "rprof-markers\t1\t2\n"
      "event\t0\tperf::PAGE-FAULTS\tok\t\n"
      "region\tr\t1\t0.1\t-\t-\t4\n"
      "region\ts\t1\t0.1\t-\t-\t4\n";
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  ASSERT_EQ(results.regions.size(), 2u);
  EXPECT_FALSE(results.regions[0].counts[0]);
  EXPECT_EQ(results.regions[0].count_notes[0], "not asked for in process 1");
  ASSERT_TRUE(results.regions[1].counts[0]);
  EXPECT_DOUBLE_EQ(*results.regions[1].counts[0], 4);
}

TEST(MarkerResults, NamesMayContainSpacesAndNonAscii) {
  const char text[] =
      "rprof-markers\t1\t3\n"
      "region\tmatmul 64×64 (blocked)\t1\t0.5\t-\t-\n";
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  ASSERT_EQ(results.regions.size(), 1u);
  EXPECT_EQ(results.regions[0].name, "matmul 64×64 (blocked)");
}

// Version 2: the region's time is its wall time, the most one thread spent inside (over threads
// and processes), not the sum over threads; the sum is kept as thread_time_s, and rates divide
// by the wall time. Two processes, side by side: triad ran 1.5 s in 2 threads of one (at most
// 0.8 s in one thread) and 0.75 s in one thread of the other.
TEST(MarkerResults, RegionTimeIsTheMostOneThreadSpentInsideAndRatesUseIt) {
  const char text[] =
      "rprof-markers\t2\t100\n"
      "region\ttriad\t10\t1.500000000\t0.800000000\t2\t8000000\t96000000\n"
      "rprof-markers\t2\t101\n"
      "region\ttriad\t5\t0.750000000\t0.750000000\t1\t8000000\t96000000\n";
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  ASSERT_EQ(results.regions.size(), 1u);
  const MarkerRegion& triad = results.regions[0];
  EXPECT_DOUBLE_EQ(triad.seconds, 2.25);
  ASSERT_TRUE(triad.thread_max_seconds);
  EXPECT_DOUBLE_EQ(*triad.thread_max_seconds, 0.8);
  ASSERT_TRUE(triad.threads);
  EXPECT_EQ(*triad.threads, 3u);

  std::vector<Metric> metrics = MarkerMetrics(results);
  const Metric* time = Find(metrics, "time_s", "triad");
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(time->source, Source::kClock);
  EXPECT_DOUBLE_EQ(*time->value, 0.8);
  const Metric* thread_time = Find(metrics, "thread_time_s", "triad");
  ASSERT_NE(thread_time, nullptr);
  EXPECT_EQ(thread_time->source, Source::kClock);
  EXPECT_EQ(thread_time->unit, "s");
  EXPECT_DOUBLE_EQ(*thread_time->value, 2.25);
  const Metric* threads = Find(metrics, "threads", "triad");
  ASSERT_NE(threads, nullptr);
  EXPECT_DOUBLE_EQ(*threads->value, 3);

  // 8e6 FLOPs x 15 calls = 1.2e8 FLOPs in 0.8 s of wall time: 0.15 GFLOP/s (not 1.2e8 / 2.25).
  AddDerivedMetrics(&metrics);
  const Metric* gflops = FindMetric(metrics, "gflops", Source::kModel, "triad");
  ASSERT_NE(gflops, nullptr);
  EXPECT_DOUBLE_EQ(*gflops->value, 1.2e8 / 0.8 / 1e9);
}

// Version 3: a region declared with rprof_region_declare_fp64 carries its precision, which
// becomes the split of its declared FLOPs (model flops_dp = all of them, flops_sp = 0): the
// region is then placed on the fp64 roofs. A region declared without one has no split.
TEST(MarkerResults, DeclaredPrecisionBecomesTheSplitOfTheDeclaredFlops) {
  const char text[] =
      "rprof-markers\t3\t100\n"
      "region\tsolve\t4\t1.000000000\t1.000000000\t1\t2e+06\t24000\tfp64\n"
      "region\tplain\t1\t0.100000000\t0.100000000\t1\t100\t-\t-\n";
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  ASSERT_EQ(results.regions.size(), 2u);
  EXPECT_EQ(results.regions[0].precision, "fp64");
  EXPECT_EQ(results.regions[1].precision, "");
  std::vector<Metric> metrics = MarkerMetrics(results);
  const Metric* dp = FindMetric(metrics, "flops_dp", Source::kModel, "solve");
  const Metric* sp = FindMetric(metrics, "flops_sp", Source::kModel, "solve");
  ASSERT_NE(dp, nullptr);
  ASSERT_NE(sp, nullptr);
  EXPECT_DOUBLE_EQ(*dp->value, 8e6);  // 2e6 per call x 4 calls
  EXPECT_DOUBLE_EQ(*sp->value, 0);
  EXPECT_EQ(FindMetric(metrics, "flops_dp", Source::kModel, "plain"), nullptr);

  // Another process declaring the other precision: the first is kept, and said.
  const char two[] =
      "rprof-markers\t3\t100\n"
      "region\tsolve\t1\t1.000000000\t1.000000000\t1\t2\t-\tfp64\n"
      "rprof-markers\t3\t101\n"
      "region\tsolve\t1\t1.000000000\t1.000000000\t1\t2\t-\tfp32\n";
  ASSERT_TRUE(ParseMarkerResults(two, &results, &err)) << err.message;
  EXPECT_EQ(results.regions[0].precision, "fp64");
  ASSERT_EQ(results.problems.size(), 1u);
  EXPECT_NE(results.problems[0].find("declared precision differs"), std::string::npos);

  EXPECT_FALSE(ParseMarkerResults("rprof-markers\t3\t5\nregion\tx\t1\t0.1\t0.1\t1\t-\t-\tfp16\n",
                                  &results, &err));
  EXPECT_EQ(err.message, "line 2: declared precision 'fp16' is not fp64, fp32 or '-'");
}

// Version 4: a span record says how much CPU time threads that never entered the region spent
// while it was open (cpu_elsewhere_s: open - inside - the entering threads' waits), summed over
// processes; a region without one (version 3, or no counters) has no such metric.
TEST(MarkerResults, SpanRecordsGiveTheCpuTimeOfThreadsThatNeverEntered) {
  const char text[] =
      "rprof-markers\t4\t100\n"
      "region\tteam\t1\t0.010000000\t0.010000000\t1\t-\t-\t-\n"
      "region\teach\t2\t0.020000000\t0.010000000\t2\t-\t-\t-\n"
      "span\tteam\t0.020000000\t0.010000000\t0.000000000\n"
      "span\teach\t0.021000000\t0.019000000\t0.002000000\n"
      "rprof-markers\t4\t101\n"
      "region\tteam\t1\t0.010000000\t0.010000000\t1\t-\t-\t-\n"
      "span\tteam\t0.030000000\t0.010000000\t0.000000000\n"
      "rprof-markers\t3\t102\n"
      "region\told\t1\t0.010000000\t0.010000000\t1\t-\t-\t-\n";
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  std::vector<Metric> metrics = MarkerMetrics(results);
  const Metric* team = FindMetric(metrics, "cpu_elsewhere_s", Source::kClock, "team");
  const Metric* each = FindMetric(metrics, "cpu_elsewhere_s", Source::kClock, "each");
  ASSERT_NE(team, nullptr);
  ASSERT_NE(each, nullptr);
  EXPECT_NEAR(*team->value, 0.030, 1e-12);  // 0.010 + 0.020 over the two processes
  EXPECT_NEAR(*each->value, 0.0, 1e-12);    // both threads entered: their waits are theirs
  EXPECT_EQ(FindMetric(metrics, "cpu_elsewhere_s", Source::kClock, "old"), nullptr);

  EXPECT_FALSE(ParseMarkerResults("rprof-markers\t4\t5\nspan\tx\t1\t1\t0\n", &results, &err));
  EXPECT_EQ(err.message, "line 2: span of region 'x', which has no region line before it");
  EXPECT_FALSE(
      ParseMarkerResults("rprof-markers\t3\t5\nregion\tx\t1\t0.1\t0.1\t1\t-\t-\t-\n"
                         "span\tx\t1\t1\t0\n",
                         &results, &err));
  EXPECT_EQ(err.message, "line 3: unknown record 'span' (expected event, region, span or problem)");
}

// A version-1 block has no per-thread time: the region's time is the sum, and says so.
TEST(MarkerResults, Version1RegionTimeIsTheSumAndSaysSo) {
  const char text[] =
      "rprof-markers\t1\t100\n"
      "region\tk\t2\t0.5\t-\t-\n"
      "rprof-markers\t2\t101\n"
      "region\tk\t1\t0.25\t0.25\t1\t-\t-\n";
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults(text, &results, &err)) << err.message;
  ASSERT_EQ(results.regions.size(), 1u);
  EXPECT_FALSE(results.regions[0].thread_max_seconds);  // unknown for process 100
  EXPECT_FALSE(results.regions[0].threads);
  std::vector<Metric> metrics = MarkerMetrics(results);
  const Metric* time = Find(metrics, "time_s", "k");
  ASSERT_NE(time, nullptr);
  EXPECT_DOUBLE_EQ(*time->value, 0.75);
  EXPECT_NE(time->note.find("summed over threads"), std::string::npos) << time->note;
  EXPECT_EQ(Find(metrics, "threads", "k"), nullptr);
}

// The reader and librprof-marker share RPROF_MARKER_FORMAT_VERSION: the version it names is
// read, the next one is refused with both named.
TEST(MarkerResults, ReadsTheVersionOfRprofMarkerHAndRefusesTheNext) {
  const std::string version = std::to_string(RPROF_MARKER_FORMAT_VERSION);
  const std::string next = std::to_string(RPROF_MARKER_FORMAT_VERSION + 1);
  MarkerResults results;
  Error err;
  ASSERT_TRUE(ParseMarkerResults("rprof-markers\t" + version + "\t5\n", &results, &err))
      << err.message;
  EXPECT_EQ(results.pids, (std::vector<long>{5}));
  EXPECT_FALSE(ParseMarkerResults("rprof-markers\t" + next + "\t5\n", &results, &err));
  EXPECT_EQ(err.message, "line 1: marker results format version '" + next +
                             "'; this rprof reads version " + version +
                             " (rprof and librprof-marker differ: rebuild the program against this "
                             "rprof's rprof-marker)");
}

struct Malformed {
  const char* text;
  const char* error;
};

class MarkerResultsMalformed : public testing::TestWithParam<Malformed> {};

TEST_P(MarkerResultsMalformed, ErrorNamesTheLine) {
  MarkerResults results;
  Error err;
  EXPECT_FALSE(ParseMarkerResults(GetParam().text, &results, &err));
  EXPECT_EQ(err.message, GetParam().error);
  EXPECT_EQ(err.kind, ErrorKind::kTargetFailed);
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, MarkerResultsMalformed,
    testing::Values(
        Malformed{"region\tx\t1\t0.1\t-\t-\n",
                  "line 1: expected the header 'rprof-markers<TAB>4<TAB><pid>', found 'region'"},
        Malformed{"rprof-markers\t5\t5\n",
                  "line 1: marker results format version '5'; this rprof reads version 4 (rprof "
                  "and librprof-marker differ: rebuild the program against this rprof's "
                  "rprof-marker)"},
        Malformed{"rprof-markers\t1\tabc\n", "line 1: process id 'abc' is not a positive integer"},
        Malformed{"rprof-markers\t1\t5\nregion\tx\tmany\t0.1\t-\t-\n",
                  "line 2: calls 'many' is not a non-negative integer"},
        Malformed{
            "rprof-markers\t1\t5\nevent\t0\tperf::TASK-CLOCK\tok\t\nregion\tx\t1\t0.1\t-\t-\n",
            "line 3: region line has 6 fields, expected 7 (region, name, calls, seconds, "
            "flops, bytes and 1 event totals)"},
        Malformed{"rprof-markers\t1\t5\nregion\tx\t1\t-0.1\t-\t-\n",
                  "line 2: seconds '-0.1' is not a non-negative number"},
        Malformed{"rprof-markers\t1\t5\nregion\tx\t1\t0.1\tlots\t-\n",
                  "line 2: declared value 'lots' is neither '-' nor a non-negative number"},
        Malformed{"rprof-markers\t1\t5\nevent\t1\tperf::TASK-CLOCK\tok\t\n",
                  "line 2: event index '1', expected 0"},
        Malformed{"rprof-markers\t1\t5\nevent\t0\tperf::TASK-CLOCK\tmaybe\t\n",
                  "line 2: event status 'maybe', expected ok or missing"},
        Malformed{"rprof-markers\t1\t5\nevent\t0\tX\tmissing\tno\nregion\tr\t1\t0.1\t-\t-\t3\n",
                  "line 3: a count for event 'X', which is missing"},
        Malformed{"rprof-markers\t1\t5\n\nregion\tx\t1\t0.1\t-\t-\n", "line 2: empty line"},
        Malformed{"rprof-markers\t1\t5\nregion\tx\t1\t0.1\t-\t-\nregion\tx\t1\t0.1\t-\t-\n",
                  "line 3: region 'x' listed twice in one process"},
        Malformed{"rprof-markers\t1\t5\nsample\tx\n",
                  "line 2: unknown record 'sample' (expected event, region, span or problem)"},
        Malformed{"rprof-markers\t1\t5\nproblem\tx\n",
                  "line 2: problem line has 2 fields, expected 3 (problem, region, message)"},
        // Version 2: the most one thread spent inside and the threads, after the seconds.
        Malformed{"rprof-markers\t2\t5\nregion\tx\t1\t0.1\t-\t-\n",
                  "line 2: region line has 6 fields, expected 8 (region, name, calls, seconds, "
                  "seconds in one thread, threads, flops, bytes and 0 event totals)"},
        Malformed{"rprof-markers\t2\t5\nregion\tx\t1\t0.1\t0.2\t1\t-\t-\n",
                  "line 2: seconds in one thread '0.2' is not a number from 0 to the total "
                  "seconds"},
        Malformed{"rprof-markers\t2\t5\nregion\tx\t1\t0.1\t0.1\tsome\t-\t-\n",
                  "line 2: threads 'some' is not a non-negative integer"}));

}  // namespace
}  // namespace rprof
