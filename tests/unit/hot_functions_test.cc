// Which functions get a roofline point of their own (functions/hot_functions.h), what code
// without a symbol is called, and --functions' parsing.
#include "functions/hot_functions.h"

#include <gtest/gtest.h>

#include "functions/functions_option.h"
#include "functions/sampled_time.h"

namespace rprof {
namespace {

std::vector<std::string> Names(const std::vector<FunctionCandidate>& c,
                               const std::vector<size_t>& chosen) {
  std::vector<std::string> names;
  for (size_t i : chosen) names.push_back(c[i].name);
  return names;
}

TEST(SelectHotFunctions, WithoutSamplingInstructionsStandForTimeAndFlopsAddTheirOwn) {
  // 1000 instructions in all: `a` 60 %, `b` 30 %, the rest 1 % each or less; `flopper` does
  // few instructions but most FLOPs.
  std::vector<FunctionCandidate> c = {
      {"b", 300, 0, std::nullopt},    {"a", 600, 10, std::nullopt},
      {"tiny", 5, 0, std::nullopt},   {"flopper", 8, 1000, std::nullopt},
      {"small", 20, 0, std::nullopt}, {"never", 0, 0, std::nullopt},
  };
  HotFunctionRule rule;
  rule.top = 2;
  // Top 2 by instructions (a, b), everything above 1 % (small: 2 %), top 2 by FLOPs (flopper,
  // a); heaviest first; `tiny` (0.5 %) and `never` left out.
  EXPECT_EQ(Names(c, SelectHotFunctions(c, rule)),
            (std::vector<std::string>{"a", "b", "small", "flopper"}));
}

TEST(SelectHotFunctions, SampledTimeRanksWhereAnyCandidateHasIt) {
  std::vector<FunctionCandidate> c = {
      {"busy_loop", 900, 0, 0.10},  // many instructions, little time
      {"stalls", 100, 0, 0.85},     // few instructions, most of the time
      {"rest", 10, 0, 0.05},
  };
  HotFunctionRule rule;
  rule.top = 1;
  EXPECT_EQ(Names(c, SelectHotFunctions(c, rule)),
            (std::vector<std::string>{"stalls", "busy_loop", "rest"}));  // all above 1 %
  rule.min_share = 0.5;
  // busy_loop: 10 % of the time, but 89 % of the executed instructions, the replay's top 1.
  EXPECT_EQ(Names(c, SelectHotFunctions(c, rule)),
            (std::vector<std::string>{"stalls", "busy_loop"}));
  rule.min_share = 0.9;
  EXPECT_EQ(Names(c, SelectHotFunctions(c, rule)), (std::vector<std::string>{"stalls"}));
}

TEST(SelectHotFunctions, HeavyReplayWorkWithoutASampleIsChosen) {
  // An Intel guest's sort-and-copy program: memcpy's rep movsb drew none of the native run's 16
  // samples, and valgrind counted one instruction per byte moved, 49 % of the replay's.
  std::vector<FunctionCandidate> c = {
      {"msort_with_tmp", 20.7e6, 0, 0.5625},
      {"cmp", 9.6e6, 0, 0.1875},
      {"handle_intel", 504, 0, 0.0625},
      {"__memcpy_avx_unaligned_erms", 30.0e6, 0, 0.0},
      {"main", 0.8e6, 0, 0.0},
  };
  HotFunctionRule rule;
  // Time's three (every sampled one), then memcpy by its instructions; main's 1.3 % of them is
  // above 1 % too, but it is not among the top 2 by instructions.
  rule.top = 2;
  EXPECT_EQ(Names(c, SelectHotFunctions(c, rule)),
            (std::vector<std::string>{"msort_with_tmp", "cmp", "handle_intel",
                                      "__memcpy_avx_unaligned_erms"}));
}

TEST(SelectHotFunctions, OffChoosesNoneAndTiesAreBrokenByName) {
  std::vector<FunctionCandidate> c = {{"z", 50, 0, std::nullopt}, {"y", 50, 0, std::nullopt}};
  HotFunctionRule rule;
  rule.top = 0;
  EXPECT_TRUE(SelectHotFunctions(c, rule).empty());
  rule.top = 1;
  rule.min_share = 0.9;
  EXPECT_EQ(Names(c, SelectHotFunctions(c, rule)), (std::vector<std::string>{"y"}));
}

// A short run's only function has all its samples, a share of its own, and still too few for
// its lines' shares.
TEST(HasLineShares, FromFourSamplesOfAShareOfItsOwn) {
  EXPECT_TRUE(HasShareOfItsOwn(2, 2));
  EXPECT_FALSE(HasLineShares(1, 1));
  EXPECT_FALSE(HasLineShares(3, 3));
  EXPECT_TRUE(HasLineShares(4, 4));
  EXPECT_TRUE(HasLineShares(40, 100));
  EXPECT_FALSE(HasLineShares(2, 100));  // no share of its own
}

TEST(FunctionDisplayName, SymbolElseModuleAndAddress) {
  bool named = false;
  EXPECT_EQ(FunctionDisplayName("triad", "/tmp/app", 0x1139, &named), "triad");
  EXPECT_TRUE(named);
  // valgrind's "???" and callgrind's address stand-in are no names: module + start address.
  EXPECT_EQ(FunctionDisplayName("???", "/usr/lib/x86_64-linux-gnu/libm.so.6", 0x2a40, &named),
            "libm.so.6+0x2a40");
  EXPECT_FALSE(named);
  EXPECT_EQ(FunctionDisplayName("0x000000000040113a", "/tmp/app", 0x401130, &named),
            "app+0x401130");
  EXPECT_FALSE(named);
  EXPECT_EQ(FunctionDisplayName("", "???", 0x10, &named), "unknown-module+0x10");
  EXPECT_TRUE(IsSymbolName("0x_not_hex"));
}

// Issue 37: hot functions are listed heaviest first wherever they are shown, not by name.
TEST(FunctionRegionsHeaviestFirst, BySampledTimeElseBySimsInstructions) {
  auto metric = [](std::string name, double value, Source source, std::string region) {
    Metric m;
    m.name = std::move(name);
    m.value = value;
    m.source = source;
    m.region = std::move(region);
    return m;
  };
  // Without sampled time: by sim's instructions; other regions are left out.
  std::vector<Metric> counted = {
      metric("instructions", 10, Source::kSim, "fn:alpha"),
      metric("instructions", 300, Source::kSim, "fn:zeta"),
      metric("instructions", 20, Source::kSim, "fn:mid"),
      metric("instructions", 999, Source::kSim, "marked"),
      metric("instructions", 5000, Source::kSim, ""),
  };
  EXPECT_EQ(FunctionRegionsHeaviestFirst(counted),
            (std::vector<std::string>{"fn:zeta", "fn:mid", "fn:alpha"}));
  // Sampled time where the run has it, over instructions; one no sample fell in comes last,
  // ties by instructions, then by name.
  std::vector<Metric> sampled = counted;
  sampled.push_back(metric("time_share", 0.6, Source::kClock, "fn:alpha"));
  sampled.push_back(metric("time_share", 0.3, Source::kClock, "fn:mid"));
  EXPECT_EQ(FunctionRegionsHeaviestFirst(sampled),
            (std::vector<std::string>{"fn:alpha", "fn:mid", "fn:zeta"}));
  sampled.push_back(metric("time_share", 0.3, Source::kClock, "fn:zeta"));
  EXPECT_EQ(FunctionRegionsHeaviestFirst(sampled),
            (std::vector<std::string>{"fn:alpha", "fn:zeta", "fn:mid"}));
  EXPECT_TRUE(FunctionRegionsHeaviestFirst({}).empty());
}

TEST(FunctionRegion, PrefixRoundTrips) {
  EXPECT_EQ(FunctionRegion("triad"), "fn:triad");
  EXPECT_TRUE(IsFunctionRegion("fn:triad"));
  EXPECT_FALSE(IsFunctionRegion("triad"));
  EXPECT_FALSE(IsFunctionRegion("fn:"));
  EXPECT_EQ(FunctionOfRegion("fn:std::sort<int*>"), "std::sort<int*>");
}

TEST(ParseFunctionsOption, CountOrOff) {
  int top = -1;
  Error why;
  EXPECT_TRUE(ParseFunctionsOption("off", &top, &why));
  EXPECT_EQ(top, 0);
  EXPECT_TRUE(ParseFunctionsOption("25", &top, &why));
  EXPECT_EQ(top, 25);
  EXPECT_FALSE(ParseFunctionsOption("ten", &top, &why));
  EXPECT_EQ(why.message, "--functions ten: use a count from 1 to 1000, or off");
  EXPECT_EQ(why.kind, ErrorKind::kUsage);
  EXPECT_FALSE(ParseFunctionsOption("-3", &top, &why));
}

// One name in two modules is two functions, each with its own samples: the heavier keeps the
// name, the other is shown with its module's name, as sim names the functions it counted.
TEST(AddSampledFunctions, OneNameInTwoModulesIsTwoFunctions) {
  FunctionSamples samples;
  samples.by_function = {{"strcmp", 700}, {"main", 300}};
  samples.by_module_function = {{{"ld-linux-x86-64.so.2", "strcmp"}, 200},
                                {{"libc.so.6", "strcmp"}, 500},
                                {{"app", "main"}, 300}};
  samples.total = 1000;
  samples.period_s = 0.5e-3;
  samples.executions = 1;
  HotFunctionRule rule;
  std::vector<Metric> out;
  AddSampledFunctions(samples, 1.0, rule, &out);
  const Metric* libc = FindMetric(out, "time_share", Source::kClock, "fn:strcmp");
  const Metric* ld =
      FindMetric(out, "time_share", Source::kClock, "fn:strcmp (ld-linux-x86-64.so.2)");
  ASSERT_NE(libc, nullptr);
  ASSERT_NE(ld, nullptr);
  EXPECT_DOUBLE_EQ(*libc->value, 0.5);
  EXPECT_DOUBLE_EQ(*ld->value, 0.2);
  EXPECT_EQ(SamplesOf(samples, "/usr/lib/x86_64-linux-gnu/libc.so.6", "strcmp"), 500u);
  EXPECT_EQ(SamplesOf(samples, "/usr/lib/x86_64-linux-gnu/libm.so.6", "strcmp"), 0u);
}

// Without a source that counts per function, the samples alone make the functions' profile:
// time_s = samples x period per execution (CPU time, never share x the run's wall time), the top
// N and everything above 1 %, kernel code left out.
TEST(AddSampledFunctions, TimeProfileAloneSaysSo) {
  FunctionSamples samples;
  samples.by_function = {
      {"triad", 600}, {"matmul", 300}, {"[kernel]", 80}, {"main", 15}, {"setup", 5}};
  samples.total = 1000;
  samples.period_s = 0.5e-3;
  HotFunctionRule rule;
  rule.top = 2;
  std::vector<Metric> out;
  AddSampledFunctions(samples, 2.0, rule, &out);
  const Metric* triad = FindMetric(out, "time_s", Source::kClock, "fn:triad");
  ASSERT_NE(triad, nullptr);
  EXPECT_DOUBLE_EQ(*triad->value, 0.3);  // 600 x 0.5 ms, whatever the 2 s of wall time
  EXPECT_NE(triad->note.find("600 of the run's 1000 samples"), std::string::npos) << triad->note;
  EXPECT_NE(triad->note.find("not a share of the wall time"), std::string::npos) << triad->note;
  EXPECT_NE(triad->note.find(kTimeProfileOnly), std::string::npos) << triad->note;
  const Metric* share = FindMetric(out, "time_share", Source::kClock, "fn:matmul");
  ASSERT_NE(share, nullptr);
  EXPECT_DOUBLE_EQ(*share->value, 0.3);
  // main (1.5 %) is above 1 % though past the top 2; setup (0.5 %) is not; kernel code is no
  // function of the program.
  EXPECT_NE(FindMetric(out, "time_s", Source::kClock, "fn:main"), nullptr);
  EXPECT_EQ(FindMetric(out, "time_s", Source::kClock, "fn:setup"), nullptr);
  // Two samples are too few for a time: not hot, even within the top N.
  samples.by_function["rare"] = 2;
  rule.top = 10;
  out.clear();
  AddSampledFunctions(samples, 2.0, rule, &out);
  // 5 samples (±44 %): hot, with its share; its time_s is there, absent: too few for a rate.
  const Metric* setup = FindMetric(out, "time_s", Source::kClock, "fn:setup");
  ASSERT_NE(setup, nullptr);
  EXPECT_FALSE(setup->value.has_value());
  EXPECT_EQ(setup->note.rfind("5 samples: too few for a rate", 0), 0u) << setup->note;
  EXPECT_EQ(FindMetric(out, "time_share", Source::kClock, "fn:rare"), nullptr);
  EXPECT_EQ(FindMetric(out, "time_s", Source::kClock, "fn:[kernel]"), nullptr);
  // No FLOPs or bytes are made up for them; their samples have no line here: no hot lines,
  // said.
  // (1000 samples x 0.5 ms in 2 s: 0.25 CPUs, mostly off the CPU, said once for the run.)
  for (const Metric& m : out)
    EXPECT_TRUE(m.name == "time_s" || m.name == "time_share" || m.name == "hot_lines" ||
                (m.name == "off_cpu_share" && m.region.empty()))
        << m.name;
  const Metric* lines = FindMetric(out, "hot_lines", Source::kClock, "fn:triad");
  ASSERT_NE(lines, nullptr);
  EXPECT_FALSE(lines->value.has_value());
  EXPECT_NE(lines->note.find("no sample of it has a source line: no line information"),
            std::string::npos)
      << lines->note;
}

// A time-only function's hot lines: the 5 heaviest by sampled time, each a share of the run's
// samples under its line region; nothing else about a line is known, nothing else is said.
TEST(AddSampledLines, TheHeaviestLinesByTimeAlone) {
  FunctionSamples samples;
  samples.total = 1000;
  samples.by_function = {{"f", 700}, {"g", 300}};
  for (uint32_t line = 1; line <= 7; ++line)
    samples.by_line[{"f", "src/f.c", line}] = 10 * line;  // 10..70
  samples.by_line[{"g", "src/f.c", 9}] = 300;             // another function's line: not f's
  std::vector<Metric> out;
  AddSampledLines(samples, "f", "f", &out);
  std::vector<std::string> regions;
  for (const Metric& m : out)
    if (m.name == "time_share") regions.push_back(m.region);
  EXPECT_EQ(regions, (std::vector<std::string>{"ln:f@src/f.c:7", "ln:f@src/f.c:6", "ln:f@src/f.c:5",
                                               "ln:f@src/f.c:4", "ln:f@src/f.c:3"}));
  const Metric* top = FindMetric(out, "time_share", Source::kClock, "ln:f@src/f.c:7");
  ASSERT_NE(top, nullptr);
  EXPECT_DOUBLE_EQ(*top->value, 0.07);
  EXPECT_EQ(top->note, LineSamplesNote(70, 1000));
  const Metric* count = FindMetric(out, "hot_lines", Source::kClock, "fn:f");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(*count->value, 5);
  EXPECT_NE(count->note.find("of 7 lines sampled"), std::string::npos) << count->note;
  EXPECT_NE(count->note.find("no FLOPs or bytes per line"), std::string::npos) << count->note;
  for (const Metric& m : out) EXPECT_EQ(m.source, Source::kClock) << m.name;
  // A module without a line table: the sampler's reason.
  samples.line_why_not["g"] = "libg.so has no DWARF line information";
  samples.by_line.erase({"g", "src/f.c", 9});
  out.clear();
  AddSampledLines(samples, "g", "g", &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].value.has_value());
  EXPECT_EQ(out[0].note,
            "no sample of it has a source line: libg.so has no DWARF line information");
}

// Two samples of a thousand are a share (0.2 %), not a time: ±71 % would make any rate.
TEST(AddSampledTime, TooFewSamplesGiveAShareButNoTime) {
  FunctionSamples samples;
  samples.total = 1000;
  samples.period_s = 0.5e-3;
  std::vector<Metric> out;
  AddSampledTime(samples, 2, 1.0, "fn:f", &out);
  const Metric* time = FindMetric(out, "time_s", Source::kClock, "fn:f");
  ASSERT_NE(time, nullptr);
  EXPECT_FALSE(time->value.has_value());
  EXPECT_EQ(time->note.rfind("2 samples: too few for a rate (under 30)", 0), 0u) << time->note;
  const Metric* share = FindMetric(out, "time_share", Source::kClock, "fn:f");
  ASSERT_NE(share, nullptr);
  EXPECT_DOUBLE_EQ(*share->value, 0.002);
  // 29 are still too few; 30 are a time.
  out.clear();
  AddSampledTime(samples, kFewestSamplesForRate - 1, 1.0, "fn:f", &out);
  EXPECT_FALSE(FindMetric(out, "time_s", Source::kClock, "fn:f")->value.has_value());
  out.clear();
  AddSampledTime(samples, kFewestSamplesForRate, 1.0, "fn:f", &out);
  EXPECT_DOUBLE_EQ(*FindMetric(out, "time_s", Source::kClock, "fn:f")->value, 30 * 0.5e-3);
}

// Issue 38: a function's time is its CPU time per execution, samples x period / executions,
// whatever the run's wall time (a program asleep 40 % of it had its share x wall overstated).
TEST(AddSampledTime, TimeIsCpuTimePerExecution) {
  FunctionSamples samples;
  samples.total = 900;
  samples.period_s = 0.5e-3;
  samples.executions = 3;
  samples.threads = 1;
  std::vector<Metric> out;
  AddSampledTime(samples, 600, 0.3, "fn:f", &out);
  const Metric* time = FindMetric(out, "time_s", Source::kClock, "fn:f");
  ASSERT_NE(time, nullptr);
  EXPECT_DOUBLE_EQ(*time->value, 0.1);  // 600 x 0.5 ms / 3, not 2/3 x 0.3 s
  EXPECT_NE(time->note.find("each thread's counted"), std::string::npos) << time->note;
  EXPECT_NE(time->note.find("over 3 executions"), std::string::npos) << time->note;
  std::vector<Metric> later;
  AddSampledTime(samples, 600, 3.0, "fn:f", &later);
  EXPECT_DOUBLE_EQ(*FindMetric(later, "time_s", Source::kClock, "fn:f")->value, 0.1);
  // 0.15 s of CPU per execution in 0.3 s: 0.5 CPUs, not under half of one thread: nothing said.
  EXPECT_EQ(FindMetric(out, "off_cpu_share", Source::kClock), nullptr);
}

// Issue 38: a program mostly off the CPU says so once, for the run, with its utilization.
TEST(AddSampledTime, MostlyOffTheCpuIsSaidOnceForTheRun) {
  FunctionSamples samples;
  samples.total = 120;  // 60 ms of CPU per execution
  samples.period_s = 0.5e-3;
  samples.executions = 1;
  samples.threads = 1;
  std::vector<Metric> out;
  AddSampledTime(samples, 80, 0.6, "fn:f", &out);
  AddSampledTime(samples, 40, 0.6, "fn:g", &out);
  int said = 0;
  for (const Metric& m : out) said += m.name == "off_cpu_share";
  EXPECT_EQ(said, 1);
  const Metric* off = FindMetric(out, "off_cpu_share", Source::kClock);
  ASSERT_NE(off, nullptr);
  EXPECT_NEAR(*off->value, 0.9, 1e-9);
  EXPECT_NE(off->note.find("mostly off the CPU: 0.10 CPUs utilized"), std::string::npos)
      << off->note;
  for (const Metric& m : out) {
    if (m.name == "time_s") {
      EXPECT_EQ(m.note.find("off the CPU"), std::string::npos) << m.note;
    }
  }
  // The run's measured CPU time, where it is there, comes first: 0.5 CPUs is not "mostly off".
  std::vector<Metric> measured = {{"time_s", 0.6, "s", Source::kClock, "", ""},
                                  {"cpu_time_s", 0.3, "s", Source::kClock, "", ""}};
  AddSampledTime(samples, 80, 0.6, "fn:f", &measured);
  EXPECT_EQ(FindMetric(measured, "off_cpu_share", Source::kClock), nullptr);
  // Four threads at 1.5 CPUs: under half of them, said.
  samples.threads = 4;
  samples.total = 1800;
  std::vector<Metric> threads;
  AddSampledTime(samples, 900, 0.6, "fn:f", &threads);
  ASSERT_NE(FindMetric(threads, "off_cpu_share", Source::kClock), nullptr);
  EXPECT_NEAR(*FindMetric(threads, "off_cpu_share", Source::kClock)->value, 1 - 1.5 / 4, 1e-9);
}

TEST(AddSampledFunctions, NothingSampledNothingAdded) {
  FunctionSamples samples;
  std::vector<Metric> out;
  AddSampledFunctions(samples, 1.0, HotFunctionRule(), &out);
  EXPECT_TRUE(out.empty());
  samples.by_function = {{"f", 10}};
  samples.total = 10;
  AddSampledFunctions(samples, 0.0, HotFunctionRule(), &out);  // no time to share out
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace rprof
