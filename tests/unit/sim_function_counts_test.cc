// A callgrind-format output split by function (counters/sim/function_counts.h): each site's
// function, file and line as fl= / fi= / fn= and the line subposition said, each function's
// costs its own, and code without a symbol named by module and address.
#include <gtest/gtest.h>

#include "counters/sim/function_counts.h"

namespace rprof {
namespace {

// rprofsim's shape with --rprofsim-functions=yes: "positions: instr line", fl= then fn= before
// the cost lines they apply to, names compressed across parts.
constexpr const char* kTwoFunctions =
    "version: 1\ncreator: rprofsim-1\n"
    "part: 1\npositions: instr line\nevents: Ir Dr Dw\n"
    "ob=(1) /nonexistent/app\n"
    "fl=(1) /src/app.c\nfn=(1) triad\n"
    "0x1000 10 100 100 0\n"
    "0x1004 11 100 0 100\n"
    "fi=(2) /usr/include/inline.h\n"
    "0x1008 3 100 0 0\n"
    "fl=(1)\nfn=(2) matmul\n"
    "0x2000 20 50 0 0\n"
    "fl=(3) ???\nfn=(3) ???\n"
    "0x3000 0 7 0 0\n"
    "totals: 357 100 100\n"
    "part: 2\n"
    "fl=(1)\nfn=(1)\n"
    "0x1000 10 1 1 0\n"
    "totals: 1 1 0\n";

TEST(CallgrindOutput, KeepsEachSitesFunctionFileAndLine) {
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(ParseCallgrindOutput(kTwoFunctions, &out, &err)) << err.message;
  ASSERT_EQ(out.sites.size(), 5u);
  ASSERT_EQ(out.site_sources.size(), 5u);
  auto function = [&](size_t i) { return out.functions[out.site_sources[i].function]; };
  auto file = [&](size_t i) { return out.files[out.site_sources[i].file]; };
  EXPECT_EQ(function(0), "triad");
  EXPECT_EQ(file(0), "/src/app.c");
  EXPECT_EQ(out.site_sources[0].line, 10u);
  // Inlined code: its own file and line, the function it was inlined into.
  EXPECT_EQ(function(2), "triad");
  EXPECT_EQ(file(2), "/usr/include/inline.h");
  EXPECT_EQ(out.site_sources[2].line, 3u);
  EXPECT_EQ(function(3), "matmul");
  EXPECT_EQ(file(3), "/src/app.c");
  EXPECT_EQ(function(4), "???");
}

TEST(SplitByFunction, EachFunctionItsOwnCostsSourceAndName) {
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(ParseCallgrindOutput(kTwoFunctions, &out, &err)) << err.message;
  std::vector<FunctionSlice> slices = SplitByFunction(out);
  ASSERT_EQ(slices.size(), 3u);
  const FunctionSlice& triad = slices[0];
  EXPECT_EQ(triad.name, "triad");
  EXPECT_TRUE(triad.named);
  EXPECT_EQ(triad.output.sites.size(), 3u);
  // Ir over both parts: 101 + 100 + 100; its totals are its cost lines'.
  EXPECT_EQ(triad.output.self_totals[0], 301u);
  ASSERT_TRUE(triad.output.totals);
  EXPECT_EQ((*triad.output.totals)[0], 301u);
  // Most of its executions are in app.c, lines 10..11 (the inlined header's line is not).
  EXPECT_EQ(triad.file, "/src/app.c");
  EXPECT_EQ(triad.first_line, 10u);
  EXPECT_EQ(triad.last_line, 11u);
  EXPECT_EQ(slices[1].name, "matmul");
  EXPECT_EQ(slices[1].output.self_totals[0], 50u);
  // No symbol, and no unwind table (the file does not exist): module and lowest address.
  EXPECT_EQ(slices[2].name, "app+0x3000");
  EXPECT_FALSE(slices[2].named);
  EXPECT_EQ(slices[2].output.self_totals[0], 7u);
}

TEST(SplitByFunction, NothingWithoutFunctionNames) {
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(ParseCallgrindOutput("events: Ir\npositions: instr\nob=(1) /x\n0x10 5\n", &out, &err))
      << err.message;
  EXPECT_TRUE(SplitByFunction(out).empty());
}

}  // namespace
}  // namespace rprof
