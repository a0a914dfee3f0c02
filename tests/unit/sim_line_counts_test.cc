// A hot function's loops and lines (counters/sim/line_counts.h, issue 38): loops found from the
// backward jumps of hand-assembled code, the innermost loop of an address, and a function's
// sites split by line with a loop's lines (its `for` line and its body) as one entry, a line in
// no loop alone.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "core/json.h"
#include "counters/sim/line_counts.h"
#include "functions/function_json.h"

namespace rprof {
namespace {

// Two nested loops at 0x1000, then a forward jump, an indirect jump, a call back to the start
// (no loop) and a jump to below the function (not its loop).
constexpr uint64_t kBase = 0x1000;
const std::vector<uint8_t> kCode = {
    0x48, 0x31, 0xc0,                    // 0x1000 xor rax, rax      outer loop's first
    0x48, 0xff, 0xc1,                    // 0x1003 inc rcx           inner loop's first
    0x48, 0x39, 0xd1,                    // 0x1006 cmp rcx, rdx
    0x75, 0xf8,                          // 0x1009 jne 0x1003        inner loop's jump back
    0x48, 0xff, 0xc0,                    // 0x100b inc rax
    0x48, 0x39, 0xf0,                    // 0x100e cmp rax, rsi
    0x75, 0xed,                          // 0x1011 jne 0x1000        outer loop's jump back
    0xeb, 0x02,                          // 0x1013 jmp 0x1017        forward
    0xff, 0xe0,                          // 0x1015 jmp rax           indirect
    0xc3,                                // 0x1017 ret
    0xe8, 0xe3, 0xff, 0xff, 0xff,        // 0x1018 call 0x1000       a call, no loop
    0x0f, 0x85, 0xdc, 0xff, 0xff, 0xff,  // 0x101d jne 0xfff         below the function
};
const std::vector<uint64_t> kInstructions = {0x1000, 0x1003, 0x1006, 0x1009, 0x100b, 0x100e,
                                             0x1011, 0x1013, 0x1015, 0x1017, 0x1018, 0x101d};

std::span<const uint8_t> CodeAt(uint64_t address) {
  if (address < kBase || address >= kBase + kCode.size()) return {};
  return std::span<const uint8_t>(kCode).subspan(address - kBase);
}

TEST(FindLoops, EachBackwardJumpInsideTheFunctionIsALoop) {
  std::vector<LoopRange> loops = FindLoops(kInstructions, CodeAt);
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0], (LoopRange{0x1000, 0x1013}));
  EXPECT_EQ(loops[1], (LoopRange{0x1003, 0x100b}));
  // The innermost loop of an address: the shortest that holds it.
  EXPECT_EQ(InnermostLoop(loops, 0x1006), 1u);
  EXPECT_EQ(InnermostLoop(loops, 0x1003), 1u);
  EXPECT_EQ(InnermostLoop(loops, 0x100b), 0u);  // the inner loop ends before it
  EXPECT_EQ(InnermostLoop(loops, 0x1000), 0u);
  EXPECT_EQ(InnermostLoop(loops, 0x1013), std::nullopt);
  // Code that cannot be read has no loops; nor has no code.
  EXPECT_TRUE(
      FindLoops(kInstructions, [](uint64_t) { return std::span<const uint8_t>(); }).empty());
  EXPECT_TRUE(FindLoops({}, CodeAt).empty());
}

TEST(FindLoops, JumpsBackToOneTargetAreOneLoop) {
  // A `continue` jumps back to the loop's start as its last jump does.
  const std::vector<uint8_t> code = {
      0x48, 0xff, 0xc1,  // 0x2000 inc rcx
      0x74, 0xfb,        // 0x2003 je 0x2000    continue
      0x48, 0xff, 0xc0,  // 0x2005 inc rax
      0x75, 0xf6,        // 0x2008 jne 0x2000   the loop's end
      0xc3,              // 0x200a ret
  };
  auto at = [&](uint64_t address) {
    return std::span<const uint8_t>(code).subspan(address - 0x2000);
  };
  std::vector<LoopRange> loops = FindLoops({0x2000, 0x2003, 0x2005, 0x2008, 0x200a}, at);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0], (LoopRange{0x2000, 0x200a}));
}

