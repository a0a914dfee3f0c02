// The curriculum's kernels (matmul-tiled ... stencil): each sets up, fails its check before a run,
// runs twice and passes it, at small awkward sizes (odd, not multiples of any tile or vector
// width, past one cache block where there are blocks); two threads compute what one does; their
// formulas parse, read only their own parameters and state the claims the kernels exist for;
// and the checks, driven on data the test controls, reject a real error.
#include <dirent.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "builtin_kernels.h"
#include "core/formula.h"
#include "kernel_families.h"
#include "rprof/kernel.h"

namespace rprof {
namespace {

using Params = std::map<std::string, int64_t>;

const rprof_kernel* FindKernel(const std::string& name) {
  const rprof_kernel_set* set = rprof_builtin_kernels();
  for (uint32_t i = 0; i < set->kernel_count; ++i) {
    if (name == set->kernels[i].name) return &set->kernels[i];
  }
  return nullptr;
}

// The kernel's defaults with `params` put over them; fails the test on a name it does not have.
rprof_args Args(const rprof_kernel& kernel, const Params& params) {
  rprof_args args = {};
  for (uint32_t p = 0; p < kernel.param_count; ++p) {
    args.values[p] = kernel.params[p].default_value;
  }
  for (const auto& [name, value] : params) {
    bool found = false;
    for (uint32_t p = 0; p < kernel.param_count; ++p) {
      if (name == kernel.params[p].name) {
        args.values[p] = value;
        found = true;
      }
    }
    EXPECT_TRUE(found) << kernel.name << " has no parameter " << name;
  }
  return args;
}

// A kernel's state, torn down at the end of the scope.
class Instance {
 public:
  Instance(const rprof_kernel& kernel, const Params& params) : kernel_(kernel) {
    const rprof_args args = Args(kernel, params);
    state_ = kernel.setup(&args, &err_);
  }
  ~Instance() {
    if (state_ != nullptr) kernel_.teardown(state_);
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  void* state() const { return state_; }
  const char* setup_error() const { return err_.message; }
  void Run() { kernel_.run(state_); }
  // The check's verdict, and its message in *message.
  bool Check(std::string* message) {
    rprof_error err = {};
    const bool ok = kernel_.check(state_, &err) == 1;
    *message = err.message;
    return ok;
  }

 private:
  const rprof_kernel& kernel_;
  rprof_error err_ = {};
  void* state_ = nullptr;
};

// The output array of a state, through the family's accessor; empty for matmul-blas.
std::span<const std::byte> Result(const rprof_kernel& kernel, void* state) {
  const std::string name = kernel.name;
  if (name.starts_with("matmul-tiled") || name.starts_with("matmul-simd")) {
    return MatmulFastResult(kernel, state);
  }
  if (name.starts_with("gemv") || name == "matmul-batch") return GemvResult(state);
  if (name == "softmax" || name == "layernorm" || name == "residual-add") {
    return TransformerOpResult(state);
  }
  if (name.starts_with("attention")) return AttentionResult(state);
  if (name == "stencil") return StencilResult(state);
  return {};
}

struct Case {
  const char* kernel;
  Params params;
};

// How gtest shows a Case in a failure: "attention-tiled seq=67 d=13 block=7".
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.kernel;
  for (const auto& [name, value] : c.params) *os << " " << name << "=" << value;
}

// Every curriculum kernel at sizes that exercise its edges. matmul-simd's 301 passes one kc
// block (256) and one mc block (144 fp32, 72 fp64) and is a multiple of neither tile side;
// attention-tiled's d = 70 passes the 64-column chunk of its inner loops, its seq = 130 ends in a
// partial key block and a partial query block.
std::vector<Case> Cases() {
  return {
      {"matmul-tiled", {{"n", 37}, {"b", 5}}},
      {"matmul-tiled-fp32", {{"n", 37}, {"b", 8}}},
      {"matmul-simd", {{"n", 301}}},
      {"matmul-simd-fp32", {{"n", 301}}},
      {"matmul-simd-fp32", {{"n", 7}}},
      {"matmul-blas", {{"n", 37}}},
      {"matmul-blas-fp32", {{"n", 37}}},
      {"gemv", {{"m", 37}, {"k", 1001}}},
      {"gemv-int8", {{"m", 37}, {"k", 1001}}},
      {"matmul-batch", {{"m", 37}, {"k", 101}, {"batch", 1}}},
      {"matmul-batch", {{"m", 37}, {"k", 101}, {"batch", 5}}},
      {"softmax", {{"rows", 7}, {"cols", 1001}}},
      {"layernorm", {{"rows", 7}, {"cols", 1001}}},
      {"layernorm", {{"rows", 3}, {"cols", 1}}},
      {"residual-add", {{"n", 1001}}},
      {"attention-naive", {{"seq", 67}, {"d", 13}}},
      {"attention-tiled", {{"seq", 67}, {"d", 13}, {"block", 7}}},
      {"attention-tiled", {{"seq", 130}, {"d", 70}, {"block", 64}}},
      {"attention-tiled", {{"seq", 40}, {"d", 8}, {"block", 1}}},
      {"stencil", {{"n", 37}}},
      {"stencil", {{"n", 3}}},
  };
}

std::string CaseName(const testing::TestParamInfo<Case>& info) {
  std::string name = info.param.kernel;
  for (const auto& [param, value] : info.param.params) name += "_" + param + std::to_string(value);
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

class CurriculumKernelTest : public testing::TestWithParam<Case> {};

TEST_P(CurriculumKernelTest, FailsBeforeARunThenRunsTwiceAndChecks) {
  const rprof_kernel* kernel = FindKernel(GetParam().kernel);
  if (kernel == nullptr && std::string(GetParam().kernel).starts_with("matmul-blas")) {
    GTEST_SKIP() << "not built: Meson did not find OpenBLAS";
  }
  ASSERT_NE(kernel, nullptr);
  Instance instance(*kernel, GetParam().params);
  ASSERT_NE(instance.state(), nullptr) << instance.setup_error();
  std::string message;
  EXPECT_FALSE(instance.Check(&message)) << "check passed before any run";
  EXPECT_NE(message, "") << "a failed check must say why";
  instance.Run();
  instance.Run();
  EXPECT_TRUE(instance.Check(&message)) << message;
}

INSTANTIATE_TEST_SUITE_P(Curriculum, CurriculumKernelTest, testing::ValuesIn(Cases()), CaseName);

// ---- threads ----

// Two threads split the rows; each row is computed by the same code in the same order as with
// one, so the results are the same bits. matmul-blas only has to pass its check: how OpenBLAS
// splits the work is its own.
class ThreadsTest : public testing::TestWithParam<Case> {};

TEST_P(ThreadsTest, TwoThreadsComputeWhatOneDoes) {
  const rprof_kernel* kernel = FindKernel(GetParam().kernel);
  if (kernel == nullptr && std::string(GetParam().kernel).starts_with("matmul-blas")) {
    GTEST_SKIP() << "not built: Meson did not find OpenBLAS";
  }
  ASSERT_NE(kernel, nullptr);
  Params one = GetParam().params;
  Params two = one;
  one["threads"] = 1;
  two["threads"] = 2;
  Instance single(*kernel, one);
  Instance pair(*kernel, two);
  ASSERT_NE(single.state(), nullptr) << single.setup_error();
  ASSERT_NE(pair.state(), nullptr) << pair.setup_error();
  single.Run();
  pair.Run();
  pair.Run();
  std::string message;
  EXPECT_TRUE(pair.Check(&message)) << message;
  const std::span<const std::byte> a = Result(*kernel, single.state());
  const std::span<const std::byte> b = Result(*kernel, pair.state());
  if (std::string(kernel->name).starts_with("matmul-blas")) return;
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0) << "results differ";
}

std::vector<Case> ThreadCases() {
  return {
      {"matmul-tiled", {{"n", 37}, {"b", 5}}},
      {"matmul-simd", {{"n", 301}}},
      {"matmul-simd-fp32", {{"n", 301}}},
      {"matmul-blas-fp32", {{"n", 37}}},
      {"gemv", {{"m", 37}, {"k", 1001}}},
      {"gemv-int8", {{"m", 37}, {"k", 1001}}},
      {"matmul-batch", {{"m", 37}, {"k", 101}, {"batch", 5}}},
      {"softmax", {{"rows", 7}, {"cols", 1001}}},
      {"layernorm", {{"rows", 7}, {"cols", 1001}}},
      {"residual-add", {{"n", 1001}}},
      {"attention-naive", {{"seq", 67}, {"d", 13}}},
      {"attention-tiled", {{"seq", 130}, {"d", 70}, {"block", 64}}},
      {"stencil", {{"n", 37}}},
  };
}

INSTANTIATE_TEST_SUITE_P(Curriculum, ThreadsTest, testing::ValuesIn(ThreadCases()), CaseName);

// Threads of this process, from /proc/self/task.
int ThreadCount() {
  int count = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] != '.') ++count;
    }
    closedir(dir);
  }
  return count;
}

