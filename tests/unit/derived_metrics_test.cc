// Derived metrics: the shipped definitions parse, and each is computed per source from that
// source's own inputs (time always from the clock), never from a missing input or a zero divisor.
#include "core/derived_metrics.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace rprof {
namespace {

Metric M(std::string name, std::optional<double> value, Source source, std::string region = "") {
  return Metric{std::move(name), value, "", source, std::move(region), ""};
}

std::optional<double> ValueOf(const std::vector<Metric>& metrics, std::string_view name,
                              Source source, std::string_view region = "") {
  const Metric* m = FindMetric(metrics, name, source, region);
  return m ? m->value : std::nullopt;
}

TEST(DerivedMetricDefs, EveryShippedLineParses) {
  // DerivedMetricDefs() aborts on a line that does not parse, so reaching the checks means
  // every line of core/derived_metrics.txt did.
  const std::vector<DerivedMetricDef>& defs = DerivedMetricDefs();
  ASSERT_FALSE(defs.empty());
  std::set<std::string> names;
  for (const DerivedMetricDef& def : defs) {
    SCOPED_TRACE(def.name);
    EXPECT_TRUE(names.insert(def.name).second) << "defined twice";
    EXPECT_FALSE(def.unit.empty());
    EXPECT_FALSE(def.formula.names().empty()) << "a derived metric reads other metrics";
  }
  for (const char* expected : {"gflops", "gbs_dram", "ai_dram"})
    EXPECT_TRUE(names.contains(expected)) << expected;
}

TEST(DerivedMetricDefs, HeadlineFormulasAreTheDocumentedOnes) {
  for (const DerivedMetricDef& def : DerivedMetricDefs()) {
    if (def.name == "gflops") {
      EXPECT_EQ(def.unit, "GFLOP/s");
      EXPECT_EQ(def.formula.text(), "flops / time_s / 1e9");
    }
    if (def.name == "ai_dram") {
      EXPECT_EQ(def.unit, "FLOP/B");
      EXPECT_EQ(def.formula.text(), "flops / bytes_dram");
    }
  }
}

TEST(AddDerivedMetrics, GflopsAndIntensityFromOneSource) {
  std::vector<Metric> metrics = {M("time_s", 0.002, Source::kClock),
                                 M("flops", 4e6, Source::kModel),
                                 M("bytes_dram", 8e6, Source::kModel)};
  AddDerivedMetrics(&metrics);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "gflops", Source::kModel), 4e6 / 0.002 / 1e9);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "gbs_dram", Source::kModel), 8e6 / 0.002 / 1e9);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "ai_dram", Source::kModel), 0.5);
  const Metric* gflops = FindMetric(metrics, "gflops", Source::kModel);
  ASSERT_NE(gflops, nullptr);
  EXPECT_EQ(gflops->unit, "GFLOP/s");
  // Nothing is invented for the clock, and nothing from inputs no source has.
  EXPECT_EQ(FindMetric(metrics, "gflops", Source::kClock), nullptr);
  EXPECT_EQ(FindMetric(metrics, "ai_l1", Source::kModel), nullptr);
  EXPECT_EQ(FindMetric(metrics, "ipc", Source::kModel), nullptr);
}

TEST(AddDerivedMetrics, EachSourceUsesItsOwnInputs) {
  std::vector<Metric> metrics = {M("time_s", 0.5, Source::kClock), M("flops", 1e9, Source::kModel),
                                 M("bytes_dram", 4e9, Source::kModel),
                                 M("flops", 3e9, Source::kPmu)};  // no pmu bytes_dram
  AddDerivedMetrics(&metrics);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "gflops", Source::kModel), 2.0);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "gflops", Source::kPmu), 6.0);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "ai_dram", Source::kModel), 0.25);
  // The pmu has no bytes: its intensity is absent, not 0 and not the model's bytes.
  EXPECT_EQ(FindMetric(metrics, "ai_dram", Source::kPmu), nullptr);
  EXPECT_EQ(FindMetric(metrics, "gbs_dram", Source::kPmu), nullptr);
}

TEST(AddDerivedMetrics, AbsentInputValueGivesNoMetric) {
  // A pmu event that could not be counted is present with no value: nothing derives from it.
  std::vector<Metric> metrics = {
      M("time_s", 1.0, Source::kClock), M("flops", std::nullopt, Source::kPmu),
      M("instructions", 10.0, Source::kPmu), M("cycles", std::nullopt, Source::kPmu)};
  AddDerivedMetrics(&metrics);
  EXPECT_EQ(FindMetric(metrics, "gflops", Source::kPmu), nullptr);
  EXPECT_EQ(FindMetric(metrics, "ipc", Source::kPmu), nullptr);
}