// One function, lines as valgrind gives them: line 9 before the loop, the loop's `for` line 10
// (its initialisation before the loop, its increment and branch inside), body lines 11 and 12,
// a header's line inlined into the body, line 13 after the loop. Ir is the first event.
constexpr const char* kLoopFunction =
    "version: 1\ncreator: rprofsim-1\n"
    "part: 1\npositions: instr line\nevents: Ir Dr\n"
    "ob=(1) /nonexistent/app\n"
    "fl=(1) /src/app.c\nfn=(1) kernel\n"
    "0x1000 9 1 0\n"
    "0x1008 10 1 0\n"
    "0x1010 11 100 100\n"
    "0x1018 10 100 0\n"
    "fi=(2) /src/inline.h\n"
    "0x1020 3 50 0\n"
    "fe=(1)\n"
    "0x1028 12 100 100\n"
    "0x102c 10 100 0\n"
    "0x1040 13 5 0\n";

TEST(SplitByLine, ALoopsLinesAreOneEntryAndOtherLinesAlone) {
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(ParseCallgrindOutput(kLoopFunction, &out, &err)) << err.message;
  std::vector<FunctionSlice> slices = SplitByFunction(out);
  ASSERT_EQ(slices.size(), 1u);
  const std::vector<LoopRange> loops = {{0x1010, 0x1030}};
  uint64_t unlined = 0;
  std::vector<LineSlice> lines = SplitByLine(out, slices[0], nullptr, loops, &unlined);
  EXPECT_EQ(unlined, 0u);
  ASSERT_EQ(lines.size(), 3u);
  // Line 9 alone.
  EXPECT_EQ(lines[0].file, "/src/app.c");
  EXPECT_EQ(lines[0].line, 9u);
  EXPECT_EQ(lines[0].last_line, 9u);
  EXPECT_EQ(lines[0].output.self_totals[0], 1u);
  // The loop: lines 10 to 12 of app.c, its `for` line whole (its initialisation too, most of
  // the line ran in the loop), the inlined header's line with it.
  EXPECT_EQ(lines[1].file, "/src/app.c");
  EXPECT_EQ(lines[1].line, 10u);
  EXPECT_EQ(lines[1].last_line, 12u);
  EXPECT_EQ(lines[1].output.self_totals[0], 1u + 100 + 100 + 50 + 100 + 100);
  EXPECT_EQ(lines[1].output.self_totals[1], 200u);
  EXPECT_EQ(lines[1].output.sites.size(), 6u);
  using Place = std::pair<std::string, uint32_t>;
  EXPECT_EQ(lines[1].lines,
            (std::vector<Place>{
                {"/src/app.c", 10}, {"/src/app.c", 11}, {"/src/app.c", 12}, {"/src/inline.h", 3}}));
  // Line 13, after the loop, alone.
  EXPECT_EQ(lines[2].line, 13u);
  EXPECT_EQ(lines[2].last_line, 13u);

  // Without loops: one entry per line, as before.
  lines = SplitByLine(out, slices[0], nullptr, {}, &unlined);
  ASSERT_EQ(lines.size(), 6u);
  for (const LineSlice& line : lines) EXPECT_EQ(line.line, line.last_line);
  EXPECT_EQ(lines[1].line, 10u);
  EXPECT_EQ(lines[1].output.self_totals[0], 201u);
}

TEST(SplitByLine, TwoLoopsAtOneLineAreOneEntry) {
  // A vector loop and its remainder loop, both of line 10.
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(
      ParseCallgrindOutput("version: 1\npositions: instr line\nevents: Ir\n"
                           "ob=(1) /nonexistent/app\nfl=(1) /src/app.c\nfn=(1) k\n"
                           "0x1000 10 40\n0x1010 10 3\n0x1020 11 1\n",
                           &out, &err))
      << err.message;
  std::vector<FunctionSlice> slices = SplitByFunction(out);
  ASSERT_EQ(slices.size(), 1u);
  uint64_t unlined = 0;
  std::vector<LineSlice> lines =
      SplitByLine(out, slices[0], nullptr, {{0x1000, 0x1008}, {0x1010, 0x1018}}, &unlined);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line, 10u);
  EXPECT_EQ(lines[0].last_line, 10u);
  EXPECT_EQ(lines[0].output.self_totals[0], 43u);
  EXPECT_EQ(lines[1].line, 11u);
}

