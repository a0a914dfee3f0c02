// run --isa: the decision for both CPU states (this is what covers an AVX-512 CPU where the
// tests run on an AVX2 one), the table of switches, a user's own values, the note.
#include "targets/isa_environment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

namespace rprof {
namespace {

EnvironmentLookup Lookup(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

const IsaSetting* Find(const std::vector<IsaSetting>& settings, const std::string& variable) {
  for (const IsaSetting& s : settings)
    if (s.variable == variable) return &s;
  return nullptr;
}

TEST(IsaDecision, DefaultsToAvx2OnlyWhereAReplayMeetsAvx512) {
  IsaDecision d = DecideIsa(std::nullopt, /*cpu_has_avx512=*/true, /*replays=*/true);
  EXPECT_EQ(d.choice, IsaChoice::kAvx2);
  EXPECT_TRUE(d.by_default);
  EXPECT_EQ(DecideIsa(std::nullopt, true, false).choice, IsaChoice::kNative);
  EXPECT_EQ(DecideIsa(std::nullopt, false, true).choice, IsaChoice::kNative);
  EXPECT_EQ(DecideIsa(std::nullopt, false, false).choice, IsaChoice::kNative);
}

TEST(IsaDecision, WhatTheUserAskedForWinsOnBothCpus) {
  for (bool avx512 : {false, true})
    for (bool replays : {false, true}) {
      IsaDecision native = DecideIsa(IsaChoice::kNative, avx512, replays);
      EXPECT_EQ(native.choice, IsaChoice::kNative);
      EXPECT_FALSE(native.by_default);
      IsaDecision avx2 = DecideIsa(IsaChoice::kAvx2, avx512, replays);
      EXPECT_EQ(avx2.choice, IsaChoice::kAvx2);
      EXPECT_FALSE(avx2.by_default);
    }
}

TEST(IsaChoice, ParsesItsTwoWords) {
  IsaChoice c = IsaChoice::kNative;
  EXPECT_TRUE(ParseIsaChoice("avx2", &c));
  EXPECT_EQ(c, IsaChoice::kAvx2);
  EXPECT_TRUE(ParseIsaChoice("native", &c));
  EXPECT_EQ(c, IsaChoice::kNative);
  EXPECT_FALSE(ParseIsaChoice("avx512", &c));
  EXPECT_FALSE(ParseIsaChoice("AVX2", &c));
  EXPECT_STREQ(IsaChoiceName(IsaChoice::kAvx2), "avx2");
}

TEST(IsaEnvironmentPlan, NativeSetsNothing) {
  EXPECT_TRUE(PlanIsaEnvironment(IsaChoice::kNative, true, Lookup({})).empty());
  EXPECT_EQ(IsaNote({IsaChoice::kNative, true}, {}, true), "");
}

TEST(IsaEnvironmentPlan, Avx2SetsEachLibrarysSwitch) {
  auto settings = PlanIsaEnvironment(IsaChoice::kAvx2, /*cpu_has_avx512=*/true, Lookup({}));
  ASSERT_EQ(settings.size(), Avx2Switches().size());
  EXPECT_EQ(Find(settings, "OPENBLAS_CORETYPE")->value, "Haswell");
  EXPECT_EQ(Find(settings, "MKL_ENABLE_INSTRUCTIONS")->value, "AVX2");
  EXPECT_EQ(Find(settings, "GLIBC_TUNABLES")->value,
            "glibc.cpu.hwcaps=-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,-AVX512VL");
  EXPECT_EQ(Find(settings, "NPY_DISABLE_CPU_FEATURES")->value,
            "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL");
  EXPECT_EQ(Find(settings, "ATEN_CPU_CAPABILITY")->value, "avx2");
  EXPECT_EQ(Find(settings, "ONEDNN_MAX_CPU_ISA")->value, "AVX2");
  for (const IsaSetting& s : settings) EXPECT_FALSE(s.user_kept) << s.variable;
  for (const IsaSwitch& s : Avx2Switches()) EXPECT_STRNE(s.library, "") << s.variable;
}

TEST(IsaEnvironmentPlan, NumPyOnlyWhereTheCpuHasAvx512) {
  // NumPy warns on stderr about each disabled name the CPU lacks.
  auto settings = PlanIsaEnvironment(IsaChoice::kAvx2, /*cpu_has_avx512=*/false, Lookup({}));
  EXPECT_EQ(Find(settings, "NPY_DISABLE_CPU_FEATURES"), nullptr);
  EXPECT_NE(Find(settings, "OPENBLAS_CORETYPE"), nullptr);
}

TEST(IsaEnvironmentPlan, TheUsersValueWinsAndGlibcTunablesAreAppended) {
  auto settings = PlanIsaEnvironment(
      IsaChoice::kAvx2, true,
      Lookup({{"OPENBLAS_CORETYPE", "Zen"}, {"GLIBC_TUNABLES", "glibc.malloc.arena_max=2"}}));
  const IsaSetting* blas = Find(settings, "OPENBLAS_CORETYPE");
  EXPECT_EQ(blas->value, "Zen");
  EXPECT_TRUE(blas->user_kept);
  const IsaSetting* tunables = Find(settings, "GLIBC_TUNABLES");
  EXPECT_EQ(tunables->value,
            "glibc.malloc.arena_max=2:glibc.cpu.hwcaps=-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,"
            "-AVX512VL");
  EXPECT_FALSE(tunables->user_kept);
  // Their own hwcaps: kept whole, never a second glibc.cpu.hwcaps.
  auto theirs = PlanIsaEnvironment(IsaChoice::kAvx2, true,
                                   Lookup({{"GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX2"}}));
  EXPECT_EQ(Find(theirs, "GLIBC_TUNABLES")->value, "glibc.cpu.hwcaps=-AVX2");
  EXPECT_TRUE(Find(theirs, "GLIBC_TUNABLES")->user_kept);
}

TEST(IsaEnvironmentNote, SaysWhatWasSetWhyAndWhatWasKept) {
  std::vector<IsaSetting> settings = {{"OPENBLAS_CORETYPE", "Zen", true},
                                      {"MKL_ENABLE_INSTRUCTIONS", "AVX2", false}};
  std::string by_default = IsaNote({IsaChoice::kAvx2, true}, settings, true);
  EXPECT_EQ(by_default,
            "--isa avx2 (the default with sim on an AVX-512 CPU, whose AVX-512 code valgrind "
            "cannot run; --isa native turns it off): MKL_ENABLE_INSTRUCTIONS=AVX2 for the timed "
            "runs and the replay, kept as the user set it: OPENBLAS_CORETYPE=Zen");
  EXPECT_EQ(IsaNote({IsaChoice::kAvx2, false}, {settings[1]}, false),
            "--isa avx2: MKL_ENABLE_INSTRUCTIONS=AVX2 for the timed runs");
}

TEST(IsaEnvironmentScope, SetsAndRestoresRprofsOwnEnvironment) {
  setenv("MKL_ENABLE_INSTRUCTIONS", "SSE4_2", 1);
  unsetenv("ONEDNN_MAX_CPU_ISA");
  {
    IsaEnvironment env({{"MKL_ENABLE_INSTRUCTIONS", "AVX2", false},
                        {"ONEDNN_MAX_CPU_ISA", "AVX2", false},
                        {"OPENBLAS_CORETYPE", "Zen", true}});
    EXPECT_STREQ(std::getenv("MKL_ENABLE_INSTRUCTIONS"), "AVX2");
    EXPECT_STREQ(std::getenv("ONEDNN_MAX_CPU_ISA"), "AVX2");
  }
  EXPECT_STREQ(std::getenv("MKL_ENABLE_INSTRUCTIONS"), "SSE4_2");
  EXPECT_EQ(std::getenv("ONEDNN_MAX_CPU_ISA"), nullptr);
  unsetenv("MKL_ENABLE_INSTRUCTIONS");
}

}  // namespace
}  // namespace rprof
