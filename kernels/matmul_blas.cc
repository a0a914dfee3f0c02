// Dense matrix multiply C = A·B through OpenBLAS (cblas_dgemm, cblas_sgemm): the reference the
// hand-written matmul kernels are measured against. Same inputs, FLOPs, bytes and check as
// matmul.cc, so `rprof compare` sets them side by side.
//
// Built only when Meson finds OpenBLAS (kernels/meson.build); builtin_kernels.cc lists this family
// under RPROF_HAVE_OPENBLAS.
//
// OpenBLAS is loaded with dlopen at the first setup, not linked: linking it would start its
// thread pool in every rprof process (milliseconds on each `rprof ./app`, for a kernel most runs
// never use). cblas.h is included for its types and constants only.
//
// OpenBLAS's thread count is a process-wide setting, so run() sets it to this kernel's `threads`
// before every call (a store to a global when the count does not change): a default of 1
// compares one core with one core, whatever OPENBLAS_NUM_THREADS says. Its own threads are
// OpenBLAS's pool, not this file's WorkerPool. What OpenBLAS does inside (which micro-kernel for
// which CPU, chosen at run time unless OPENBLAS_CORETYPE forces one) is its business: at
// n not a multiple of its tile it, too, computes padded edges the model does not count.
#include <cblas.h>
#include <dlfcn.h>

#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>

#include "kernel_families.h"
#include "kernel_support.h"
#include "rprof/kernel.h"

namespace rprof {
namespace {

// The OpenBLAS entry points this file calls, resolved once per process.
struct OpenBlas {
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
  std::string error;  // why it could not be loaded
};

const OpenBlas& LoadOpenBlas() {
  static const OpenBlas blas = [] {
    OpenBlas b;
    void* lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      b.error = std::string("cannot load OpenBLAS (") + (why ? why : "not found") +
                "); apt-get install libopenblas0";
      return b;
    }
    b.dgemm = reinterpret_cast<decltype(&cblas_dgemm)>(dlsym(lib, "cblas_dgemm"));
    b.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(lib, "cblas_sgemm"));
    b.set_num_threads = reinterpret_cast<decltype(&openblas_set_num_threads)>(
        dlsym(lib, "openblas_set_num_threads"));
    if (!b.dgemm || !b.sgemm || !b.set_num_threads)
      b.error = "the OpenBLAS found lacks cblas_dgemm, cblas_sgemm or openblas_set_num_threads";
    return b;
  }();
  return blas;
}

template <typename T>
struct MatmulBlasState {
  int64_t n = 0;
  int threads = 1;
  AlignedArray<T> a, b, c;  // n*n each, row-major
};

template <typename T>
MatmulBlasState<T>& State(void* state) {
  return *static_cast<MatmulBlasState<T>*>(state);
}

template <typename T>
void* MatmulBlasSetup(const rprof_args* args, rprof_error* err) {
  const int64_t n = args->values[0];
  if (!LoadOpenBlas().error.empty()) {
    SetError(err, "%s", LoadOpenBlas().error.c_str());
    return nullptr;
  }
  std::unique_ptr<MatmulBlasState<T>> st(new (std::nothrow) MatmulBlasState<T>);
  if (!st) {
    SetError(err, "out of memory");
    return nullptr;
  }
  st->n = n;
  st->threads = static_cast<int>(args->values[1]);
  // matmul.cc's inputs, so the two can be compared run for run.
  if (!AllocateMatmulOperands(n, &st->a, &st->b, &st->c, err)) return nullptr;
  return st.release();
}

template <typename T>
void MatmulBlasTeardown(void* state) {
  delete static_cast<MatmulBlasState<T>*>(state);
}

// C = 1·A·B + 0·C: with beta = 0 BLAS never reads C (the reference BLAS contract), so the
// compulsory bytes are those of matmul.cc.
void MatmulBlas64(void* state) {
  MatmulBlasState<double>& st = State<double>(state);
  const blasint n = static_cast<blasint>(st.n);
  const OpenBlas& blas = LoadOpenBlas();
  blas.set_num_threads(st.threads);
  blas.dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, st.a.get(), n, st.b.get(), n,
             0.0, st.c.get(), n);
}

void MatmulBlas32(void* state) {
  MatmulBlasState<float>& st = State<float>(state);
  const blasint n = static_cast<blasint>(st.n);
  const OpenBlas& blas = LoadOpenBlas();
  blas.set_num_threads(st.threads);
  blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, st.a.get(), n, st.b.get(), n,
             0.0f, st.c.get(), n);
}

template <typename T>
int MatmulBlasCheck(void* state, rprof_error* err) {
  const MatmulBlasState<T>& st = State<T>(state);
  return CheckMatmul(st.a.get(), st.b.get(), st.c.get(), st.n, err);
}

constexpr rprof_param kParams[] = {
    {"n", "rows and columns of the square matrices A, B and C", 1024, 1, 16384},
    {"threads", "OpenBLAS threads (set before every call; 1: one core against one core)", 1, 1,
     256},
};

constexpr rprof_kernel kKernels[] = {
    {"matmul-blas", "C = A*B (fp64) by OpenBLAS cblas_dgemm: the reference to measure against",
     RPROF_PRECISION_FP64, kParams, 2, "2*n*n*n", "3*n*n*8", MatmulBlasSetup<double>, MatmulBlas64,
     MatmulBlasCheck<double>, MatmulBlasTeardown<double>},
    {"matmul-blas-fp32", "C = A*B (fp32) by OpenBLAS cblas_sgemm: the reference to measure against",
     RPROF_PRECISION_FP32, kParams, 2, "2*n*n*n", "3*n*n*4", MatmulBlasSetup<float>, MatmulBlas32,
     MatmulBlasCheck<float>, MatmulBlasTeardown<float>},
};

}  // namespace

std::span<const rprof_kernel> MatmulBlasKernels() { return kKernels; }

}  // namespace rprof
