#include "counters/sim/instruction_class.h"

#include <Zydis/Zydis.h>

#include <array>
#include <cstdio>

#include "core/closed_list.h"

namespace rprof {
namespace {

// What the mnemonic alone says about floating-point work.
struct MnemonicFp {
  uint8_t flops_per_lane = 0;  // 0: not FP arithmetic
  FpType type = FpType::kNone;
  bool scalar = false;  // ...SS / ...SD
  bool x87_arith = false;
};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

MnemonicFp ClassifyMnemonicName(std::string_view name) {
  MnemonicFp fp;
  static constexpr std::string_view kX87[] = {
      "fadd",  "faddp", "fiadd", "fsub",  "fsubp", "fsubr",  "fsubrp", "fisub",  "fisubr", "fmul",
      "fmulp", "fimul", "fdiv",  "fdivp", "fdivr", "fdivrp", "fidiv",  "fidivr", "fsqrt"};
  for (std::string_view x : kX87) {
    if (name == x) {
      fp.x87_arith = true;
      return fp;
    }
  }
  if (name.size() < 3) return fp;
  std::string_view suffix = name.substr(name.size() - 2);
  if (suffix == "ps" || suffix == "ss") {
    fp.type = FpType::kFp32;
  } else if (suffix == "pd" || suffix == "sd") {
    fp.type = FpType::kFp64;
  } else {
    return fp;
  }
  fp.scalar = suffix[0] == 's';
  std::string_view stem = name.substr(0, name.size() - 2);
  if (!stem.empty() && stem[0] == 'v') stem.remove_prefix(1);  // VEX/EVEX spelling

  static constexpr std::string_view kOnePerLane[] = {
      "add",  "sub",    "mul", "div",   "min",   "max",     "sqrt",  "hadd",
      "hsub", "addsub", "rcp", "rsqrt", "rcp14", "rsqrt14", "rcp28", "rsqrt28"};
  for (std::string_view s : kOnePerLane) {
    if (stem == s) {
      fp.flops_per_lane = 1;
      return fp;
    }
  }
  if (stem == "dp") {
    fp.flops_per_lane = 2;
    return fp;
  }
  // FMA3 (fmadd132, fmadd213, fmadd231, ...) and FMA4 (fmadd, ...) forms.
  static constexpr std::string_view kFma[] = {"fmadd",  "fmsub",    "fnmadd",
                                              "fnmsub", "fmaddsub", "fmsubadd"};
  std::string_view base = stem;
  if (EndsWith(base, "132") || EndsWith(base, "213") || EndsWith(base, "231")) {
    base.remove_suffix(3);
  }
  for (std::string_view s : kFma) {
    if (base == s) {
      fp.flops_per_lane = 2;
      return fp;
    }
  }
  fp.type = FpType::kNone;
  fp.scalar = false;
  return fp;
}

// The mnemonic table, built once.
const std::array<MnemonicFp, ZYDIS_MNEMONIC_MAX_VALUE + 1>& MnemonicTable() {
  static const auto* table = [] {
    auto* t = new std::array<MnemonicFp, ZYDIS_MNEMONIC_MAX_VALUE + 1>();
    for (int m = 0; m <= ZYDIS_MNEMONIC_MAX_VALUE; ++m) {
      const char* s = ZydisMnemonicGetString(static_cast<ZydisMnemonic>(m));
      if (s != nullptr) (*t)[m] = ClassifyMnemonicName(s);
    }
    return t;
  }();
  return *table;
}

bool IsVectorRegister(ZydisRegister reg) {
  ZydisRegisterClass c = ZydisRegisterGetClass(reg);
  return c == ZYDIS_REGCLASS_XMM || c == ZYDIS_REGCLASS_YMM || c == ZYDIS_REGCLASS_ZMM;
}

// Memory operands that move no data to or from the core.
bool MovesNoData(const ZydisDecodedInstruction& in) {
  switch (in.meta.category) {
    case ZYDIS_CATEGORY_NOP:
    case ZYDIS_CATEGORY_WIDENOP:
    case ZYDIS_CATEGORY_PREFETCH:
    case ZYDIS_CATEGORY_PREFETCHWT1:
      return true;
    default:
      break;
  }
  switch (in.mnemonic) {
    case ZYDIS_MNEMONIC_CLFLUSH:
    case ZYDIS_MNEMONIC_CLFLUSHOPT:
    case ZYDIS_MNEMONIC_CLWB:
    case ZYDIS_MNEMONIC_CLDEMOTE:
    case ZYDIS_MNEMONIC_NOP:
    case ZYDIS_MNEMONIC_PREFETCH:
    case ZYDIS_MNEMONIC_PREFETCHW:
    // AVX-512PF gather/scatter prefetches.
    case ZYDIS_MNEMONIC_VGATHERPF0DPD:
    case ZYDIS_MNEMONIC_VGATHERPF0DPS:
    case ZYDIS_MNEMONIC_VGATHERPF0QPD:
    case ZYDIS_MNEMONIC_VGATHERPF0QPS:
    case ZYDIS_MNEMONIC_VGATHERPF1DPD:
    case ZYDIS_MNEMONIC_VGATHERPF1DPS:
    case ZYDIS_MNEMONIC_VGATHERPF1QPD:
    case ZYDIS_MNEMONIC_VGATHERPF1QPS:
    case ZYDIS_MNEMONIC_VSCATTERPF0DPD:
    case ZYDIS_MNEMONIC_VSCATTERPF0DPS:
    case ZYDIS_MNEMONIC_VSCATTERPF0QPD:
    case ZYDIS_MNEMONIC_VSCATTERPF0QPS:
    case ZYDIS_MNEMONIC_VSCATTERPF1DPD:
    case ZYDIS_MNEMONIC_VSCATTERPF1DPS:
    case ZYDIS_MNEMONIC_VSCATTERPF1QPD:
    case ZYDIS_MNEMONIC_VSCATTERPF1QPS:
      return true;
    default:
      return false;
  }
}

bool HasVectorMaskOperand(ZydisMnemonic m) {
  switch (m) {
    case ZYDIS_MNEMONIC_VMASKMOVPD:
    case ZYDIS_MNEMONIC_VMASKMOVPS:
    case ZYDIS_MNEMONIC_VPMASKMOVD:
    case ZYDIS_MNEMONIC_VPMASKMOVQ:
    case ZYDIS_MNEMONIC_MASKMOVDQU:
    case ZYDIS_MNEMONIC_VMASKMOVDQU:
    case ZYDIS_MNEMONIC_MASKMOVQ:
      return true;
    default:
      return false;
  }
}

VectorWidth WidthOfBits(unsigned bits) {
  if (bits >= 512) return VectorWidth::k512;
  if (bits >= 256) return VectorWidth::k256;
  return VectorWidth::k128;
}

struct VectorWidthInfo {
  VectorWidth width;
  std::string_view name;
};

constexpr std::array<VectorWidthInfo, kVectorWidthCount> kVectorWidths = {{
    {VectorWidth::kScalar, "scalar"},
    {VectorWidth::k128, "128"},
    {VectorWidth::k256, "256"},
    {VectorWidth::k512, "512"},
}};

}  // namespace

std::string_view VectorWidthName(VectorWidth width) {
  return NameIn<&VectorWidthInfo::width>(kVectorWidths, width);
}

bool ClassifyInstruction(std::span<const uint8_t> code, InstructionClass* out, Error* err) {
  ZydisDecoder decoder;
  ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  ZyanStatus status = ZydisDecoderDecodeFull(&decoder, code.data(), code.size(), &in, ops);
  if (!ZYAN_SUCCESS(status)) {
    std::string bytes;
    for (size_t i = 0; i < code.size() && i < 15; ++i) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%02x", code[i]);
      if (!bytes.empty()) bytes += ' ';
      bytes += hex;
    }
    char st[16];
    std::snprintf(st, sizeof st, "0x%08x", static_cast<unsigned>(status));
    Fail(err, ErrorKind::kEnvironment,
         "cannot decode bytes [" + bytes + "] (zydis status " + st + ")");
    return false;
  }