TEST(WorkerPool, OneThreadStartsNoneAndNThreadsStartNMinusOne) {
  const rprof_kernel* kernel = FindKernel("residual-add");
  ASSERT_NE(kernel, nullptr);
  const int before = ThreadCount();
  ASSERT_GT(before, 0) << "cannot read /proc/self/task";
  {
    Instance single(*kernel, {{"n", 100}, {"threads", 1}});
    single.Run();
    EXPECT_EQ(ThreadCount(), before);
  }
  {
    Instance four(*kernel, {{"n", 100}, {"threads", 4}});
    four.Run();
    EXPECT_EQ(ThreadCount(), before + 3);
  }
  EXPECT_EQ(ThreadCount(), before) << "teardown must join the pool's threads";
}

// ---- the same math ----

TEST(SameMath, GemvInt8ComputesGemvsProduct) {
  // The fp32 kernels' weights are exactly the int8 weights times their row scales, so the two
  // differ only by rounding: far less than 1e-3 of outputs whose size is tens.
  const rprof_kernel* fp32 = FindKernel("gemv");
  const rprof_kernel* int8 = FindKernel("gemv-int8");
  ASSERT_NE(fp32, nullptr);
  ASSERT_NE(int8, nullptr);
  Instance a(*fp32, {{"m", 37}, {"k", 1001}});
  Instance b(*int8, {{"m", 37}, {"k", 1001}});
  a.Run();
  b.Run();
  const std::span<const std::byte> ya = GemvResult(a.state());
  const std::span<const std::byte> yb = GemvResult(b.state());
  ASSERT_EQ(ya.size(), 37 * sizeof(float));
  ASSERT_EQ(yb.size(), ya.size());
  const auto* fa = reinterpret_cast<const float*>(ya.data());
  const auto* fb = reinterpret_cast<const float*>(yb.data());
  double largest = 0;
  for (int i = 0; i < 37; ++i) {
    EXPECT_NEAR(fa[i], fb[i], 1e-3) << "row " << i;
    largest = std::max(largest, std::fabs(static_cast<double>(fa[i])));
  }
  EXPECT_GT(largest, 1.0) << "outputs this small would make the comparison meaningless";
}

