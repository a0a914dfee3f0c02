// The built-in kernel set: its table is well-formed, and every kernel sets up, runs repeatably,
// passes its own check after a run and fails it before one. The dot and matmul checks are also
// driven directly on data the test controls, to show their tolerances reject real errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "builtin_kernels.h"
#include "kernel_families.h"
#include "rprof/kernel.h"

namespace rprof {
namespace {

std::vector<const rprof_kernel*> AllKernels() {
  const rprof_kernel_set* set = rprof_builtin_kernels();
  std::vector<const rprof_kernel*> kernels;
  for (uint32_t i = 0; i < set->kernel_count; ++i) kernels.push_back(&set->kernels[i]);
  return kernels;
}

// The first families (STREAM, dot, matmul naive/ikj), each with the one parameter n; the
// curriculum kernels that follow them have their own test (kernels_curriculum_test.cc).
std::vector<const rprof_kernel*> FoundationKernels() {
  std::vector<const rprof_kernel*> kernels;
  for (auto family : {StreamKernels(), DotKernels(), MatmulKernels()})
    for (const rprof_kernel& k : family) kernels.push_back(&k);
  return kernels;
}

// The identifiers a formula reads ("2*n*n*n" reads n).
std::set<std::string> FormulaNames(const std::string& formula) {
  std::set<std::string> names;
  for (size_t i = 0; i < formula.size();) {
    if (std::isalpha(static_cast<unsigned char>(formula[i])) || formula[i] == '_') {
      size_t end = i;
      while (end < formula.size() &&
             (std::isalnum(static_cast<unsigned char>(formula[end])) || formula[end] == '_')) {
        ++end;
      }
      names.insert(formula.substr(i, end - i));
      i = end;
    } else {
      ++i;
    }
  }
  return names;
}

TEST(BuiltinKernelSet, HasTheDocumentedKernelsInOrder) {
  const rprof_kernel_set* set = rprof_builtin_kernels();
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->abi_version, RPROF_KERNEL_ABI_VERSION);
  EXPECT_STREQ(set->name, "builtin");
  std::vector<std::string> names;
  for (const rprof_kernel* k : AllKernels()) names.push_back(k->name);
  const std::vector<std::string> first = {
      "copy",       "scale",          "add",          "triad",
      "dot",        "dot-fp32",       "matmul-naive", "matmul-naive-fp32",
      "matmul-ikj", "matmul-ikj-fp32"};
  ASSERT_GE(names.size(), first.size());
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + first.size()), first)
      << "the foundation kernels come first, in this order";
  EXPECT_EQ(set, rprof_builtin_kernels()) << "the set must be one static object";
}

TEST(BuiltinKernelSet, TableIsWellFormed) {
  std::set<std::string> seen;
  for (const rprof_kernel* k : AllKernels()) {
    SCOPED_TRACE(k->name);
    const std::string name = k->name;
    EXPECT_TRUE(seen.insert(name).second) << "duplicate name";
    for (char ch : name) {
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(ch)) ||
                  std::isdigit(static_cast<unsigned char>(ch)) || ch == '-')
          << "name must be lower-case letters, digits and dashes";
    }
    ASSERT_NE(k->description, nullptr);
    const std::string description = k->description;
    EXPECT_FALSE(description.empty());
    EXPECT_EQ(description.find('\n'), std::string::npos) << "description must be one line";

    // A "-fp32" name always means fp32; names without it are fp64 among the foundation
    // kernels (the curriculum ones, gemv say, are fp32 by nature and say so).
    if (name.ends_with("-fp32")) {
      EXPECT_EQ(k->precision, RPROF_PRECISION_FP32);
    }
    const std::vector<const rprof_kernel*> foundation = FoundationKernels();
    if (name.find("fp32") == std::string::npos &&
        std::find(foundation.begin(), foundation.end(), k) != foundation.end()) {
      EXPECT_EQ(k->precision, RPROF_PRECISION_FP64);
    }

    ASSERT_LE(k->param_count, static_cast<uint32_t>(RPROF_MAX_PARAMS));
    std::set<std::string> param_names;
    for (uint32_t p = 0; p < k->param_count; ++p) {
      const rprof_param& param = k->params[p];
      SCOPED_TRACE(param.name);
      EXPECT_TRUE(param_names.insert(param.name).second) << "duplicate parameter";
      EXPECT_NE(std::string(param.description), "");
      EXPECT_LE(param.min_value, param.default_value);
      EXPECT_LE(param.default_value, param.max_value);
    }

    ASSERT_NE(k->flops_formula, nullptr);
    ASSERT_NE(k->bytes_formula, nullptr);
    EXPECT_NE(std::string(k->flops_formula), "");
    EXPECT_NE(std::string(k->bytes_formula), "");
    for (const char* formula : {k->flops_formula, k->bytes_formula}) {
      for (const std::string& used : FormulaNames(formula)) {
        EXPECT_TRUE(param_names.contains(used))
            << "formula '" << formula << "' reads '" << used << "', which is not a parameter";
      }
    }
    EXPECT_NE(k->setup, nullptr);
    EXPECT_NE(k->run, nullptr);
    EXPECT_NE(k->check, nullptr);
    EXPECT_NE(k->teardown, nullptr);
  }
}

