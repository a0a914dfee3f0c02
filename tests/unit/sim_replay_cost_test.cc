// The replay's slowdown from sampled instructions: hand-assembled code in an ELF file, samples
// placed on it as a sampler would place them.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "code_file.h"
#include "counters/sim/replay_cost.h"
#include "functions/function_sampler.h"

namespace rprof {
namespace {

// Each block ends in a branch, as a loop's body does (assembled with GNU as, Intel syntax).
const std::vector<uint8_t> kFma64Loop = {
    0xc4, 0xe2, 0xf5, 0xb8, 0xc2,  // vfmadd231pd ymm0, ymm1, ymm2
    0xc4, 0xe2, 0xf5, 0xb8, 0xc2,  //
    0x48, 0x83, 0xc0, 0x01,        // add rax, 1
    0x48, 0x39, 0xf8,              // cmp rax, rdi
    0x75, 0xf2,                    // jne (back)
};
const std::vector<uint8_t> kFma32Loop = {
    0xc4, 0xe2, 0x75, 0xb8, 0xc2,  // vfmadd231ps ymm0, ymm1, ymm2
    0xc4, 0xe2, 0x75, 0xb8, 0xc2,  //
    0x48, 0x83, 0xc0, 0x01,        // add rax, 1
    0x48, 0x39, 0xf8,              // cmp rax, rdi
    0x75, 0xf2,                    // jne (back)
};
const std::vector<uint8_t> kIntegerLoop = {
    0x48, 0x31, 0xd8,        // xor rax, rbx
    0x48, 0x01, 0xcb,        // add rbx, rcx
    0x48, 0x0f, 0xaf, 0xc8,  // imul rcx, rax
    0x48, 0x83, 0xc0, 0x01,  // add rax, 1
    0x48, 0x39, 0xf8,        // cmp rax, rdi
    0x75, 0xf2,              // jne (back)
};
const std::vector<uint8_t> kRepMovsb = {0xf3, 0xa4};  // rep movsb

// `count` samples on every instruction start of `code` (`starts`: their offsets), as a loop
// sampled evenly looks.
void SampleEvenly(const CodeFile& file, const std::vector<uint64_t>& starts, uint64_t count,
                  FunctionSamples* samples) {
  for (uint64_t offset : starts) {
    samples->by_code_address[{file.path(), kCodeFileAddress + offset}] += count;
    samples->total += count;
  }
}

const std::vector<uint64_t> kFmaStarts = {0, 5, 10, 14, 17};
const std::vector<uint64_t> kIntegerStarts = {0, 3, 6, 10, 14, 17};

TEST(SampledReplaySlowdown, FmaLoopCostsValgrindHundredsOfTimesMoreThanIntegerCode) {
  CodeFile fma(kFma64Loop), integer(kIntegerLoop);
  FunctionSamples fma_samples, integer_samples;
  SampleEvenly(fma, kFmaStarts, 10, &fma_samples);
  SampleEvenly(integer, kIntegerStarts, 10, &integer_samples);
  std::optional<ReplaySlowdown> f = SampledReplaySlowdown(fma_samples);
  std::optional<ReplaySlowdown> i = SampledReplaySlowdown(integer_samples);
  ASSERT_TRUE(f && i);
  // Two 4-lane fp64 FMAs an iteration of 1.25 cycles natively: 2 x 4 x 65 ns against 0.36 ns
  // (the samples' blocks from later in the loop hold fewer of them).
  EXPECT_GT(f->slowdown, 300);
  EXPECT_LT(f->slowdown, 3000);
  EXPECT_GT(f->fma_cost_share, 0.95);
  // Register-only integer code: valgrind's dispatch alone, about 0.5 ns an instruction.
  EXPECT_LT(i->slowdown, 20);
  EXPECT_EQ(i->fma_cost_share, 0);
  EXPECT_EQ(f->decoded, 50u);
  EXPECT_EQ(f->samples, 50u);
}

TEST(SampledReplaySlowdown, Fp32FmaLanesCostATenthOfFp64) {
  CodeFile f64(kFma64Loop), f32(kFma32Loop);
  FunctionSamples s64, s32;
  SampleEvenly(f64, kFmaStarts, 10, &s64);
  SampleEvenly(f32, kFmaStarts, 10, &s32);
  std::optional<ReplaySlowdown> a = SampledReplaySlowdown(s64), b = SampledReplaySlowdown(s32);
  ASSERT_TRUE(a && b);
  // fp32: twice the lanes at a tenth of the cost each (2 x 6.9 / 66 = 0.21), the loop's
  // control the same for both.
  EXPECT_GT(b->slowdown / a->slowdown, 0.2);
  EXPECT_LT(b->slowdown / a->slowdown, 0.3);
}

TEST(SampledReplaySlowdown, KernelTimeCostsWhatItCostsNatively) {
  CodeFile fma(kFma64Loop);
  FunctionSamples user_only, half_kernel;
  SampleEvenly(fma, kFmaStarts, 10, &user_only);
  SampleEvenly(fma, kFmaStarts, 10, &half_kernel);
  half_kernel.by_function["[kernel]"] = 50;
  half_kernel.total += 50;
  std::optional<ReplaySlowdown> u = SampledReplaySlowdown(user_only);
  std::optional<ReplaySlowdown> h = SampledReplaySlowdown(half_kernel);
  ASSERT_TRUE(u && h);
  EXPECT_NEAR(h->slowdown, (u->slowdown + 1) / 2, 1e-9);
  EXPECT_EQ(h->samples, 100u);
}

TEST(SampledReplaySlowdown, RepStringInstructionsCostOneExecutionPerElement) {
  CodeFile rep(kRepMovsb);
  FunctionSamples samples;
  SampleEvenly(rep, {0}, 30, &samples);
  std::optional<ReplaySlowdown> r = SampledReplaySlowdown(samples);
  ASSERT_TRUE(r);
  // 20 ns per byte under valgrind against 45 bytes per ns natively.
  EXPECT_NEAR(r->slowdown, 20 * 45, 1e-6);
  EXPECT_NEAR(r->rep_cost_share, 1, 1e-12);
}

TEST(SampledReplaySlowdown, TooFewDecodedSamplesSayNothing) {
  CodeFile fma(kFma64Loop);
  FunctionSamples few, missing;
  SampleEvenly(fma, {0}, kFewestDecodedSamples - 1, &few);
  few.by_function["[kernel]"] = 1000;
  EXPECT_FALSE(SampledReplaySlowdown(few));
  // A module's file gone, or an address outside its code: nothing decodes.
  missing.by_code_address[{"/nonexistent/lib.so", kCodeFileAddress}] = 100;
  missing.by_code_address[{fma.path(), kCodeFileAddress + 0x10000}] = 100;
  missing.total = 200;
  EXPECT_FALSE(SampledReplaySlowdown(missing));
  EXPECT_FALSE(SampledReplaySlowdown(FunctionSamples{}));
}

}  // namespace
}  // namespace rprof