TEST(SameMath, MatmulBatchAtBatchOneIsGemv) {
  const rprof_kernel* gemv = FindKernel("gemv");
  const rprof_kernel* batch = FindKernel("matmul-batch");
  ASSERT_NE(gemv, nullptr);
  ASSERT_NE(batch, nullptr);
  Instance a(*gemv, {{"m", 37}, {"k", 101}});
  Instance b(*batch, {{"m", 37}, {"k", 101}, {"batch", 1}});
  a.Run();
  b.Run();
  const std::span<const std::byte> ya = GemvResult(a.state());
  const std::span<const std::byte> yb = GemvResult(b.state());
  ASSERT_EQ(ya.size(), yb.size());
  EXPECT_EQ(std::memcmp(ya.data(), yb.data(), ya.size()), 0) << "the same code on the same data";
}

TEST(SameMath, NaiveAndTiledAttentionAgree) {
  const rprof_kernel* naive = FindKernel("attention-naive");
  const rprof_kernel* tiled = FindKernel("attention-tiled");
  ASSERT_NE(naive, nullptr);
  ASSERT_NE(tiled, nullptr);
  Instance a(*naive, {{"seq", 100}, {"d", 16}});
  Instance b(*tiled, {{"seq", 100}, {"d", 16}, {"block", 16}});
  a.Run();
  b.Run();
  const std::span<const std::byte> oa = AttentionResult(a.state());
  const std::span<const std::byte> ob = AttentionResult(b.state());
  ASSERT_EQ(oa.size(), ob.size());
  const auto* fa = reinterpret_cast<const float*>(oa.data());
  const auto* fb = reinterpret_cast<const float*>(ob.data());
  for (size_t i = 0; i < oa.size() / sizeof(float); ++i) {
    ASSERT_NEAR(fa[i], fb[i], 1e-5) << "element " << i;
  }
}