TEST(SplitByLine, ALoopOverManyLinesLeavesThemAlone) {
  // An interpreter's dispatch: one backward jump from far below, lines 100 to 100 +
  // kMostLoopLines apart; the loop of lines 10..11 within stays one.
  CallgrindOutput out;
  Error err;
  std::string text =
      "version: 1\npositions: instr line\nevents: Ir\n"
      "ob=(1) /nonexistent/app\nfl=(1) /src/app.c\nfn=(1) k\n"
      "0x1000 100 10\n0x1010 10 20\n0x1014 11 20\n0x1020 " +
      std::to_string(100 + kMostLoopLines) + " 10\n";
  ASSERT_TRUE(ParseCallgrindOutput(text, &out, &err)) << err.message;
  std::vector<FunctionSlice> slices = SplitByFunction(out);
  ASSERT_EQ(slices.size(), 1u);
  uint64_t unlined = 0;
  std::vector<LineSlice> lines =
      SplitByLine(out, slices[0], nullptr, {{0x1000, 0x1030}, {0x1010, 0x1018}}, &unlined);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].line, 10u);
  EXPECT_EQ(lines[0].last_line, 11u);
  EXPECT_EQ(lines[1].line, 100u);
  EXPECT_EQ(lines[1].last_line, 100u);
  EXPECT_EQ(lines[2].line, 100u + kMostLoopLines);
  // One line fewer apart: one loop.
  text =
      "version: 1\npositions: instr line\nevents: Ir\n"
      "ob=(1) /nonexistent/app\nfl=(1) /src/app.c\nfn=(1) k\n"
      "0x1000 100 10\n0x1020 " +
      std::to_string(99 + kMostLoopLines) + " 10\n";
  ASSERT_TRUE(ParseCallgrindOutput(text, &out, &err)) << err.message;
  slices = SplitByFunction(out);
  lines = SplitByLine(out, slices[0], nullptr, {{0x1000, 0x1030}}, &unlined);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].last_line, 99u + kMostLoopLines);
}

TEST(FunctionLines, ALoopsEntryReadsBackAsItsLineRange) {
  // What AddHotLineMetrics stores for a loop on lines 27..28 and a line 18 alone.
  std::vector<Metric> metrics = {
      {"flops", 40, "", Source::kSim, "ln:dot@/src/a.c:27", ""},
      {"line_last", 28, "line", Source::kSim, "ln:dot@/src/a.c:27", "/src/a.c"},
      {"flops", 10, "", Source::kSim, "ln:dot@/src/a.c:18", ""},
  };
  std::map<std::string, std::vector<const Metric*>> by_region;
  for (const Metric& m : metrics) by_region[m.region].push_back(&m);
  std::vector<FunctionLine> lines = FunctionLines("dot", by_region);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].where.line, 27u);
  EXPECT_EQ(lines[0].last_line, 28u);
  EXPECT_EQ(LinePlace(lines[0]), "a.c:27-28");
  EXPECT_EQ(lines[1].last_line, 18u);
  EXPECT_EQ(LinePlace(lines[1]), "a.c:18");
  // JSON: last_line for the range alone.
  for (const auto& [line, json] :
       {std::pair{lines[0], std::string(R"({"file":"/src/a.c","line":27,"last_line":28,)")},
        std::pair{lines[1], std::string(R"({"file":"/src/a.c","line":18,"bytes_per_flop")")}}) {
    JsonWriter w;
    w.BeginObject();
    WriteLineHead(line, &w);
    w.EndObject();
    EXPECT_EQ(w.str().substr(0, json.size()), json);
  }
}

}  // namespace
}  // namespace rprof
