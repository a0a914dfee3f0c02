#include "counters/sim/replay_cost.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "counters/sim/instruction_class.h"
#include "counters/sim/object_code.h"
#include "functions/function_sampler.h"

namespace rprof {
namespace {

// valgrind's cost per executed instruction under rprofsim, measured on this project's Xeon VM
// (2026-12-07, tests/bench/sim_instruction_costs.py: loops of 8 instructions of one class, the
// time over the instructions counted at two loop counts): the dispatch of any instruction, and
// on top of it floating-point arithmetic, each load's and store's cache simulation (a 256-bit
// access more), a branch (the end of valgrind's superblock), a call or return (valgrind's
// dispatcher finds the target), each lane of a fused multiply-add (a helper call per lane:
// fp64's emulates the fused rounding in software, fp32's computes in fp64), and each iteration
// of a REP string instruction (one execution per element, a byte for movsb). Measured: integer
// 0.49 ns, scalar and 256-bit add/mul 0.81-0.84, an 8-byte load 0.9 hitting the simulated L1 and
// 5.2 missing it, a store 2.6 and 33, a 256-bit load 3.2, a call or return about 5, fp64 FMA
// 69.5 (scalar) and 265 (4 lanes), fp32 FMA 55.5 (8 lanes), rep movsb 18-27 ns per byte.
// Whether a load hits is not known before the replay: the load and store costs are those of
// about 15 % and 7 % misses, what brings the table of ten programs (gzip, sort, sqlite3, memcpy,
// scalar and AVX2 arithmetic, Eigen, NumPy, STREAM, PolyBench; tests/bench/sim_estimate_table.py
// --programs) closest; so is the native side's 1 FMA per cycle below.
constexpr double kBaseNs = 0.49;
constexpr double kFpArithNs = 0.33;
constexpr double kLoadNs = 1.0, kStoreNs = 4.0, kWideAccessNs = 3.0;  // wide: over 16 bytes
constexpr double kBranchNs = 2.0, kCallReturnNs = 4.5;
constexpr double kFma64LaneNs = 66;
constexpr double kFma32LaneNs = 6.9;
constexpr double kRepElementNs = 20;
// The native side: what a core issues per cycle (instructions, loads, stores, floating-point
// operations: Zen 2 to Sapphire Rapids issue at least this; FMAs at half of their 2 per cycle,
// as the GEMMs of the table ran: 25-50 % of peak with their packing and loads), at a typical
// clock, and how fast a REP string instruction moves its bytes there: 45 B/ns for glibc's
// memcpy of 64 KiB blocks (200 within L1, 21 for 1 MiB blocks).
constexpr double kNativeGHz = 3.5;
constexpr double kIssuePerCycle = 4, kLoadsPerCycle = 2, kStoresPerCycle = 1, kFpPerCycle = 2;
constexpr double kFmaPerCycle = 1;
constexpr double kRepBytesPerNs = 45;
// A sampled instruction's block: it and what follows it up to the next branch, at most this many.
constexpr int kBlockInstructions = 16;

bool IsFma(const InstructionClass& c) {
  return c.fp_arith && (c.mnemonic.starts_with("vfm") || c.mnemonic.starts_with("vfnm"));
}

struct BlockCost {
  double valgrind_ns = 0, native_ns = 0;
  double fma_ns = 0, rep_ns = 0;  // parts of valgrind_ns
  double instructions = 0;        // as a PMU counts them: a REP instruction once
  bool decoded = false;
};

// The block starting at `link` in `code`, costed on both sides.
BlockCost CostOfBlock(const ObjectCode& code, uint64_t link) {
  BlockCost cost;
  double instructions = 0, loads = 0, stores = 0, fp = 0, fmas = 0;
  uint64_t at = link;
  for (int i = 0; i < kBlockInstructions; ++i) {
    std::span<const uint8_t> bytes = code.CodeAt(at);
    InstructionClass c;
    Error ignored;  // undecodable bytes end the block: what came before still counts
    if (bytes.empty() || !ClassifyInstruction(bytes, &c, &ignored)) break;
    cost.decoded = true;
    if (c.rep_string) {
      // All of the sample's time was this instruction's: elements at kRepBytesPerNs natively.
      double element = std::max({c.load_bytes, c.store_bytes, uint32_t{1}});
      double rep_ns = kRepElementNs * kRepBytesPerNs / element;
      if (i == 0) return {rep_ns, 1, 0, rep_ns, 1, true};
      break;
    }
    instructions += 1;
    loads += c.load_operands;
    stores += c.store_operands;
    if (c.fp_arith) fp += 1;
    cost.valgrind_ns += kBaseNs + kLoadNs * c.load_operands + kStoreNs * c.store_operands;
    if (c.load_bytes + c.store_bytes > 16 * (c.load_operands + c.store_operands))
      cost.valgrind_ns += kWideAccessNs * (c.load_operands + c.store_operands);
    if (c.fp_arith) cost.valgrind_ns += kFpArithNs;
    if (c.control_flow)
      cost.valgrind_ns += c.mnemonic == "call" || c.mnemonic == "ret" ? kCallReturnNs : kBranchNs;
    if (IsFma(c)) {
      double lane_ns = c.fp_type == FpType::kFp32 ? kFma32LaneNs : kFma64LaneNs;
      cost.valgrind_ns += lane_ns * c.lanes;
      cost.fma_ns += lane_ns * c.lanes;
      fmas += 1;
    }
    at += c.length;
    if (c.control_flow) break;
  }
  double cycles = std::max({instructions / kIssuePerCycle, loads / kLoadsPerCycle,
                            stores / kStoresPerCycle, fp / kFpPerCycle, fmas / kFmaPerCycle});
  cost.native_ns = cycles / kNativeGHz;
  cost.instructions = instructions;
  return cost;
}

}  // namespace

std::optional<ReplaySlowdown> SampledReplaySlowdown(const FunctionSamples& samples) {
  std::unordered_map<std::string, std::unique_ptr<ObjectCode>> files;
  double valgrind_ns = 0, native_ns = 0, fma_ns = 0, rep_ns = 0, instructions = 0;
  ReplaySlowdown out;
  uint64_t user = 0;
  for (const auto& [where, count] : samples.by_code_address) {
    const auto& [path, link] = where;
    user += count;
    std::unique_ptr<ObjectCode>& code = files[path];
    if (!code) {
      code = std::make_unique<ObjectCode>();
      Error ignored;  // a file gone or not ELF: its samples stay undecoded
      if (!code->Open(path, &ignored)) continue;
    }
    BlockCost block = CostOfBlock(*code, link);
    if (!block.decoded || block.native_ns <= 0) continue;
    out.decoded += count;
    valgrind_ns += count * block.valgrind_ns;
    native_ns += count * block.native_ns;
    instructions += count * block.instructions;
    fma_ns += count * block.fma_ns;
    rep_ns += count * block.rep_ns;
  }
  if (out.decoded < kFewestDecodedSamples || native_ns <= 0) return std::nullopt;
  // User code undecoded (outside any module's file: JIT code, [vdso]) is taken to be like the
  // decoded; kernel time costs what it costs natively.
  auto kernel = samples.by_function.find("[kernel]");
  const uint64_t kernel_samples = kernel == samples.by_function.end() ? 0 : kernel->second;
  out.samples = std::max(samples.total, user + kernel_samples);
  const double user_slowdown = valgrind_ns / native_ns;
  const double kernel_share = static_cast<double>(kernel_samples) / out.samples;
  out.slowdown = (1 - kernel_share) * user_slowdown + kernel_share;
  const double user_part = (1 - kernel_share) * user_slowdown / out.slowdown;
  out.fma_cost_share = user_part * fma_ns / valgrind_ns;
  out.rep_cost_share = user_part * rep_ns / valgrind_ns;
  out.ns_per_instruction = valgrind_ns / instructions;
  return out;
}

}  // namespace rprof