// ---- formulas ----

const char* const kCurriculumKernels[] = {
    "matmul-tiled",    "matmul-tiled-fp32", "matmul-simd", "matmul-simd-fp32",
    "matmul-blas",     "matmul-blas-fp32",  "gemv",        "gemv-int8",
    "matmul-batch",    "softmax",           "layernorm",   "residual-add",
    "attention-naive", "attention-tiled",   "stencil"};

// The formula evaluated with the kernel's defaults and `params` over them.
double Evaluate(const rprof_kernel& kernel, const char* text, const Params& params = {}) {
  Error err;
  std::optional<Formula> formula = Formula::Parse(text, &err);
  EXPECT_TRUE(formula.has_value()) << kernel.name << ": '" << text << "': " << err.message;
  if (!formula) return std::nan("");
  const rprof_args args = Args(kernel, params);
  Error why;
  std::optional<double> value = formula->Evaluate(
      [&](std::string_view name) -> std::optional<double> {
        for (uint32_t p = 0; p < kernel.param_count; ++p) {
          if (name == kernel.params[p].name) return static_cast<double>(args.values[p]);
        }
        return std::nullopt;
      },
      &why);
  EXPECT_TRUE(value.has_value()) << kernel.name << ": '" << text << "': " << why.message;
  return value.value_or(std::nan(""));
}

TEST(Formulas, ReadOnlyDeclaredParametersAndArePositiveAtTheDefaults) {
  for (const char* name : kCurriculumKernels) {
    SCOPED_TRACE(name);
    const rprof_kernel* kernel = FindKernel(name);
    if (kernel == nullptr && std::string(name).starts_with("matmul-blas")) continue;
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->precision,
              std::string(name) == "matmul-tiled" || std::string(name) == "matmul-simd" ||
                      std::string(name) == "matmul-blas" || std::string(name) == "stencil"
                  ? RPROF_PRECISION_FP64
                  : RPROF_PRECISION_FP32);
    for (const char* text : {kernel->flops_formula, kernel->bytes_formula}) {
      Error err;
      std::optional<Formula> formula = Formula::Parse(text, &err);
      ASSERT_TRUE(formula.has_value()) << text << ": " << err.message;
      for (const std::string& used : formula->names()) {
        bool declared = false;
        for (uint32_t p = 0; p < kernel->param_count; ++p) {
          declared = declared || used == kernel->params[p].name;
        }
        EXPECT_TRUE(declared) << "'" << text << "' reads '" << used << "', not a parameter";
      }
      const double value = Evaluate(*kernel, text);
      EXPECT_GT(value, 0) << text;
      EXPECT_TRUE(std::isfinite(value)) << text;
    }
    bool has_threads = false;
    for (uint32_t p = 0; p < kernel->param_count; ++p) {
      if (std::string(kernel->params[p].name) == "threads") {
        has_threads = true;
        EXPECT_EQ(kernel->params[p].default_value, 1);
        EXPECT_EQ(kernel->params[p].min_value, 1);
        EXPECT_EQ(kernel->params[p].max_value, 256);
      }
    }
    EXPECT_TRUE(has_threads);
  }
}

