// STREAM (McCalpin): four loops doing at most 2 FLOPs per 24 bytes, far below what any core can
// compute per byte it loads, so their speed is the bandwidth of whichever cache level or DRAM
// holds the arrays. Sweeping n moves them across the levels.
//
// The bytes formulas count compulsory traffic: each input element read once, each output
// element written once. A store that misses the cache first reads the line it writes
// (write-allocate), so DRAM really moves 24 bytes per copied element, not 16. The model states
// what the algorithm needs, not what a given cache does; rprof shows measured bytes beside it and
// the gap is part of the lesson.
#include <cstdint>
#include <memory>
#include <new>
#include <span>

#include "kernel_families.h"
#include "kernel_support.h"
#include "rprof/kernel.h"

namespace rprof {
namespace {

struct StreamState {
  int64_t n = 0;
  // Read from memory on every run, as in STREAM, so the compiler cannot specialise the loops
  // for the constant 3.0.
  double s = 3.0;
  AlignedArray<double> a, b, c;
};

StreamState& State(void* state) { return *static_cast<StreamState*>(state); }

void* StreamSetup(const rprof_args* args, rprof_error* err) {
  const int64_t n = args->values[0];
  std::unique_ptr<StreamState> st(new (std::nothrow) StreamState);
  if (st) {
    st->n = n;
    st->a = AllocateAligned<double>(n);
    st->b = AllocateAligned<double>(n);
    st->c = AllocateAligned<double>(n);
  }
  if (!st || !st->a || !st->b || !st->c) {
    SetError(err,
             "cannot allocate 3 arrays of %lld doubles (%.2f GB in all): out of memory; "
             "choose a smaller n",
             static_cast<long long>(n), 3.0 * 8.0 * n / 1e9);
    return nullptr;
  }
  // Small multiples of 1/4 keep every result exact, so check() compares with ==; values that
  // vary with i catch indexing mistakes; and at i = 0 no kernel's relation holds before it runs
  // (a = 1, b = 2, c = 0), so a run that did nothing fails its check.
  double* a = st->a.get();
  double* b = st->b.get();
  double* c = st->c.get();
  for (int64_t i = 0; i < n; ++i) {
    a[i] = 1.0 + 0.25 * static_cast<double>(i % 64);
    b[i] = 2.0 + 0.5 * static_cast<double>(i % 32);
    c[i] = 0.5 * static_cast<double>(i % 16);
  }
  return st.release();
}

void StreamTeardown(void* state) { delete static_cast<StreamState*>(state); }

// Each kernel writes one array and only reads the others, so repeated runs give the same result.
// `omp simd` states what the compiler cannot prove, that the arrays do not overlap, so it
// vectorises without a runtime overlap test.

void Copy(void* state) {
  StreamState& st = State(state);
  const double* a = st.a.get();
  double* c = st.c.get();
#pragma omp simd
  for (int64_t i = 0; i < st.n; ++i) c[i] = a[i];
}

void Scale(void* state) {
  StreamState& st = State(state);
  const double s = st.s;
  double* b = st.b.get();
  const double* c = st.c.get();
#pragma omp simd
  for (int64_t i = 0; i < st.n; ++i) b[i] = s * c[i];
}

void Add(void* state) {
  StreamState& st = State(state);
  const double* a = st.a.get();
  const double* b = st.b.get();
  double* c = st.c.get();
#pragma omp simd
  for (int64_t i = 0; i < st.n; ++i) c[i] = a[i] + b[i];
}

void Triad(void* state) {
  StreamState& st = State(state);
  const double s = st.s;
  double* a = st.a.get();
  const double* b = st.b.get();
  const double* c = st.c.get();
#pragma omp simd
  for (int64_t i = 0; i < st.n; ++i) a[i] = b[i] + s * c[i];
}

// True when out[i] == want(i) for every i; otherwise false with the first mismatch in *err.
template <typename Want>
bool CheckEach(const char* out_name, const double* out, int64_t n, Want want, rprof_error* err) {
  for (int64_t i = 0; i < n; ++i) {
    if (out[i] != want(i)) {
      SetError(err, "%s[%lld] = %.17g, expected %.17g", out_name, static_cast<long long>(i), out[i],
               want(i));
      return false;
    }
  }
  return true;
}

int CheckCopy(void* state, rprof_error* err) {
  const StreamState& st = State(state);
  return CheckEach(
      "c", st.c.get(), st.n, [&](int64_t i) { return st.a[i]; }, err);
}

int CheckScale(void* state, rprof_error* err) {
  const StreamState& st = State(state);
  return CheckEach(
      "b", st.b.get(), st.n, [&](int64_t i) { return st.s * st.c[i]; }, err);
}

int CheckAdd(void* state, rprof_error* err) {
  const StreamState& st = State(state);
  return CheckEach(
      "c", st.c.get(), st.n, [&](int64_t i) { return st.a[i] + st.b[i]; }, err);
}

int CheckTriad(void* state, rprof_error* err) {
  const StreamState& st = State(state);
  return CheckEach(
      "a", st.a.get(), st.n, [&](int64_t i) { return st.b[i] + st.s * st.c[i]; }, err);
}

constexpr rprof_param kParams[] = {
    {"n", "elements in each of the three fp64 arrays", 10'000'000, 1, 2'000'000'000},
};

constexpr rprof_kernel kKernels[] = {
    {"copy", "STREAM copy c[i] = a[i]: pure data movement, 0 FLOPs per 16 bytes",
     RPROF_PRECISION_FP64, kParams, 1, "0", "16*n", StreamSetup, Copy, CheckCopy, StreamTeardown},
    {"scale", "STREAM scale b[i] = s*c[i]: memory-bound, 1 FLOP per 16 bytes", RPROF_PRECISION_FP64,
     kParams, 1, "n", "16*n", StreamSetup, Scale, CheckScale, StreamTeardown},
    {"add", "STREAM add c[i] = a[i] + b[i]: memory-bound, 1 FLOP per 24 bytes",
     RPROF_PRECISION_FP64, kParams, 1, "n", "24*n", StreamSetup, Add, CheckAdd, StreamTeardown},
    {"triad", "STREAM triad a[i] = b[i] + s*c[i]: memory-bound, 2 FLOPs per 24 bytes",
     RPROF_PRECISION_FP64, kParams, 1, "2*n", "24*n", StreamSetup, Triad, CheckTriad,
     StreamTeardown},
};

}  // namespace

std::span<const rprof_kernel> StreamKernels() { return kKernels; }

}  // namespace rprof
