// The kernel catalog: names resolve or fail with the known list and a likely typo, parameters are
// parsed and range-checked against each kernel's declaration, and kernel sets built for another
// ABI (or breaking its limits) are refused.
#include "targets/kernel_catalog.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rprof {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const rprof_kernel& Triad() { return *BuiltinCatalog().Find("triad")->kernel; }

TEST(KernelCatalog, BuiltinKernelsAreFound) {
  const KernelCatalog& catalog = BuiltinCatalog();
  for (const char* name : {"copy", "scale", "add", "triad", "dot", "dot-fp32", "matmul-naive",
                           "matmul-naive-fp32", "matmul-ikj", "matmul-ikj-fp32"}) {
    SCOPED_TRACE(name);
    const CatalogEntry* e = catalog.Find(name);
    ASSERT_NE(e, nullptr);
    EXPECT_STREQ(e->kernel->name, name);
    EXPECT_EQ(e->origin, "builtin");
  }
  EXPECT_EQ(catalog.Find("Triad"), nullptr) << "names are case-sensitive";
}

TEST(KernelCatalog, ResolveTypoSuggestsAndListsKnownKernels) {
  Error err;
  EXPECT_EQ(BuiltinCatalog().Resolve("tirad", &err), nullptr);
  EXPECT_EQ(err.kind, ErrorKind::kUsage);
  EXPECT_TRUE(Contains(err.message, "unknown kernel 'tirad'")) << err.message;
  EXPECT_TRUE(Contains(err.message, "did you mean 'triad'?")) << err.message;
  EXPECT_TRUE(Contains(err.message, "known kernels: copy, scale, add, triad")) << err.message;
  EXPECT_TRUE(Contains(err.message, "matmul-ikj-fp32")) << err.message;
}

TEST(KernelCatalog, ResolveFarOffNameListsWithoutSuggestion) {
  Error err;
  EXPECT_EQ(BuiltinCatalog().Resolve("fourier-transform", &err), nullptr);
  EXPECT_EQ(err.kind, ErrorKind::kUsage);
  EXPECT_FALSE(Contains(err.message, "did you mean")) << err.message;
  EXPECT_TRUE(Contains(err.message, "known kernels: ")) << err.message;
}

TEST(KernelCatalog, ResolveKnownNameSucceeds) {
  Error err;
  const CatalogEntry* e = BuiltinCatalog().Resolve("dot", &err);
  ASSERT_NE(e, nullptr);
  EXPECT_STREQ(e->kernel->name, "dot");
}

class ParseKernelArgsTest : public testing::Test {
 protected:
  bool Parse(std::vector<std::string> assignments) {
    args_ = {};
    shown_.clear();
    err_ = Error();
    return ParseKernelArgs(Triad(), assignments, &args_, &shown_, &err_);
  }
  rprof_args args_{};
  KeyValues shown_;
  Error err_;
};

TEST_F(ParseKernelArgsTest, DefaultsWhenNothingGiven) {
  ASSERT_TRUE(Parse({})) << err_.message;
  EXPECT_EQ(args_.values[0], Triad().params[0].default_value);
  EXPECT_EQ(shown_, (KeyValues{{"n", std::to_string(Triad().params[0].default_value)}}));
}

TEST_F(ParseKernelArgsTest, PlainInteger) {
  ASSERT_TRUE(Parse({"n=5"})) << err_.message;
  EXPECT_EQ(args_.values[0], 5);
  EXPECT_EQ(shown_, (KeyValues{{"n", "5"}}));
}

// Issue 15: the last one silently winning measured a size the user may not have meant.
TEST_F(ParseKernelArgsTest, AParameterGivenTwiceIsRefusedNamingBoth) {
  EXPECT_FALSE(Parse({"n=5", "n=7"}));
  EXPECT_EQ(err_.kind, ErrorKind::kUsage);
  EXPECT_TRUE(Contains(err_.message, "kernel triad: parameter n given twice (n=5, n=7)"))
      << err_.message;
  EXPECT_FALSE(Parse({"n=5", "n=5"}));  // the same value twice is still a mistake in the line
}

TEST_F(ParseKernelArgsTest, ExponentNotationIsAnInteger) {
  ASSERT_TRUE(Parse({"n=1e6"})) << err_.message;
  EXPECT_EQ(args_.values[0], 1000000);
  EXPECT_EQ(shown_, (KeyValues{{"n", "1000000"}}));  // stored as the integer, not the text
  ASSERT_TRUE(Parse({"n=2e9"})) << err_.message;     // the maximum, exactly
  EXPECT_EQ(args_.values[0], 2000000000);
}