// The claims the kernels exist for, as their own models state them.
TEST(Formulas, StateTheCurriculumsClaims) {
  // Quantisation: same FLOPs (plus one multiply per row), a quarter of the bytes.
  const rprof_kernel& gemv = *FindKernel("gemv");
  const rprof_kernel& int8 = *FindKernel("gemv-int8");
  EXPECT_NEAR(Evaluate(int8, int8.flops_formula) / Evaluate(gemv, gemv.flops_formula), 1, 1e-3);
  EXPECT_LT(Evaluate(int8, int8.bytes_formula) / Evaluate(gemv, gemv.bytes_formula), 0.26);
  // Default weights beyond a 32 MiB L3 in both precisions: both DRAM-bound.
  EXPECT_GE(Evaluate(int8, "m*k"), 64.0 * 1024 * 1024);

  // Inference vs training: intensity grows with the batch, from gemv's 0.5 FLOP/B.
  const rprof_kernel& batch = *FindKernel("matmul-batch");
  auto intensity = [&](int64_t b) {
    return Evaluate(batch, batch.flops_formula, {{"batch", b}}) /
           Evaluate(batch, batch.bytes_formula, {{"batch", b}});
  };
  EXPECT_NEAR(intensity(1), 0.5, 0.01);
  EXPECT_GT(intensity(64), 25);

  // Flash attention: the same FLOPs (within the online softmax's bookkeeping), far fewer bytes.
  const rprof_kernel& naive = *FindKernel("attention-naive");
  const rprof_kernel& tiled = *FindKernel("attention-tiled");
  EXPECT_NEAR(Evaluate(tiled, tiled.flops_formula) / Evaluate(naive, naive.flops_formula), 1, 0.01);
  EXPECT_GT(Evaluate(naive, naive.bytes_formula) / Evaluate(tiled, tiled.bytes_formula), 10);

  // The memory-bound operations sit below 4 FLOP/B, matmul far above.
  for (const char* name : {"softmax", "layernorm", "residual-add", "stencil", "gemv"}) {
    const rprof_kernel& k = *FindKernel(name);
    EXPECT_LT(Evaluate(k, k.flops_formula) / Evaluate(k, k.bytes_formula), 4) << name;
  }
  const rprof_kernel& simd = *FindKernel("matmul-simd-fp32");
  EXPECT_GT(Evaluate(simd, simd.flops_formula) / Evaluate(simd, simd.bytes_formula), 100);
}

// ---- the checks reject real errors ----

// Mixed-sign values from a small integer pattern, exact in fp32.
std::vector<float> Pattern(int count, int modulus, float divisor, float offset = 0) {
  std::vector<float> v(count);
  for (int i = 0; i < count; ++i) v[i] = static_cast<float>((i * 7) % modulus) / divisor + offset;
  return v;
}

// Expects `check` to pass on the exact result and to fail, saying why, once `corrupt` has
// changed it.
template <typename CheckFn, typename CorruptFn>
void ExpectAcceptsThenRejects(CheckFn check, CorruptFn corrupt, const char* why) {
  rprof_error err = {};
  EXPECT_TRUE(check(&err)) << err.message;
  corrupt();
  err = {};
  EXPECT_FALSE(check(&err));
  EXPECT_NE(std::string(err.message).find(why), std::string::npos) << err.message;
}