TEST(AddDerivedMetrics, ZeroBytesGiveNoIntensity) {
  std::vector<Metric> metrics = {M("time_s", 1.0, Source::kClock),
                                 M("flops", 100.0, Source::kModel),
                                 M("bytes_dram", 0.0, Source::kModel)};
  AddDerivedMetrics(&metrics);
  EXPECT_EQ(FindMetric(metrics, "ai_dram", Source::kModel), nullptr) << "division by zero";
  // Zero bytes in a second is a bandwidth of 0, which is a value.
  EXPECT_EQ(ValueOf(metrics, "gbs_dram", Source::kModel), 0.0);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "gflops", Source::kModel), 100.0 / 1e9);
}

TEST(AddDerivedMetrics, NoTimeGivesNoRates) {
  std::vector<Metric> metrics = {M("flops", 100.0, Source::kModel),
                                 M("bytes_dram", 50.0, Source::kModel)};
  AddDerivedMetrics(&metrics);
  EXPECT_EQ(FindMetric(metrics, "gflops", Source::kModel), nullptr);
  EXPECT_EQ(FindMetric(metrics, "gbs_dram", Source::kModel), nullptr);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "ai_dram", Source::kModel), 2.0);
}

TEST(AddDerivedMetrics, RegionsUseTheirOwnTime) {
  std::vector<Metric> metrics = {M("time_s", 1.0, Source::kClock), M("flops", 1e9, Source::kSim),
                                 M("time_s", 0.25, Source::kClock, "inner"),
                                 M("flops", 1e9, Source::kSim, "inner")};
  AddDerivedMetrics(&metrics);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "gflops", Source::kSim), 1.0);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "gflops", Source::kSim, "inner"), 4.0);
}

TEST(AddDerivedMetrics, MeasuredValueIsNotReplaced) {
  std::vector<Metric> metrics = {M("time_s", 1.0, Source::kClock), M("flops", 1e9, Source::kPmu),
                                 M("gflops", 42.0, Source::kPmu)};
  AddDerivedMetrics(&metrics);
  int count = 0;
  for (const Metric& m : metrics) count += m.name == "gflops" && m.source == Source::kPmu;
  EXPECT_EQ(count, 1);
  EXPECT_EQ(ValueOf(metrics, "gflops", Source::kPmu), 42.0);
}

TEST(AddDerivedMetrics, CpusUtilizedFromTheClocksCpuTime) {
  // perf stat's "CPUs utilized": a program's CPU time over its wall time, both the clock's.
  std::vector<Metric> metrics = {M("time_s", 0.5, Source::kClock),
                                 M("cpu_time_s", 0.95, Source::kClock)};
  AddDerivedMetrics(&metrics);
  EXPECT_DOUBLE_EQ(*ValueOf(metrics, "cpus_utilized", Source::kClock), 1.9);
  // A kernel has no CPU time: nothing derived on the clock.
  std::vector<Metric> kernel = {M("time_s", 0.5, Source::kClock)};
  AddDerivedMetrics(&kernel);
  EXPECT_EQ(kernel.size(), 1u);
}

TEST(ParseMetricLine, ReadsNameUnitAndFormula) {
  Error err;
  auto def = ParseMetricLine("  bw [GB/s] =  bytes / time_s / 1e9 ", &err);
  ASSERT_TRUE(def) << err.message;
  EXPECT_EQ(def->name, "bw");
  EXPECT_EQ(def->unit, "GB/s");
  EXPECT_EQ(def->formula.names(), (std::vector<std::string>{"bytes", "time_s"}));
}

TEST(ParseMetricLine, RefusesMalformedLines) {
  struct Case {
    const char* line;
    const char* message;
  };
  for (const Case& c : {Case{"gflops = flops / time_s", "expected `name [unit] = formula`"},
                        Case{"gflops [GFLOP/s] flops", "expected `name [unit] = formula`"},
                        Case{"gflops = flops [GFLOP/s]", "expected `name [unit] = formula`"},
                        Case{"gflops ]GFLOP/s[ = flops", "expected `name [unit] = formula`"},
                        Case{"[GFLOP/s] = flops", "a metric needs a name and a unit"},
                        Case{"gflops [] = flops", "a metric needs a name and a unit"},
                        Case{"gflops [GFLOP/s] = flops /", "formula of gflops: "},
                        Case{"gflops [GFLOP/s] = ", "formula of gflops: "},
                        Case{"gflops [GFLOP/s] = (flops", "formula of gflops: "}}) {
    SCOPED_TRACE(c.line);
    Error err;
    EXPECT_FALSE(ParseMetricLine(c.line, &err));
    EXPECT_EQ(err.kind, ErrorKind::kUsage);
    EXPECT_NE(err.message.find(c.message), std::string::npos) << err.message;
  }
}

}  // namespace
}  // namespace rprof
