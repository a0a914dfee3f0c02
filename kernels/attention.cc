// Single-head attention O = softmax(Q·Kᵀ/√d)·V, Q, K, V and O seq×d, fp32, in two organisations
// of the same arithmetic: the curriculum's claim that Flash Attention "is not a smarter algorithm;
// it is the same algorithm reorganised to fit in SRAM instead of HBM".
//
// attention-naive does what three framework operators in a row do: S = Q·Kᵀ for every query
// (a seq×seq matrix, 16 MiB at seq = 2048), then softmax over every row of S, then O = P·V. S
// goes out to memory and comes back twice: 16*seq*seq bytes (written, read and written, read)
// beside the 16*seq*d of Q, K, V and O. At seq >> d those dominate: the kernel is
// bandwidth-bound although its FLOPs grow as seq²·d.
//
// attention-tiled (Dao et al., NeurIPS 2022; Milakov and Gimelshein's online softmax, 2018) takes
// a block of query rows and walks the keys in blocks of `block`: scores of the query block
// against one key block (a block×block tile that stays in L1), their exps against a running
// max m, a running sum l, and O accumulated in place; when a new block raises the max, the sum
// and O so far are rescaled by exp(m_old - m_new). S is never written: the compulsory bytes are
// Q, K, V and O alone.
//
// Both use the same two inner loops (a row of scores from a transposed block of K; a row of O
// accumulated from rows of V) and the same exp, so the time difference is the memory traffic.
//
// FLOPs, counted as the code executes them (hardware-counter convention; exp = 20 FLOPs, see
// kernel_support.h):
//   both, per score (seq² of them): Q·Kᵀ 2d, P·V 2d, row max 1, (s - max) * scale 2, exp 20,
//     row sum 1;
//   naive, also per score: the normalisation multiply 1; per row: 1/sum 1. Total
//     4*seq*seq*d + 25*seq*seq + seq.
//   tiled, per query row and key block: the max of the running and block maxima 1, the
//     rescale factor exp((m_old - m_new) * scale) 22, l = l*alpha + l_block 2, O *= alpha d; per
//     row at the end: 1/l 1 and O *= 1/l d. Total 4*seq*seq*d + 24*seq*seq +
//     seq*(seq/block)*(d+25) + seq*(d+1), exact when block divides seq (otherwise seq/block
//     stands for the number of blocks, rounded up).
// Not counted: the few dozen operations combining partial vectors and SIMD lanes at the end of
// each max and sum, per row (naive) or per row and key block (tiled): 0.2 % of tiled's FLOPs at
// the defaults, 0.01 % of naive's. The loops use the Simd operations of kernel_support.h, so the
// counts hold on every compiler; the transposes of K move data and do no FLOPs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include "kernel_families.h"
#include "kernel_support.h"
#include "rprof/kernel.h"