TEST(Checks, GemvAcceptsTheProductAndRejectsAnError) {
  const int m = 9, k = 501, batch = 3;
  std::vector<float> w = Pattern(m * k, 11, 4, -1.25f);
  std::vector<float> x = Pattern(batch * k, 13, 8, -0.75f);
  std::vector<float> y(batch * m);
  for (int t = 0; t < batch; ++t) {
    for (int i = 0; i < m; ++i) {
      long double sum = 0;
      for (int j = 0; j < k; ++j) sum += static_cast<long double>(w[i * k + j]) * x[t * k + j];
      y[t * m + i] = static_cast<float>(sum);
    }
  }
  // 1e-3 relative to the row's magnitude: far above 8*sqrt(502)*u (2e-5).
  ExpectAcceptsThenRejects(
      [&](rprof_error* err) { return CheckGemv(w.data(), x.data(), y.data(), m, k, batch, err); },
      [&] { y[2 * m + 5] += 1e-3f * std::fabs(y[2 * m + 5]) + 0.5f; }, "exceeds tolerance");
}

TEST(Checks, GemvInt8AcceptsTheProductAndRejectsAnError) {
  const int m = 9, k = 501;
  std::vector<int8_t> q(m * k);
  for (int i = 0; i < m * k; ++i) q[i] = static_cast<int8_t>((i * 37) % 255 - 127);
  std::vector<float> scale = Pattern(m, 5, 64, 0.01f);
  std::vector<float> x = Pattern(k, 13, 8, -0.75f);
  std::vector<float> y(m);
  for (int i = 0; i < m; ++i) {
    long double sum = 0;
    for (int j = 0; j < k; ++j) sum += static_cast<long double>(q[i * k + j]) * x[j];
    y[i] = static_cast<float>(sum * scale[i]);
  }
  ExpectAcceptsThenRejects(
      [&](rprof_error* err) {
        return CheckGemvInt8(q.data(), scale.data(), x.data(), y.data(), m, k, err);
      },
      [&] { y[4] *= 1.01f; }, "exceeds tolerance");
}

TEST(Checks, SoftmaxAcceptsTheResultAndRejectsAnError) {
  const int rows = 3, cols = 1001;
  std::vector<float> x = Pattern(rows * cols, 17, 2, -4);
  std::vector<float> y(rows * cols);
  for (int i = 0; i < rows; ++i) {
    long double max = -INFINITY, sum = 0;
    for (int j = 0; j < cols; ++j) max = std::max<long double>(max, x[i * cols + j]);
    for (int j = 0; j < cols; ++j) sum += std::exp(x[i * cols + j] - max);
    for (int j = 0; j < cols; ++j)
      y[i * cols + j] = static_cast<float>(std::exp(x[i * cols + j] - max) / sum);
  }
  // A relative error of 1e-4: what an exp good to only 4 digits would give; the tolerance is
  // 8*sqrt(1001)*u + 16u, about 1.5e-5.
  ExpectAcceptsThenRejects(
      [&](rprof_error* err) { return CheckSoftmax(x.data(), y.data(), rows, cols, err); },
      [&] { y[1 * cols + 500] *= static_cast<float>(1 + 1e-4); }, "exceeds tolerance");
}

TEST(Checks, LayernormAcceptsTheResultAndRejectsAnError) {
  const int rows = 3, cols = 1001;
  std::vector<float> x = Pattern(rows * cols, 17, 8, 0.5f);
  std::vector<float> gamma = Pattern(cols, 5, 4, 0.5f);
  std::vector<float> beta = Pattern(cols, 3, 16, -0.0625f);
  std::vector<float> y(rows * cols);
  for (int i = 0; i < rows; ++i) {
    long double sum = 0, squares = 0;
    for (int j = 0; j < cols; ++j) sum += x[i * cols + j];
    const long double mean = sum / cols;
    for (int j = 0; j < cols; ++j) squares += (x[i * cols + j] - mean) * (x[i * cols + j] - mean);
    const long double rstd = 1 / std::sqrt(squares / cols + 1e-5L);
    for (int j = 0; j < cols; ++j) {
      y[i * cols + j] = static_cast<float>((x[i * cols + j] - mean) * rstd * gamma[j] + beta[j]);
    }
  }
  ExpectAcceptsThenRejects(
      [&](rprof_error* err) {
        return CheckLayernorm(x.data(), gamma.data(), beta.data(), y.data(), rows, cols, err);
      },
      [&] { y[2 * cols + 7] += 1e-3f; }, "exceeds tolerance");
}