TEST_F(ParseKernelArgsTest, NonIntegersAreRefused) {
  for (const char* bad : {"n=1.5", "n=abc", "n=", "n=12abc", "n=1e", "n=0x10", "n=2.5e0"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(Parse({bad}));
    EXPECT_EQ(err_.kind, ErrorKind::kUsage);
    EXPECT_TRUE(Contains(err_.message, "is not an integer")) << err_.message;
    EXPECT_TRUE(Contains(err_.message, "kernel triad")) << err_.message;
  }
}

TEST_F(ParseKernelArgsTest, OutOfRangeIsRefusedWithTheRange) {
  // Past long long too: 1e19 once converted from double by UB and said "not an integer".
  for (const char* bad : {"n=0", "n=-5", "n=2000000001", "n=3e9", "n=1e19", "n=-1e19", "n=1e400",
                          "n=99999999999999999999"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(Parse({bad}));
    EXPECT_EQ(err_.kind, ErrorKind::kUsage);
    EXPECT_TRUE(Contains(err_.message, "out of range [1, 2000000000]")) << err_.message;
  }
}

TEST_F(ParseKernelArgsTest, UnknownParameterSuggestsAndLists) {
  EXPECT_FALSE(Parse({"m=3"}));
  EXPECT_EQ(err_.kind, ErrorKind::kUsage);
  EXPECT_TRUE(Contains(err_.message, "no parameter 'm'")) << err_.message;
  EXPECT_TRUE(Contains(err_.message, "did you mean 'n'?")) << err_.message;
  EXPECT_TRUE(Contains(err_.message, "(parameters: n)")) << err_.message;
}

TEST_F(ParseKernelArgsTest, MissingEqualsIsRefused) {
  for (const char* bad : {"n1000", "n", "=5"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(Parse({bad}));
    EXPECT_EQ(err_.kind, ErrorKind::kUsage);
    EXPECT_TRUE(Contains(err_.message, "expected NAME=VALUE")) << err_.message;
  }
}

// Hand-made kernel sets, as a plugin would export them.
const rprof_param kNineParams[9] = {{"a", "", 1, 1, 9}, {"b", "", 1, 1, 9}, {"c", "", 1, 1, 9},
                                    {"d", "", 1, 1, 9}, {"e", "", 1, 1, 9}, {"f", "", 1, 1, 9},
                                    {"g", "", 1, 1, 9}, {"h", "", 1, 1, 9}, {"i", "", 1, 1, 9}};

rprof_kernel TableOnlyKernel(const char* name, uint32_t param_count) {
  rprof_kernel k{};
  k.name = name;
  k.description = "test double";
  k.precision = RPROF_PRECISION_FP64;
  k.params = kNineParams;
  k.param_count = param_count;
  k.flops_formula = "a";
  k.bytes_formula = "8*a";
  return k;
}

TEST(KernelCatalogAddSet, AcceptsAValidSet) {
  rprof_kernel kernels[] = {TableOnlyKernel("plug-one", 1), TableOnlyKernel("plug-max", 8)};
  rprof_kernel_set set{RPROF_KERNEL_ABI_VERSION, "plugs", kernels, 2};
  KernelCatalog catalog;
  Error err;
  ASSERT_TRUE(catalog.AddSet(&set, "/tmp/libplugs.so", &err)) << err.message;
  EXPECT_EQ(catalog.Names(), (std::vector<std::string>{"plug-one", "plug-max"}));
  ASSERT_NE(catalog.Find("plug-max"), nullptr);
  EXPECT_EQ(catalog.Find("plug-max")->origin, "/tmp/libplugs.so");
}

TEST(KernelCatalogAddSet, RefusesAnotherAbiVersionNamingBoth) {
  rprof_kernel kernels[] = {TableOnlyKernel("plug-one", 1)};
  rprof_kernel_set set{999, "future", kernels, 1};
  KernelCatalog catalog;
  Error err;
  EXPECT_FALSE(catalog.AddSet(&set, "/tmp/libfuture.so", &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, "/tmp/libfuture.so")) << err.message;
  EXPECT_TRUE(Contains(err.message, "version 999")) << err.message;
  EXPECT_TRUE(Contains(err.message, "version " + std::to_string(RPROF_KERNEL_ABI_VERSION)))
      << err.message;
  EXPECT_TRUE(catalog.entries().empty());
}

TEST(KernelCatalogAddSet, RefusesTooManyParameters) {
  rprof_kernel kernels[] = {TableOnlyKernel("plug-wide", RPROF_MAX_PARAMS + 1)};
  rprof_kernel_set set{RPROF_KERNEL_ABI_VERSION, "wide", kernels, 1};
  KernelCatalog catalog;
  Error err;
  EXPECT_FALSE(catalog.AddSet(&set, "/tmp/libwide.so", &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_TRUE(Contains(err.message, "plug-wide")) << err.message;
  EXPECT_TRUE(Contains(err.message, "9 parameters")) << err.message;
  EXPECT_TRUE(Contains(err.message, "allows 8")) << err.message;
  EXPECT_EQ(catalog.Find("plug-wide"), nullptr);
}

TEST(KernelCatalogAddSet, RefusedSetAddsNoneOfItsKernels) {
  // A set is accepted whole or not at all: its valid first kernel must not stay behind.
  rprof_kernel kernels[] = {TableOnlyKernel("plug-fine", 1),
                            TableOnlyKernel("plug-wide", RPROF_MAX_PARAMS + 1)};
  rprof_kernel_set set{RPROF_KERNEL_ABI_VERSION, "mixed", kernels, 2};
  KernelCatalog catalog;
  Error err;
  EXPECT_FALSE(catalog.AddSet(&set, "/tmp/libmixed.so", &err));
  EXPECT_EQ(catalog.Find("plug-fine"), nullptr) << "a kernel of a refused set was added";
  EXPECT_TRUE(catalog.entries().empty());
}

TEST(PrecisionName, NamesEachPrecision) {
  EXPECT_STREQ(PrecisionName(RPROF_PRECISION_FP64), "fp64");
  EXPECT_STREQ(PrecisionName(RPROF_PRECISION_FP32), "fp32");
  EXPECT_STREQ(PrecisionName(RPROF_PRECISION_NONE), "");
}

}  // namespace
}  // namespace rprof
