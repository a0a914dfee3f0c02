// What one x86-64 instruction does, as far as the roofline cares: its floating-point work (FLOPs,
// element type, vector width) and the bytes its memory operands move between core and L1.
// Decoded with Zydis; the Zydis types stay inside instruction_class.cc.
//
// FLOP rules follow Intel's FP_ARITH_INST_RETIRED events (what LIKWID's FLOPS_DP/FLOPS_SP groups
// multiply by lane count), so sim counts and pmu counts mean the same thing:
//   - ADD SUB MUL DIV SQRT MIN MAX, RCP RSQRT (and the AVX-512 RCP14/RSQRT14/RCP28/RSQRT28),
//     HADD HSUB ADDSUB: 1 FLOP per lane;
//   - FMA3 and FMA4 forms (FMADD FMSUB FNMADD FNMSUB FMADDSUB FMSUBADD): 2 FLOPs per lane;
//   - DPPS/DPPD: 2 FLOPs per lane of the register, whatever the immediate mask (as FP_ARITH
//     counts them; the true count for a full mask is lanes products + lanes-1 additions, e.g. 7
//     rather than 8 for DPPS xmm);
//   - not counted, as in FP_ARITH: compares, conversions, rounding, logic (ANDPD, XORPS), moves,
//     shuffles, blends, AVX-512 VRANGE/VSCALEF/VGETEXP/VREDUCE/VFIXUPIMM, FP16 and BF16
//     instructions, and x87 arithmetic (flagged as x87_arith so a report can say so).
// Lane count: 1 for scalar forms (…SS, …SD), register width / element width for packed forms
// (legacy SSE = 128 bits, VEX/EVEX by the encoded vector length).
//
// Memory bytes are the sizes of the memory operands, visible and hidden (PUSH, POP, CALL and RET
// move 8 bytes on the stack; MOVS reads and writes one element), counted as loads when the
// instruction reads the operand and as stores when it writes it (both for ADD [m], r). Not
// counted: LEA and other address-only operands, NOP with a memory operand, PREFETCH*, CLFLUSH,
// CLFLUSHOPT, CLWB, CLDEMOTE (no data reaches the core). Broadcast operands ({1to8},
// VBROADCASTSD) count one element. Gathers and scatters count element count x element size.
// The data-dependent cases are counted at full width and flagged with mask_unknown: AVX-512
// masked forms (an opmask other than k0), AVX2 gathers (their mask is a vector register),
// VMASKMOV/VPMASKMOV/MASKMOVDQU. REP string instructions count one element per execution
// (valgrind counts every iteration of a REP instruction as one execution) and set rep_string.
#ifndef RPROF_COUNTERS_SIM_INSTRUCTION_CLASS_H_
#define RPROF_COUNTERS_SIM_INSTRUCTION_CLASS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/error.h"

namespace rprof {

enum class FpType : uint8_t { kNone, kFp32, kFp64 };

// Width of floating-point arithmetic: scalar, or the packed register width in bits.
enum class VectorWidth : uint8_t { kScalar = 0, k128 = 1, k256 = 2, k512 = 3 };
inline constexpr int kVectorWidthCount = 4;

// "scalar", "128", "256", "512".
std::string_view VectorWidthName(VectorWidth width);

struct InstructionClass {
  uint8_t length = 0;         // bytes of the encoding
  std::string_view mnemonic;  // Zydis's lower-case mnemonic ("vfmadd231pd"); static storage

  bool fp_arith = false;  // counted as FLOPs by the rules above
  FpType fp_type = FpType::kNone;
  VectorWidth width = VectorWidth::kScalar;
  uint8_t lanes = 0;       // elements computed per execution (1 for scalar forms)
  uint8_t flops = 0;       // FLOPs per execution = lanes x FLOPs per lane
  bool x87_arith = false;  // x87 FADD/FMUL/...: floating-point work that is not counted

  uint32_t load_bytes = 0;     // bytes read by memory operands per execution
  uint32_t store_bytes = 0;    // bytes written by memory operands per execution
  uint8_t load_operands = 0;   // memory operands read (what valgrind counts as Dr per execution)
  uint8_t store_operands = 0;  // memory operands written (Dw per execution)
  bool mask_unknown = false;   // lanes chosen at run time; counts assume every lane active
  bool gather_scatter = false;
  bool rep_string = false;    // REP-prefixed string instruction; bytes are per iteration
  bool control_flow = false;  // CALL, RET, JMP, Jcc: the instructions callgrind charges the costs
                              // of skipped PLT stubs to (see sim_counts.h)
  // An AVX-512 instruction: EVEX-encoded, or one of AVX-512's VEX-encoded mask-register
  // instructions (KMOVQ, KORTESTW, ...), which valgrind 3.19 cannot execute either.
  bool avx512 = false;
};

// Decodes the instruction at the start of `code` (64-bit mode; `code` may be longer than the
// instruction, it bounds what the decoder may read). Returns false and sets *err ("cannot decode
// bytes 0f 0b ...: <zydis status>", kEnvironment) when the bytes are not a valid instruction.
[[nodiscard]] bool ClassifyInstruction(std::span<const uint8_t> code, InstructionClass* out,
                                       Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_INSTRUCTION_CLASS_H_
