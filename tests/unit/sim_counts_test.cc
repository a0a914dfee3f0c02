// SimCounts from a hand-written callgrind output over a hand-built ELF file with known
// instructions, so every sum can be checked by hand.
#include "counters/sim/sim_counts.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "code_file.h"

namespace rprof {
namespace {

// The code at 0x401000, one instruction per row (encodings from GNU as).
const std::vector<std::vector<uint8_t>> kCode = {
    {0xc5, 0xfd, 0x10, 0x00},              // 0x401000 vmovupd ymm0,[rax]        load 32
    {0xc4, 0xe2, 0xf5, 0xb8, 0xc2},        // 0x401004 vfmadd231pd ymm            8 dp
    {0xc5, 0xfd, 0x11, 0x00},              // 0x401009 vmovupd [rax],ymm0        store 32
    {0xf2, 0x0f, 0x59, 0xc1},              // 0x40100d mulsd                      1 dp
    {0xc5, 0xf0, 0x58, 0xc2},              // 0x401011 vaddps xmm                 4 sp
    {0xf3, 0xa4},                          // 0x401015 rep movsb
    {0xe8, 0x00, 0x00, 0x00, 0x00},        // 0x401017 call rel32
    {0xc3},                                // 0x40101c ret
    {0x62, 0xf1, 0xed, 0x49, 0x58, 0xd9},  // 0x40101d vaddpd zmm3{k1}           8 dp, masked
    {0xdc, 0x00},                          // 0x401023 fadd qword [rax]          x87
};

// The code of kCode, one instruction after the other.
std::vector<uint8_t> Code() {
  std::vector<uint8_t> code;
  for (const auto& insn : kCode) code.insert(code.end(), insn.begin(), insn.end());
  return code;
}

class SimCountsTest : public ::testing::Test {
 protected:
  CallgrindOutput Parse(const std::string& text) {
    CallgrindOutput out;
    Error err;
    EXPECT_TRUE(ParseCallgrindOutput(text, &out, &err)) << err.message;
    return out;
  }

  std::string Output() {
    return "positions: instr line\n"
           "desc: D1 cache: 32768 B, 64 B, 8-way associative\n"
           "desc: LL cache: 33554432 B, 64 B, 16-way associative\n"
           "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
           "ob=(1) " +
           elf_ +
           "\n"
           "fn=(1) kernel\n"
           "0x401000 0 100 100 0 0 20 0 0 3\n"
           "+4 0 100\n"
           "+5 0 100 0 100 0 0 10 0 0 1\n"
           "+4 0 10\n"
           "+4 0 5\n"
           "+4 0 51 50 50\n"  // rep movsb: 50 iterations and the final check
           "+2 0 4 2 2\n"     // call: 2 calls + the 2 PLT stub jumps callgrind skipped
           "+5 0 2 2\n"       // ret
           "+1 0 3\n"         // masked vaddpd
           "+6 0 7 7\n"       // fadd
           "0x400010 0 9\n"   // not in an executable segment
           "ob=(2) ???\n"
           "fn=(2) 0x1234\n"
           "0x1234 0 11\n"
           "ob=(3) /nonexistent/libgone.so\n"
           "fn=(3) gone\n"
           "0x10 0 13 1\n"
           "totals: 415 162 152 0 20 10 0 3 1\n";
  }