TEST(Checks, ResidualAddIsExact) {
  std::vector<float> x = Pattern(100, 17, 3, -2), r = Pattern(100, 13, 7, -1), y(100);
  for (int i = 0; i < 100; ++i) y[i] = x[i] + r[i];
  // One ulp off is wrong: the sum of two floats has one correct answer.
  ExpectAcceptsThenRejects(
      [&](rprof_error* err) { return CheckResidualAdd(x.data(), r.data(), y.data(), 100, err); },
      [&] { y[42] = std::nextafter(y[42], INFINITY); }, "expected");
}

TEST(Checks, AttentionAcceptsTheResultAndRejectsAnError) {
  const int seq = 50, d = 8;
  std::vector<float> q = Pattern(seq * d, 11, 8, -0.6f), k = Pattern(seq * d, 13, 8, -0.7f),
                     v = Pattern(seq * d, 7, 4, -0.8f), o(seq * d);
  for (int i = 0; i < seq; ++i) {
    std::vector<long double> s(seq);
    long double max = -INFINITY, sum = 0;
    for (int j = 0; j < seq; ++j) {
      for (int p = 0; p < d; ++p) s[j] += static_cast<long double>(q[i * d + p]) * k[j * d + p];
      max = std::max(max, s[j]);
    }
    for (int j = 0; j < seq; ++j) sum += (s[j] = std::exp((s[j] - max) / std::sqrt(8.0L)));
    for (int c = 0; c < d; ++c) {
      long double out = 0;
      for (int j = 0; j < seq; ++j) out += s[j] * v[j * d + c];
      o[i * d + c] = static_cast<float>(out / sum);
    }
  }
  ExpectAcceptsThenRejects(
      [&](rprof_error* err) {
        return CheckAttention(q.data(), k.data(), v.data(), o.data(), seq, d, err);
      },
      [&] { o[17 * d + 3] += 1e-3f; }, "exceeds tolerance");
}

TEST(Checks, StencilAcceptsTheSweepAndRejectsAnError) {
  const int n = 9;
  std::vector<double> in(n * n), out(n * n, 0.0);
  for (int i = 0; i < n * n; ++i) in[i] = static_cast<double>((i * 7) % 10) / 10;
  for (int i = 1; i < n - 1; ++i) {
    for (int j = 1; j < n - 1; ++j) {
      out[i * n + j] = 0.2 * (in[i * n + j] + in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                              in[i * n + j + 1] + in[i * n + j - 1]);
    }
  }
  // 1e-12 relative: far below any fp32 error, far above fp64 rounding (6 ulps, 1e-15).
  ExpectAcceptsThenRejects(
      [&](rprof_error* err) { return CheckStencil(in.data(), out.data(), n, err); },
      [&] { out[4 * n + 4] *= 1 + 1e-12; }, "exceeds tolerance");
}

TEST(Checks, MatmulChecksTheFastKernelsResults) {
  // matmul-tiled and matmul-simd reuse matmul.cc's CheckMatmul; a corrupted C from a real run
  // fails it.
  const rprof_kernel* kernel = FindKernel("matmul-simd-fp32");
  ASSERT_NE(kernel, nullptr);
  Instance instance(*kernel, {{"n", 33}});
  instance.Run();
  std::string message;
  ASSERT_TRUE(instance.Check(&message)) << message;
  std::span<const std::byte> c = MatmulFastResult(*kernel, instance.state());
  // The span is the state's own array: writable through a const_cast in this test only.
  auto* entries = const_cast<float*>(reinterpret_cast<const float*>(c.data()));
  for (size_t i = 0; i < c.size() / sizeof(float); ++i) entries[i] += 1e-3f;
  EXPECT_FALSE(instance.Check(&message));
  EXPECT_NE(message.find("exceeds tolerance"), std::string::npos) << message;
}

}  // namespace
}  // namespace rprof