class KernelRunTest : public testing::TestWithParam<const rprof_kernel*> {};

TEST_P(KernelRunTest, RunsRepeatablyAndChecks) {
  const rprof_kernel& k = *GetParam();
  ASSERT_EQ(k.param_count, 1u);
  ASSERT_STREQ(k.params[0].name, "n");
  rprof_args args = {};
  // Small sizes keep the test fast; 33 is odd so the vector loops' remainder paths run too.
  args.values[0] = std::string(k.name).starts_with("matmul") ? 33 : 1000;

  rprof_error err = {};
  void* state = k.setup(&args, &err);
  ASSERT_NE(state, nullptr) << err.message;

  err = {};
  EXPECT_EQ(k.check(state, &err), 0) << "check passed before any run";
  EXPECT_NE(std::string(err.message), "") << "a failed check must say why";

  k.run(state);
  k.run(state);
  err = {};
  EXPECT_EQ(k.check(state, &err), 1) << err.message;
  k.teardown(state);
}

INSTANTIATE_TEST_SUITE_P(Builtin, KernelRunTest, testing::ValuesIn(FoundationKernels()),
                         [](const testing::TestParamInfo<const rprof_kernel*>& param_info) {
                           std::string name = param_info.param->name;
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

// A reference computed in long double and rounded once to T: the most accurate result T holds.
template <typename T>
std::vector<T> ExactProduct(const std::vector<T>& a, const std::vector<T>& b, int n) {
  std::vector<T> c(n * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      long double sum = 0;
      for (int k = 0; k < n; ++k) sum += static_cast<long double>(a[i * n + k]) * b[k * n + j];
      c[i * n + j] = static_cast<T>(sum);
    }
  }
  return c;
}

template <typename T>
class CheckTest : public testing::Test {};
using Precisions = testing::Types<float, double>;
TYPED_TEST_SUITE(CheckTest, Precisions);

TYPED_TEST(CheckTest, MatmulAcceptsTheProductAndRejectsAnError) {
  using T = TypeParam;
  const int n = 33;
  std::vector<T> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<T>((i % 7) - 3) / 4;  // mixed signs, exact in both precisions
    b[i] = static_cast<T>((i % 11) - 5) / 8;
  }
  std::vector<T> c = ExactProduct(a, b, n);
  rprof_error err = {};
  EXPECT_TRUE(CheckMatmul(a.data(), b.data(), c.data(), n, &err)) << err.message;

  // 1e-3 is far above the tolerance (8*sqrt(33)*u relative to sum |a*b|, about 3e-6 for fp32)
  // yet small beside most entries, so a tolerance taken loosely relative to |C[i][j]| would let
  // it through.
  for (T& entry : c) entry += static_cast<T>(1e-3);
  err = {};
  EXPECT_FALSE(CheckMatmul(a.data(), b.data(), c.data(), n, &err));
  EXPECT_NE(std::string(err.message).find("exceeds tolerance"), std::string::npos) << err.message;
}

TYPED_TEST(CheckTest, DotAcceptsTheSumAndRejectsAnError) {
  using T = TypeParam;
  const int n = 1000;
  std::vector<T> x(n), y(n);
  long double sum = 0;
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<T>(i % 13) / 16;
    y[i] = static_cast<T>(i % 5) / 4;
    sum += static_cast<long double>(x[i]) * y[i];
  }
  rprof_error err = {};
  EXPECT_TRUE(CheckDot(x.data(), y.data(), n, static_cast<T>(sum), &err)) << err.message;

  // A relative error of 1e-3 is one dropped term in a thousand: well above the tolerance
  // (8*sqrt(1000)*u, 1.5e-5 for fp32).
  err = {};
  EXPECT_FALSE(CheckDot(x.data(), y.data(), n, static_cast<T>(sum * 1.001L), &err));
  EXPECT_NE(std::string(err.message).find("exceeds tolerance"), std::string::npos) << err.message;
}

}  // namespace
}  // namespace rprof