  CodeFile file_{Code()};
  const std::string& elf_ = file_.path();
};

bool HasNote(const SimCounts& c, const std::string& part) {
  for (const SimCounts::Note& n : c.notes) {
    if (n.text.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST_F(SimCountsTest, SumsEveryExecutedInstruction) {
  CallgrindOutput out = Parse(Output());
  SimCounts c;
  Error err;
  SimAnalyzer analyzer;
  ASSERT_TRUE(analyzer.Analyze(out, &c, &err)) << err.message;

  EXPECT_EQ(c.instructions, 415u);
  EXPECT_EQ(c.flops_dp, 100u * 8 + 10 * 1 + 3 * 8);
  EXPECT_EQ(c.flops_sp, 5u * 4);
  EXPECT_EQ(c.flops(), 854u);
  EXPECT_EQ(c.flops_dp_by_width[static_cast<int>(VectorWidth::k256)], 800u);
  EXPECT_EQ(c.flops_dp_by_width[static_cast<int>(VectorWidth::kScalar)], 10u);
  EXPECT_EQ(c.flops_dp_by_width[static_cast<int>(VectorWidth::k512)], 24u);
  EXPECT_EQ(c.flops_sp_by_width[static_cast<int>(VectorWidth::k128)], 20u);
  EXPECT_EQ(c.fp_instructions_dp_by_width[static_cast<int>(VectorWidth::k256)], 100u);
  EXPECT_EQ(c.fp_instructions_dp_by_width[static_cast<int>(VectorWidth::kScalar)], 10u);
  EXPECT_EQ(c.fp_instructions_sp_by_width[static_cast<int>(VectorWidth::k128)], 5u);
  EXPECT_EQ(c.x87_instructions, 7u);

  // Loads: 100 x 32 (vmovupd) + 50 x 1 (rep movsb, by Dr) + 2 x 8 (GOT loads of the skipped PLT
  // stubs, by the call's Dr) + 2 x 8 (ret) + 7 x 8 (fadd). Stores: 100 x 32 + 50 x 1 + 2 x 8.
  EXPECT_EQ(c.bytes_l1_loads, 3200u + 50 + 16 + 16 + 56);
  EXPECT_EQ(c.bytes_l1_stores, 3200u + 50 + 16);
  EXPECT_EQ(c.bytes_l1(), c.bytes_l1_loads + c.bytes_l1_stores);
  EXPECT_EQ(c.masked_executions, 3u);
  EXPECT_EQ(c.rep_string_executions, 51u);

  ASSERT_TRUE(c.data_accesses);
  EXPECT_EQ(*c.data_accesses, 162u + 152u);
  ASSERT_TRUE(c.l1d_misses);
  EXPECT_EQ(*c.l1d_misses, 30u);
  ASSERT_TRUE(c.llc_misses);
  EXPECT_EQ(*c.llc_misses, 4u);
  ASSERT_TRUE(c.bytes_l2);
  EXPECT_EQ(*c.bytes_l2, 30u * 64);
  ASSERT_TRUE(c.bytes_dram);
  EXPECT_EQ(*c.bytes_dram, 4u * 64);
  EXPECT_FALSE(c.llc_writebacks);
  ASSERT_TRUE(c.cache.ll);
  EXPECT_EQ(c.cache.ll->associativity, 16u);

  EXPECT_EQ(c.undecoded_executions, 9u + 11 + 13);
  ASSERT_EQ(c.undecoded.size(), 3u);
  EXPECT_EQ(c.undecoded[0].object, elf_);
  EXPECT_EQ(c.undecoded[0].executions, 9u);
  EXPECT_NE(c.undecoded[0].reason.find("0x400010 is not in an executable segment"),
            std::string::npos)
      << c.undecoded[0].reason;
  EXPECT_EQ(c.undecoded[1].object, "???");
  EXPECT_EQ(c.undecoded[1].reason, "valgrind did not know the object file");
  EXPECT_EQ(c.undecoded[2].reason,
            "/nonexistent/libgone.so: cannot open: No such file or directory");

  EXPECT_TRUE(HasNote(c, "33 of 415 executed instructions"));
  EXPECT_TRUE(HasNote(c, "lower bounds"));
  EXPECT_TRUE(HasNote(c, "3 executions of masked"));
  EXPECT_TRUE(HasNote(c, "7 x87 arithmetic instructions"));
  EXPECT_TRUE(HasNote(c, "REP string instructions"));
  EXPECT_TRUE(HasNote(c, "PLT stubs"));
  EXPECT_TRUE(HasNote(c, "bytes_dram = simulated LL data misses (DLmr + DLmw) x 64 B line"));
  EXPECT_TRUE(HasNote(c, "D1 32768 B 8-way 64 B line"));

  // Decoded once: a second analysis reuses the cached instructions.
  EXPECT_EQ(analyzer.decoded_instructions(), kCode.size());
  SimCounts again;
  ASSERT_TRUE(analyzer.Analyze(out, &again, &err)) << err.message;
  EXPECT_EQ(analyzer.decoded_instructions(), kCode.size());
  EXPECT_EQ(again.flops_dp, c.flops_dp);
  EXPECT_EQ(again.bytes_l1(), c.bytes_l1());
}

TEST_F(SimCountsTest, WithoutCacheSimulationTheMissesAreAbsent) {
  CallgrindOutput out =
      Parse("positions: instr\nevents: Ir\nob=" + elf_ + "\n0x401004 1000\n0x40100d 10\n");
  SimCounts c;
  Error err;
  ASSERT_TRUE(ComputeSimCounts(out, &c, &err)) << err.message;
  EXPECT_EQ(c.flops_dp, 8010u);
  EXPECT_FALSE(c.l1d_misses);
  EXPECT_FALSE(c.llc_misses);
  EXPECT_FALSE(c.bytes_l2);
  EXPECT_FALSE(c.bytes_dram);
  EXPECT_FALSE(c.data_accesses);
  EXPECT_TRUE(HasNote(c, "run callgrind with --cache-sim=yes"));
  EXPECT_TRUE(HasNote(c, "no totals: line"));
  EXPECT_EQ(DescribeFpMix(c), "256-bit vector code: 99.9 % of FLOPs from 256-bit instructions");
}

TEST_F(SimCountsTest, WriteBackEventsAddToDramBytes) {
  CallgrindOutput out = Parse(
      "positions: instr\n"
      "desc: LL cache: 33554432 B, 64 B, 16-way associative\n"
      "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ILdmr DLdmr DLdmw\n"
      "ob=" +
      elf_ + "\n0x401009 100 0 100 0 0 10 0 0 10 0 0 5\n");
  SimCounts c;
  Error err;
  ASSERT_TRUE(ComputeSimCounts(out, &c, &err)) << err.message;
  ASSERT_TRUE(c.llc_writebacks);
  EXPECT_EQ(*c.llc_writebacks, 5u);
  EXPECT_EQ(*c.bytes_dram, (10u + 5u) * 64);
  EXPECT_FALSE(c.bytes_l2);  // no D1 description
  EXPECT_TRUE(HasNote(c, "bytes_l2 absent"));
  EXPECT_EQ(DescribeFpMix(c), "no floating-point arithmetic");
}

TEST_F(SimCountsTest, OutputsThatCannotGiveCounts) {
  SimCounts c;
  Error err;
  CallgrindOutput lines_only = Parse("events: Ir\nfn=main\n15 90\n");
  EXPECT_FALSE(ComputeSimCounts(lines_only, &c, &err));
  EXPECT_NE(err.message.find("--dump-instr=yes"), std::string::npos) << err.message;

  CallgrindOutput no_ir = Parse("positions: instr\nevents: Dr\nob=/x\n0x10 3\n");
  EXPECT_FALSE(ComputeSimCounts(no_ir, &c, &err));
  EXPECT_NE(err.message.find("no Ir event"), std::string::npos) << err.message;

  CallgrindOutput empty = Parse("positions: instr\nevents: Ir\n");
  ASSERT_TRUE(ComputeSimCounts(empty, &c, &err)) << err.message;
  EXPECT_EQ(c.instructions, 0u);
}

TEST(DescribeFpMix, NamesTheDominantWidth) {
  SimCounts c;
  c.fp_instructions_dp_by_width[0] = 1000;
  c.flops_dp_by_width[0] = 1000;
  EXPECT_EQ(DescribeFpMix(c), "scalar code: 100 % of FP instructions are scalar");
  c.fp_instructions_dp_by_width[2] = 250;
  c.flops_dp_by_width[2] = 1000;
  EXPECT_EQ(DescribeFpMix(c), "mixed: 50 % of FLOPs scalar, 50 % of FLOPs 256-bit");
}

}  // namespace
}  // namespace rprof
