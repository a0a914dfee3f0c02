// The model source: a kernel's own FLOP and byte formulas evaluated for a run's parameters, for
// built-in kernels and for a hand-made kernel whose formulas are broken the way a plugin's might
// be.
#include "counters/model/kernel_model.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "targets/kernel_catalog.h"

namespace rprof {
namespace {

const rprof_kernel& Builtin(const std::string& name) {
  const CatalogEntry* entry = BuiltinCatalog().Find(name);
  EXPECT_NE(entry, nullptr) << name;
  return *entry->kernel;
}

rprof_args ArgsN(int64_t n) {
  rprof_args args{};
  args.values[0] = n;
  return args;
}

const rprof_param kFakeParams[] = {{"n", "elements", 10, 1, 1000}, {"m", "rows", 2, 1, 1000}};

// A kernel that is only a table: the model never calls its functions.
rprof_kernel FakeKernel(const char* flops, const char* bytes) {
  rprof_kernel k{};
  k.name = "fake-kernel";
  k.description = "test double";
  k.precision = RPROF_PRECISION_FP64;
  k.params = kFakeParams;
  k.param_count = 2;
  k.flops_formula = flops;
  k.bytes_formula = bytes;
  return k;
}

TEST(KernelModelMetrics, TriadThousandElements) {
  std::vector<Metric> metrics;
  Error err;
  ASSERT_TRUE(KernelModelMetrics(Builtin("triad"), ArgsN(1000), &metrics, &err)) << err.message;
  ASSERT_EQ(metrics.size(), 3u);
  for (const Metric& m : metrics) {
    SCOPED_TRACE(m.name);
    EXPECT_EQ(m.source, Source::kModel);
    EXPECT_EQ(m.region, "");
  }
  const Metric* flops = FindMetric(metrics, "flops", Source::kModel);
  const Metric* flops_dp = FindMetric(metrics, "flops_dp", Source::kModel);
  const Metric* bytes = FindMetric(metrics, "bytes_dram", Source::kModel);
  ASSERT_TRUE(flops && flops_dp && bytes);
  EXPECT_EQ(flops->value, 2000.0);
  EXPECT_EQ(flops->unit, "FLOP");
  EXPECT_EQ(flops->note, "2*n");  // the formula, exactly as the kernel declares it
  EXPECT_EQ(flops_dp->value, 2000.0);
  EXPECT_EQ(bytes->value, 24000.0);
  EXPECT_EQ(bytes->unit, "B");
  EXPECT_EQ(bytes->note, "compulsory: 24*n");
  EXPECT_EQ(FindMetric(metrics, "flops_sp", Source::kModel), nullptr);
}

TEST(KernelModelMetrics, MatmulFp32FillsFlopsSp) {
  std::vector<Metric> metrics;
  Error err;
  ASSERT_TRUE(KernelModelMetrics(Builtin("matmul-naive-fp32"), ArgsN(10), &metrics, &err))
      << err.message;
  const Metric* flops_sp = FindMetric(metrics, "flops_sp", Source::kModel);
  ASSERT_NE(flops_sp, nullptr);
  EXPECT_EQ(flops_sp->value, 2000.0);  // 2*n*n*n
  EXPECT_EQ(FindMetric(metrics, "flops", Source::kModel)->value, 2000.0);
  EXPECT_EQ(FindMetric(metrics, "bytes_dram", Source::kModel)->value, 1200.0);  // 3*n*n*4
  EXPECT_EQ(FindMetric(metrics, "flops_dp", Source::kModel), nullptr);
}

TEST(KernelModelMetrics, CopyHasZeroFlopsNotMissing) {
  std::vector<Metric> metrics;
  Error err;
  ASSERT_TRUE(KernelModelMetrics(Builtin("copy"), ArgsN(100), &metrics, &err)) << err.message;
  EXPECT_EQ(FindMetric(metrics, "flops", Source::kModel)->value, 0.0);
  EXPECT_EQ(FindMetric(metrics, "bytes_dram", Source::kModel)->value, 1600.0);
}

TEST(KernelModelMetrics, UsesEveryParameterByName) {
  rprof_kernel k = FakeKernel("n*m", "8*(n+m)");
  rprof_args args{};
  args.values[0] = 7;
  args.values[1] = 3;
  std::vector<Metric> metrics;
  Error err;
  ASSERT_TRUE(KernelModelMetrics(k, args, &metrics, &err)) << err.message;
  EXPECT_EQ(FindMetric(metrics, "flops", Source::kModel)->value, 21.0);
  EXPECT_EQ(FindMetric(metrics, "bytes_dram", Source::kModel)->value, 80.0);
}

TEST(KernelModelMetrics, BrokenFormulaNamesKernelAndFormula) {
  rprof_kernel k = FakeKernel("2*", "8*n");
  std::vector<Metric> metrics;
  Error err;
  EXPECT_FALSE(KernelModelMetrics(k, ArgsN(5), &metrics, &err));
  EXPECT_NE(err.message.find("fake-kernel"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("'2*'"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("FLOP"), std::string::npos) << err.message;
  EXPECT_TRUE(metrics.empty()) << "a failed model adds nothing";
}

TEST(KernelModelMetrics, BrokenBytesFormulaAddsNothing) {
  rprof_kernel k = FakeKernel("2*n", "(8*n");
  std::vector<Metric> metrics;
  Error err;
  EXPECT_FALSE(KernelModelMetrics(k, ArgsN(5), &metrics, &err));
  EXPECT_NE(err.message.find("byte formula '(8*n'"), std::string::npos) << err.message;
  EXPECT_TRUE(metrics.empty());
}

TEST(KernelModelMetrics, UnknownParameterInFormulaFails) {
  rprof_kernel k = FakeKernel("2*n*k", "8*n");
  std::vector<Metric> metrics;
  Error err;
  EXPECT_FALSE(KernelModelMetrics(k, ArgsN(5), &metrics, &err));
  EXPECT_NE(err.message.find("fake-kernel"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("'k'"), std::string::npos) << err.message;
  EXPECT_TRUE(metrics.empty());
}

TEST(KernelModelMetrics, NullFormulaFailsInsteadOfCrashing) {
  rprof_kernel k = FakeKernel(nullptr, "8*n");
  std::vector<Metric> metrics;
  Error err;
  EXPECT_FALSE(KernelModelMetrics(k, ArgsN(5), &metrics, &err));
  EXPECT_NE(err.message.find("fake-kernel"), std::string::npos) << err.message;
}

}  // namespace
}  // namespace rprof