  InstructionClass c;
  c.length = in.length;
  const char* isa_set = ZydisISASetGetString(in.meta.isa_set);
  c.avx512 = in.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX ||
             (isa_set != nullptr && std::string_view(isa_set).starts_with("AVX512"));
  const char* name = ZydisMnemonicGetString(in.mnemonic);
  c.mnemonic = name != nullptr ? std::string_view(name) : std::string_view("?");

  bool masked = (in.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX ||
                 in.encoding == ZYDIS_INSTRUCTION_ENCODING_MVEX) &&
                in.avx.mask.mode != ZYDIS_MASK_MODE_INVALID &&
                in.avx.mask.mode != ZYDIS_MASK_MODE_DISABLED &&
                in.avx.mask.reg != ZYDIS_REGISTER_K0;
  c.mask_unknown = masked || HasVectorMaskOperand(in.mnemonic);
  c.rep_string = in.meta.category == ZYDIS_CATEGORY_STRINGOP &&
                 (in.attributes &
                  (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)) != 0;

  switch (in.meta.category) {
    case ZYDIS_CATEGORY_CALL:
    case ZYDIS_CATEGORY_RET:
    case ZYDIS_CATEGORY_UNCOND_BR:
    case ZYDIS_CATEGORY_COND_BR:
      c.control_flow = true;
      break;
    default:
      break;
  }