namespace rprof {
namespace {

// Query rows per tile of attention-tiled: a 64×d block of Q and of O (16 KiB each at d = 64)
// share L1/L2 with the d×block transposed K block and the block×d V block.
constexpr int64_t kQueryBlock = 64;

struct AttentionState {
  int64_t seq = 0, d = 0, block = 0;  // block: attention-tiled's keys per block
  float scale = 0;                    // 1/√d
  AlignedArray<float> q, k, v;        // seq*d each, row-major
  AlignedArray<float> o;              // seq*d
  AlignedArray<float> s;              // naive: seq*seq scores, then probabilities
  AlignedArray<float> kt;             // naive: Kᵀ, d*seq
  // tiled, one per part: the transposed key block (d*block) and a row of scores (block).
  std::vector<AlignedArray<float>> kt_block, scores;
  WorkerPool pool;
};

AttentionState& State(void* state) { return *static_cast<AttentionState*>(state); }

// Parameters: naive (seq, d, threads), tiled (seq, d, block, threads).
template <bool kTiled>
void* AttentionSetup(const rprof_args* args, rprof_error* err) {
  const int64_t seq = args->values[0];
  const int64_t d = args->values[1];
  const int64_t threads = args->values[kTiled ? 3 : 2];
  std::unique_ptr<AttentionState> st(new (std::nothrow) AttentionState);
  bool allocated = false;
  if (st) {
    st->seq = seq;
    st->d = d;
    st->block = kTiled ? std::min(args->values[2], seq) : 0;
    st->scale = static_cast<float>(1 / std::sqrt(static_cast<double>(d)));
    st->q = AllocateAligned<float>(seq * d);
    st->k = AllocateAligned<float>(seq * d);
    st->v = AllocateAligned<float>(seq * d);
    st->o = AllocateAligned<float>(seq * d);
    allocated = st->q && st->k && st->v && st->o;
    if (kTiled) {
      for (int64_t part = 0; part < threads && allocated; ++part) {
        st->kt_block.push_back(AllocateAligned<float>(d * st->block));
        st->scores.push_back(AllocateAligned<float>(st->block));
        allocated = st->kt_block.back() && st->scores.back();
      }
    } else if (allocated) {
      st->s = AllocateAligned<float>(seq * seq);
      st->kt = AllocateAligned<float>(d * seq);
      allocated = st->s && st->kt;
    }
  }
  if (!allocated) {
    SetError(err,
             "cannot allocate the matrices of attention at seq %lld, d %lld (%.2f GB for the "
             "score matrix alone in attention-naive): out of memory; choose a smaller seq",
             static_cast<long long>(seq), static_cast<long long>(d), 4.0 * seq * seq / 1e9);
    return nullptr;
  }
  if (!st->pool.Start(static_cast<int>(threads), err)) return nullptr;
  for (int64_t i = 0; i < seq * d; ++i) {
    const auto index = static_cast<uint64_t>(i);
    st->q[i] = static_cast<float>(UniformSigned(5, index));
    st->k[i] = static_cast<float>(UniformSigned(6, index));
    st->v[i] = static_cast<float>(UniformSigned(7, index));
    st->o[i] = std::numeric_limits<float>::quiet_NaN();  // fails the check until a run
  }
  return st.release();
}

void AttentionTeardown(void* state) { delete static_cast<AttentionState*>(state); }

// Copies rows [j0, j0 + count) of K (seq×d) transposed into out (d×count, row stride count).
void TransposeKeys(const float* k, int64_t d, int64_t j0, int64_t count, float* out) {
  for (int64_t j = 0; j < count; ++j) {
    for (int64_t p = 0; p < d; ++p) out[p * count + j] = k[(j0 + j) * d + p];
  }
}

// scores[j] = q · K_j for j < count, from the transposed keys kt (d×count, row stride ldkt):
// vectorised along j, 64 scores at a time held in registers (8 ymm or 4 zmm) across the loop
// over p, so no horizontal sums and exactly 2d FLOPs per score. The tail (count mod 64) does the
// same sum in the same order, one score at a time.
void ScoreRow(const float* q, const float* kt, int64_t ldkt, int64_t d, int64_t count,
              float* scores) {
  using S = Simd<float>;
  constexpr int kVectors = std::max(1, 64 / S::kLanes);
  constexpr int64_t kChunk = kVectors * S::kLanes;
  int64_t j0 = 0;
  for (; j0 + kChunk <= count; j0 += kChunk) {
    S::V acc[kVectors];
#pragma GCC unroll 16
    for (int v = 0; v < kVectors; ++v) acc[v] = S::Zero();
    for (int64_t p = 0; p < d; ++p) {
      const S::V qp = S::Broadcast(q + p);
      const float* row = kt + p * ldkt + j0;
#pragma GCC unroll 16
      for (int v = 0; v < kVectors; ++v) acc[v] = S::Fma(qp, S::Load(row + v * S::kLanes), acc[v]);
    }
#pragma GCC unroll 16
    for (int v = 0; v < kVectors; ++v) S::Store(scores + j0 + v * S::kLanes, acc[v]);
  }
  for (int64_t j = j0; j < count; ++j) {
    float acc = 0;
    for (int64_t p = 0; p < d; ++p) acc += q[p] * kt[p * ldkt + j];
    scores[j] = acc;
  }
}

// o[c] = o[c] * alpha + sum over j < count of p[j] * v[j*d + c], for c < d (rescaled only when
// `rescale`; naive starts from zero): O's row stays in registers in chunks of 64 columns while
// the rows of V stream past. alpha costs d multiplies, each p[j] 2d FLOPs.
void AccumulateRow(const float* p, const float* v, int64_t d, int64_t count, bool rescale,
                   float alpha, float* o) {
  using S = Simd<float>;
  constexpr int kVectors = std::max(1, 64 / S::kLanes);
  constexpr int64_t kChunk = kVectors * S::kLanes;
  int64_t c0 = 0;
  for (; c0 + kChunk <= d; c0 += kChunk) {
    S::V acc[kVectors];
    const S::V scaling = S::Set1(alpha);
#pragma GCC unroll 16
    for (int u = 0; u < kVectors; ++u) {
      acc[u] = rescale ? S::Mul(S::Load(o + c0 + u * S::kLanes), scaling) : S::Zero();
    }
    for (int64_t j = 0; j < count; ++j) {
      const S::V pj = S::Broadcast(p + j);
      const float* row = v + j * d + c0;
#pragma GCC unroll 16
      for (int u = 0; u < kVectors; ++u) acc[u] = S::Fma(pj, S::Load(row + u * S::kLanes), acc[u]);
    }
#pragma GCC unroll 16
    for (int u = 0; u < kVectors; ++u) S::Store(o + c0 + u * S::kLanes, acc[u]);
  }
  for (int64_t c = c0; c < d; ++c) {
    float acc = rescale ? o[c] * alpha : 0.0f;
    for (int64_t j = 0; j < count; ++j) acc += p[j] * v[j * d + c];
    o[c] = acc;
  }
}

// ---- attention-naive ----

void AttentionNaive(void* state) {
  AttentionState& st = State(state);
  const int64_t seq = st.seq;
  const int64_t d = st.d;
  const float scale = st.scale;
  // Kᵀ once per call, by the calling thread: seq*d copies, beside the seq²*d FMAs.
  TransposeKeys(st.k.get(), d, 0, seq, st.kt.get());
  st.pool.Run([&](int part) {
    const RowRange rows = SplitRows(seq, part, st.pool.parts());
    float* s = st.s.get();
    // 1. S = Q·Kᵀ, every row of this part, out to memory.
    for (int64_t i = rows.begin; i < rows.end; ++i) {
      ScoreRow(st.q.get() + i * d, st.kt.get(), seq, d, seq, s + i * seq);
    }
    // 2. P = softmax(S * scale), row by row, in place: S read back and written again.
    for (int64_t i = rows.begin; i < rows.end; ++i) {
      float* row = s + i * seq;
      const float max = RowMax(row, seq);
      const float sum = ExpRow<true>(row, max, scale, row, seq);
      ScaleRow(row, 1.0f / sum, seq);
    }
    // 3. O = P·V: P read back a third time.
    for (int64_t i = rows.begin; i < rows.end; ++i) {
      AccumulateRow(s + i * seq, st.v.get(), d, seq, false, 1.0f, st.o.get() + i * d);
    }
  });
}

// ---- attention-tiled ----

void TiledRows(AttentionState& st, int part, int64_t row_begin, int64_t row_end) {
  const int64_t seq = st.seq;
  const int64_t d = st.d;
  const int64_t block = st.block;
  const float scale = st.scale;
  float* kt = st.kt_block[part].get();
  float* scores = st.scores[part].get();
  float running_max[kQueryBlock];
  float running_sum[kQueryBlock];
  for (int64_t i0 = row_begin; i0 < row_end; i0 += kQueryBlock) {
    const int64_t rows = std::min(kQueryBlock, row_end - i0);
    std::fill(running_max, running_max + rows, -std::numeric_limits<float>::infinity());
    std::fill(running_sum, running_sum + rows, 0.0f);
    std::fill(st.o.get() + i0 * d, st.o.get() + (i0 + rows) * d, 0.0f);
    for (int64_t j0 = 0; j0 < seq; j0 += block) {
      const int64_t count = std::min(block, seq - j0);
      // The key block, transposed once for all the query rows of this tile.
      TransposeKeys(st.k.get(), d, j0, count, kt);
      const float* v = st.v.get() + j0 * d;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r;
        float* o = st.o.get() + i * d;
        ScoreRow(st.q.get() + i * d, kt, count, d, count, scores);
        const float block_max = RowMax(scores, count);
        const float new_max = ScalarOps<float>::Max(running_max[r], block_max);
        const float block_sum = ExpRow<true>(scores, new_max, scale, scores, count);
        // exp of -inf * scale at the first block: ExpNonPositive clamps it to e^-87, which
        // multiplies the zeros O and l start from, so the first block needs no special case
        // (and costs the same FLOPs as every other).
        const float alpha = ExpNonPositive((running_max[r] - new_max) * scale);
        running_sum[r] = running_sum[r] * alpha + block_sum;
        running_max[r] = new_max;
        AccumulateRow(scores, v, d, count, true, alpha, o);
      }
    }
    for (int64_t r = 0; r < rows; ++r) {
      ScaleRow(st.o.get() + (i0 + r) * d, 1.0f / running_sum[r], d);
    }
  }
}

void AttentionTiled(void* state) {
  AttentionState& st = State(state);
  st.pool.Run([&](int part) {
    const RowRange rows = SplitRows(st.seq, part, st.pool.parts(), kQueryBlock);
    TiledRows(st, part, rows.begin, rows.end);
  });
}

// ---- check ----

bool CheckAttentionImpl(const float* q, const float* k, const float* v, const float* o, int64_t seq,
                        int64_t d, rprof_error* err) {
  constexpr long double kUnitRoundoff = std::numeric_limits<float>::epsilon() / 2;
  const long double scale = 1 / std::sqrt(static_cast<long double>(d));
  const bool all = seq <= 64;
  const int64_t samples = all ? seq : 65;
  std::vector<long double> score(seq), score_magnitude(seq), weight(seq);
  for (int64_t sample = 0; sample < samples; ++sample) {
    const int64_t i =
        all ? sample
            : (sample == 64 ? seq - 1
                            : static_cast<int64_t>(Mix64(static_cast<uint64_t>(sample)) %
                                                   static_cast<uint64_t>(seq)));
    long double max = -std::numeric_limits<long double>::infinity();
    for (int64_t j = 0; j < seq; ++j) {
      long double dot = 0, magnitude = 0;
      for (int64_t p = 0; p < d; ++p) {
        const long double product = static_cast<long double>(q[i * d + p]) * k[j * d + p];
        dot += product;
        magnitude += std::fabs(product);
      }
      score[j] = dot;
      score_magnitude[j] = magnitude;
      max = std::max(max, dot);
    }
    long double sum = 0;
    long double weight_error = 0;  // the largest relative error the fp32 path can give a weight
    for (int64_t j = 0; j < seq; ++j) {
      weight[j] = std::exp((score[j] - max) * scale);
      sum += weight[j];
      // The score's rounding (SumTolerance of d products) moves the exp argument by scale times
      // that; rounding s - max and the product by scale add |argument| + 1 ulps, the exp 5.
      weight_error =
          std::max(weight_error, scale * SumTolerance<float>(d) * score_magnitude[j] +
                                     (scale * std::fabs(score[j] - max) + 8) * kUnitRoundoff);
    }
    for (int64_t c = 0; c < d; ++c) {
      long double reference = 0, magnitude = 0;
      for (int64_t j = 0; j < seq; ++j) {
        reference += weight[j] * v[j * d + c];
        magnitude += weight[j] * std::fabs(static_cast<long double>(v[j * d + c]));
      }
      reference /= sum;
      magnitude /= sum;
      // The weighted sum and the sum of weights (SumTolerance of seq terms each, which also
      // covers the tiled kernel's running rescales, random-signed roundings like a sum's), the
      // weights' error, and the final 1/l and product.
      const long double tolerance =
          (2 * SumTolerance<float>(seq) + weight_error + 4 * kUnitRoundoff) * magnitude;
      const long double difference = std::fabs(o[i * d + c] - reference);
      if (!(difference <= tolerance)) {  // NaN fails too
        SetElementMismatch(err, "O", i, c, o[i * d + c], reference, difference, tolerance);
        return false;
      }
    }
  }
  return true;
}

int AttentionCheck(void* state, rprof_error* err) {
  const AttentionState& st = State(state);
  return CheckAttentionImpl(st.q.get(), st.k.get(), st.v.get(), st.o.get(), st.seq, st.d, err);
}

constexpr rprof_param kNaiveParams[] = {
    {"seq", "sequence length: rows of Q, K, V and O", 2048, 1, 32768},
    {"d", "head dimension: columns of Q, K, V and O", 64, 1, 1024},
    kThreadsParam,
};

constexpr rprof_param kTiledParams[] = {
    {"seq", "sequence length: rows of Q, K, V and O", 2048, 1, 32768},
    {"d", "head dimension: columns of Q, K, V and O", 64, 1, 1024},
    {"block", "keys per block: the running softmax is updated once per block", 64, 1, 32768},
    kThreadsParam,
};

constexpr rprof_kernel kKernels[] = {
    {"attention-naive",
     "softmax(Q*K^T/sqrt(d))*V (fp32) with the seq x seq score matrix written out and read back",
     RPROF_PRECISION_FP32, kNaiveParams, 3, "4*seq*seq*d+25*seq*seq+seq", "16*seq*d+16*seq*seq",
     AttentionSetup<false>, AttentionNaive, AttentionCheck, AttentionTeardown},
    {"attention-tiled",
     "the same attention (fp32) over key blocks with an online softmax: scores never leave cache",
     RPROF_PRECISION_FP32, kTiledParams, 4,
     "4*seq*seq*d+24*seq*seq+seq*(seq/block)*(d+25)+seq*(d+1)", "16*seq*d", AttentionSetup<true>,
     AttentionTiled, AttentionCheck, AttentionTeardown},
};

}  // namespace

std::span<const rprof_kernel> AttentionKernels() { return kKernels; }

std::span<const std::byte> AttentionResult(void* state) {
  const AttentionState& st = State(state);
  return ResultBytes(st.o.get(), st.seq * st.d);
}

bool CheckAttention(const float* q, const float* k, const float* v, const float* o, int64_t seq,
                    int64_t d, rprof_error* err) {
  return CheckAttentionImpl(q, k, v, o, seq, d, err);
}

}  // namespace rprof
