// The sim counter source's numbers for one run: callgrind's per-instruction execution counts and
// simulated cache misses, combined with what each executed instruction does (instruction_class.h)
// into the canonical metrics — instructions, flops_dp, flops_sp, bytes_l1, l1d_misses,
// llc_misses, bytes_l2, bytes_dram — plus the approximations behind them, as notes to store beside
// the values.
//
// Executions of an instruction = its Ir count (callgrind counts one Ir per execution; valgrind
// counts each iteration of a REP string instruction as one execution).
#ifndef RPROF_COUNTERS_SIM_SIM_COUNTS_H_
#define RPROF_COUNTERS_SIM_SIM_COUNTS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/metric.h"
#include "core/non_copyable.h"
#include "counters/sim/callgrind_output.h"
#include "counters/sim/instruction_class.h"
#include "counters/sim/object_code.h"

namespace rprof {

// A count per VectorWidth, indexed by static_cast<int>(VectorWidth).
using WidthCounts = std::array<uint64_t, kVectorWidthCount>;

// Executions that could not be attributed to decoded instructions, per object file.
struct UndecodedObject {
  std::string object;       // ob= name as callgrind wrote it
  uint64_t executions = 0;  // executed instructions (Ir) at those addresses
  uint64_t sites = 0;       // distinct addresses
  std::string reason;       // first reason met: "cannot open: ...", "address 0x... not in ..."
};

struct SimCounts {
  uint64_t instructions = 0;  // executed instructions (Ir) [count]

  uint64_t flops_dp = 0;            // [FLOP], fp64 arithmetic
  uint64_t flops_sp = 0;            // [FLOP], fp32 arithmetic
  WidthCounts flops_dp_by_width{};  // flops_dp split by scalar/128/256/512 [FLOP]
  WidthCounts flops_sp_by_width{};
  // Instruction mix: executed FP arithmetic instructions by width [count].
  WidthCounts fp_instructions_dp_by_width{};
  WidthCounts fp_instructions_sp_by_width{};
  uint64_t x87_instructions = 0;  // executed x87 arithmetic, not in flops_* [count]

  uint64_t bytes_l1_loads = 0;   // core<-L1, from memory operand sizes [B]
  uint64_t bytes_l1_stores = 0;  // core->L1 [B]
  uint64_t bytes_l1() const { return bytes_l1_loads + bytes_l1_stores; }

  uint64_t masked_executions = 0;      // counted at full width (mask_unknown) [count]
  uint64_t rep_string_executions = 0;  // REP string iterations [count]

  // From the cache simulation; nullopt (with a note saying why) when the output lacks the events
  // (no --cache-sim=yes) or the geometry.
  std::optional<uint64_t> data_accesses;   // Dr + Dw [count]
  std::optional<uint64_t> l1d_misses;      // D1mr + D1mw [count]
  std::optional<uint64_t> llc_misses;      // DLmr + DLmw [count]
  std::optional<uint64_t> llc_writebacks;  // DLdmr + DLdmw (--simulate-wb=yes only) [count]
  std::optional<uint64_t> l2_misses;       // rprofsim only: D2mr + D2mw [count]
  std::optional<uint64_t> bytes_l2;    // callgrind: l1d_misses x D1 line; rprofsim: L1D<->L2 [B]
  std::optional<uint64_t> bytes_l3;    // rprofsim only, with a third level: L2<->L3 [B]
  std::optional<uint64_t> bytes_dram;  // (llc_misses + llc_writebacks) x LL line [B]
  CacheGeometry cache;

  uint64_t undecoded_executions = 0;  // Ir of instructions not decoded [count]
  std::vector<UndecodedObject> undecoded;

  // Approximations and caveats, one sentence each, with the metrics each qualifies: stored in
  // those metrics' notes.
  struct Note {
    std::vector<std::string> metrics;
    std::string text;
  };
  std::vector<Note> notes;

  uint64_t flops() const { return flops_dp + flops_sp; }
};

// One line on the FP instruction mix, for the roofline's verdict: "no floating-point arithmetic",
// "scalar code: 100 % of FP instructions are scalar", "256-bit vector code: 99.9 % of FLOPs from
// 256-bit instructions", "mixed: 60 % of FLOPs scalar, 40 % 256-bit".
std::string DescribeFpMix(const SimCounts& counts);

// The canonical metrics (source sim) of one part of a run (the whole run, region "", a marker
// region, a hot function or one of its lines), each noted with what it is, then every caveat of
// the analysis that qualifies it. `split`: also the FLOPs per vector width and the misses per
// level (a hot line goes without: its bytes per FLOP and its share are what it is shown for).
// `where`: what the part is (a hot function's object and name), first in the instructions' note.
void AddSimMetrics(const SimCounts& counts, const std::string& region, bool split,
                   std::vector<Metric>* out, const std::string& where = "");

// Turns callgrind outputs into SimCounts. Keeps the object files it opened and every instruction it
// decoded (per object path and address), so analysing several outputs of the same binaries decodes
// each instruction once. Not thread-safe.
class SimAnalyzer : public NonCopyable {
 public:
  SimAnalyzer();
  ~SimAnalyzer();

  // Fills *counts from `output`. Returns false with *err (environment) only when the output cannot
  // give counts at all: no Ir event, or costs without instruction addresses (the run lacked
  // --dump-instr=yes). Objects that cannot be read and addresses that cannot be mapped or decoded
  // are not errors: their executions are reported in counts->undecoded and a note.
  [[nodiscard]] bool Analyze(const CallgrindOutput& output, SimCounts* counts, Error* err);

  // Instructions decoded so far (distinct object/address pairs).
  size_t decoded_instructions() const { return decoded_; }

 private:
  struct Object;
  Object* FindObject(const std::string& path);

  std::unordered_map<std::string, std::unique_ptr<Object>> objects_;
  size_t decoded_ = 0;
};

// Convenience: a one-shot SimAnalyzer.
[[nodiscard]] bool ComputeSimCounts(const CallgrindOutput& output, SimCounts* counts, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_SIM_COUNTS_H_