  const MnemonicFp& fp = MnemonicTable()[in.mnemonic];
  c.x87_arith = fp.x87_arith;
  if (fp.flops_per_lane > 0) {
    c.fp_arith = true;
    c.fp_type = fp.type;
    unsigned element_bits = fp.type == FpType::kFp32 ? 32 : 64;
    if (fp.scalar) {
      c.width = VectorWidth::kScalar;
      c.lanes = 1;
    } else {
      unsigned bits = in.encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY ? 128 : in.avx.vector_length;
      if (bits == 0) bits = 128;
      c.width = WidthOfBits(bits);
      c.lanes = static_cast<uint8_t>(bits / element_bits);
    }
    c.flops = static_cast<uint8_t>(c.lanes * fp.flops_per_lane);
  }

  if (!MovesNoData(in)) {
    for (int i = 0; i < in.operand_count; ++i) {
      const ZydisDecodedOperand& op = ops[i];
      if (op.type != ZYDIS_OPERAND_TYPE_MEMORY) continue;
      if (op.mem.type != ZYDIS_MEMOP_TYPE_MEM && op.mem.type != ZYDIS_MEMOP_TYPE_VSIB) continue;
      uint32_t bytes = op.size / 8;
      if (op.mem.type == ZYDIS_MEMOP_TYPE_VSIB) {
        // Zydis gives one element for the VSIB operand; the element count is that of the data
        // register (the destination of a gather, the source of a scatter), which Zydis already
        // sizes by the index count (VGATHERQPS xmm, [xmm] moves 2 elements).
        uint32_t elements = 0;
        for (int j = 0; j < in.operand_count; ++j) {
          if (ops[j].type == ZYDIS_OPERAND_TYPE_REGISTER && IsVectorRegister(ops[j].reg.value)) {
            elements = ops[j].element_count;
            break;
          }
        }
        bytes = (op.element_size / 8) * elements;
        c.gather_scatter = true;
        c.mask_unknown = true;
      }
      if (op.actions & ZYDIS_OPERAND_ACTION_MASK_READ) {
        c.load_bytes += bytes;
        ++c.load_operands;
      }
      if (op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) {
        c.store_bytes += bytes;
        ++c.store_operands;
      }
    }
  }
  *out = c;
  return true;
}

}  // namespace rprof
