// The instruction classifier on hand-assembled bytes (encodings from GNU as, checked with
// objdump -M intel).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "counters/sim/instruction_class.h"

namespace rprof {
namespace {

InstructionClass Classify(std::vector<uint8_t> bytes) {
  InstructionClass c;
  Error err;
  // Trailing bytes that belong to no instruction: the classifier must stop at its length.
  size_t length = bytes.size();
  bytes.insert(bytes.end(), {0x90, 0x90, 0x90});
  EXPECT_TRUE(ClassifyInstruction(bytes, &c, &err)) << err.message;
  EXPECT_EQ(c.length, length);
  return c;
}

struct FpCase {
  const char* text;
  std::vector<uint8_t> bytes;
  FpType type;
  VectorWidth width;
  int lanes;
  int flops;
};

TEST(InstructionClass, FloatingPointArithmetic) {
  // clang-format off
  const FpCase cases[] = {
      {"vfmadd231pd ymm0,ymm1,ymm2", {0xc4, 0xe2, 0xf5, 0xb8, 0xc2}, FpType::kFp64, VectorWidth::k256, 4, 8},
      {"vaddps xmm0,xmm1,xmm2", {0xc5, 0xf0, 0x58, 0xc2}, FpType::kFp32, VectorWidth::k128, 4, 4},
      {"mulsd xmm0,xmm1", {0xf2, 0x0f, 0x59, 0xc1}, FpType::kFp64, VectorWidth::kScalar, 1, 1},
      {"vfmadd213sd xmm0,xmm1,[rax]", {0xc4, 0xe2, 0xf1, 0xa9, 0x00}, FpType::kFp64, VectorWidth::kScalar, 1, 2},
      {"vfmadd231ps zmm0,zmm1,zmm2", {0x62, 0xf2, 0x75, 0x48, 0xb8, 0xc2}, FpType::kFp32, VectorWidth::k512, 16, 32},
      {"vaddpd zmm2,zmm1,[rax]{1to8}", {0x62, 0xf1, 0xf5, 0x58, 0x58, 0x10}, FpType::kFp64, VectorWidth::k512, 8, 8},
      {"vdivpd ymm0,ymm1,ymm2", {0xc5, 0xf5, 0x5e, 0xc2}, FpType::kFp64, VectorWidth::k256, 4, 4},
      {"vsqrtss xmm0,xmm1,xmm2", {0xc5, 0xf2, 0x51, 0xc2}, FpType::kFp32, VectorWidth::kScalar, 1, 1},
      {"maxpd xmm0,xmm1", {0x66, 0x0f, 0x5f, 0xc1}, FpType::kFp64, VectorWidth::k128, 2, 2},
      {"vminps ymm0,ymm1,ymm2", {0xc5, 0xf4, 0x5d, 0xc2}, FpType::kFp32, VectorWidth::k256, 8, 8},
      {"dpps xmm0,xmm1,0xff", {0x66, 0x0f, 0x3a, 0x40, 0xc1, 0xff}, FpType::kFp32, VectorWidth::k128, 4, 8},
      {"haddpd xmm0,xmm1", {0x66, 0x0f, 0x7c, 0xc1}, FpType::kFp64, VectorWidth::k128, 2, 2},
      {"vrcpps ymm0,ymm1", {0xc5, 0xfc, 0x53, 0xc1}, FpType::kFp32, VectorWidth::k256, 8, 8},
      {"vfmaddsub132pd ymm0,ymm1,ymm2", {0xc4, 0xe2, 0xf5, 0x96, 0xc2}, FpType::kFp64, VectorWidth::k256, 4, 8},
      {"vaddsubps xmm0,xmm1,xmm2", {0xc5, 0xf3, 0xd0, 0xc2}, FpType::kFp32, VectorWidth::k128, 4, 4},
  };
  // clang-format on
  for (const FpCase& k : cases) {
    SCOPED_TRACE(k.text);
    InstructionClass c = Classify(k.bytes);
    EXPECT_TRUE(c.fp_arith);
    EXPECT_EQ(c.fp_type, k.type);
    EXPECT_EQ(c.width, k.width);
    EXPECT_EQ(c.lanes, k.lanes);
    EXPECT_EQ(c.flops, k.flops);
    EXPECT_FALSE(c.x87_arith);
  }
}

TEST(InstructionClass, NotFloatingPointArithmetic) {
  const std::pair<const char*, std::vector<uint8_t>> cases[] = {
      {"vcvtsi2sd xmm0,xmm0,rax", {0xc4, 0xe1, 0xfb, 0x2a, 0xc0}},
      {"vxorpd ymm0,ymm0,ymm0", {0xc5, 0xfd, 0x57, 0xc0}},
      {"vcmpltpd ymm0,ymm1,ymm2", {0xc5, 0xf5, 0xc2, 0xc2, 0x01}},
      {"movapd xmm0,[rax]", {0x66, 0x0f, 0x28, 0x00}},
      {"paddd xmm0,xmm1", {0x66, 0x0f, 0xfe, 0xc1}},
      {"vpaddq ymm0,ymm1,ymm2", {0xc5, 0xf5, 0xd4, 0xc2}},
      {"lea rax,[rax+rbx*8]", {0x48, 0x8d, 0x04, 0xd8}},
  };
  for (const auto& [text, bytes] : cases) {
    SCOPED_TRACE(text);
    InstructionClass c = Classify(bytes);
    EXPECT_FALSE(c.fp_arith);
    EXPECT_EQ(c.flops, 0);
    EXPECT_EQ(c.fp_type, FpType::kNone);
  }
  InstructionClass x87 = Classify({0xdc, 0x00});  // fadd qword ptr [rax]
  EXPECT_FALSE(x87.fp_arith);
  EXPECT_TRUE(x87.x87_arith);
  EXPECT_EQ(x87.load_bytes, 8u);
}

struct MemCase {
  const char* text;
  std::vector<uint8_t> bytes;
  uint32_t load_bytes;
  uint32_t store_bytes;
  bool mask_unknown;
};

TEST(InstructionClass, MemoryOperandBytes) {
  // clang-format off
  const MemCase cases[] = {
      {"movapd xmm0,[rax]", {0x66, 0x0f, 0x28, 0x00}, 16, 0, false},
      {"vmovupd [rax],ymm0", {0xc5, 0xfd, 0x11, 0x00}, 0, 32, false},
      {"vfmadd213sd xmm0,xmm1,[rax]", {0xc4, 0xe2, 0xf1, 0xa9, 0x00}, 8, 0, false},
      {"addsd xmm0,[rip+0x10]", {0xf2, 0x0f, 0x58, 0x05, 0x10, 0x00, 0x00, 0x00}, 8, 0, false},
      {"vbroadcastsd ymm1,[rax]", {0xc4, 0xe2, 0x7d, 0x19, 0x08}, 8, 0, false},
      {"vaddpd zmm2,zmm1,[rax]{1to8}", {0x62, 0xf1, 0xf5, 0x58, 0x58, 0x10}, 8, 0, false},
      {"add [rax],rbx", {0x48, 0x01, 0x18}, 8, 8, false},     // read-modify-write: both
      {"push rbx", {0x53}, 0, 8, false},                      // hidden stack operand
      {"pop rbx", {0x5b}, 8, 0, false},
      {"lea rax,[rax+rbx*8]", {0x48, 0x8d, 0x04, 0xd8}, 0, 0, false},  // address only
      {"nop dword ptr [rax]", {0x0f, 0x1f, 0x00}, 0, 0, false},
      {"prefetcht0 [rax]", {0x0f, 0x18, 0x08}, 0, 0, false},
      {"clflush [rax]", {0x0f, 0xae, 0x38}, 0, 0, false},
      // Gathers and scatters: element count x element size; the AVX2 mask is a vector register.
      {"vgatherdpd ymm1,[rax+xmm2*8],ymm3", {0xc4, 0xe2, 0xe5, 0x92, 0x0c, 0xd0}, 32, 0, true},
      {"vgatherqps xmm1,[rax+xmm2*4],xmm3", {0xc4, 0xe2, 0x61, 0x93, 0x0c, 0x90}, 8, 0, true},
      {"vscatterdps [rax+zmm2*4]{k1},zmm1", {0x62, 0xf2, 0x7d, 0x49, 0xa2, 0x0c, 0x90}, 0, 64, true},
      {"vmaskmovpd ymm2,ymm1,[rax]", {0xc4, 0xe2, 0x75, 0x2d, 0x10}, 32, 0, true},
  };
  // clang-format on
  for (const MemCase& k : cases) {
    SCOPED_TRACE(k.text);
    InstructionClass c = Classify(k.bytes);
    EXPECT_EQ(c.load_bytes, k.load_bytes);
    EXPECT_EQ(c.store_bytes, k.store_bytes);
    EXPECT_EQ(c.mask_unknown, k.mask_unknown);
  }
  InstructionClass gather = Classify({0xc4, 0xe2, 0xe5, 0x92, 0x0c, 0xd0});
  EXPECT_TRUE(gather.gather_scatter);
}

TEST(InstructionClass, MaskedAvx512IsFlagged) {
  InstructionClass masked = Classify({0x62, 0xf1, 0xed, 0x49, 0x58, 0xd9});  // vaddpd zmm3{k1}
  EXPECT_TRUE(masked.mask_unknown);
  EXPECT_EQ(masked.flops, 8);  // counted at full width
  InstructionClass unmasked = Classify({0x62, 0xf2, 0x75, 0x48, 0xb8, 0xc2});
  EXPECT_FALSE(unmasked.mask_unknown);
}

TEST(InstructionClass, RepStringAndControlFlow) {
  InstructionClass rep = Classify({0xf3, 0xa4});  // rep movsb
  EXPECT_TRUE(rep.rep_string);
  EXPECT_EQ(rep.load_bytes, 1u);
  EXPECT_EQ(rep.store_bytes, 1u);
  EXPECT_EQ(rep.load_operands, 1);
  EXPECT_EQ(rep.store_operands, 1);
  InstructionClass call = Classify({0xe8, 0x00, 0x00, 0x00, 0x00});  // call rel32
  EXPECT_TRUE(call.control_flow);
  EXPECT_EQ(call.store_bytes, 8u);
  InstructionClass ret = Classify({0xc3});
  EXPECT_TRUE(ret.control_flow);
  EXPECT_EQ(ret.load_bytes, 8u);
  EXPECT_EQ(ret.mnemonic, "ret");
}

TEST(InstructionClass, UndecodableBytes) {
  InstructionClass c;
  Error err;
  const std::vector<uint8_t> bad = {0x0f, 0xff};  // UD0 without its ModRM byte
  EXPECT_FALSE(ClassifyInstruction(bad, &c, &err));
  EXPECT_NE(err.message.find("cannot decode bytes [0f ff]"), std::string::npos) << err.message;
  EXPECT_FALSE(ClassifyInstruction(std::span<const uint8_t>(), &c, &err));
  const std::vector<uint8_t> truncated = {0xc4, 0xe2, 0xf5};  // VEX prefix cut short
  EXPECT_FALSE(ClassifyInstruction(truncated, &c, &err));
}

TEST(InstructionClass, WidthNames) {
  EXPECT_EQ(VectorWidthName(VectorWidth::kScalar), "scalar");
  EXPECT_EQ(VectorWidthName(VectorWidth::k128), "128");
  EXPECT_EQ(VectorWidthName(VectorWidth::k256), "256");
  EXPECT_EQ(VectorWidthName(VectorWidth::k512), "512");
}

}  // namespace
}  // namespace rprof
