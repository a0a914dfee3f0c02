// The callgrind output parser on hand-written snippets shaped like valgrind 3.19's output.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "counters/sim/callgrind_output.h"

namespace rprof {
namespace {

// Cost of (object name, address) for one event, or -1 when the site is absent.
int64_t CostAt(const CallgrindOutput& out, const std::string& object, uint64_t address,
               const std::string& event) {
  int e = out.EventIndex(event);
  for (size_t i = 0; i < out.sites.size(); ++i) {
    if (out.objects[out.sites[i].object] == object && out.sites[i].address == address) {
      return static_cast<int64_t>(out.Cost(i, e));
    }
  }
  return -1;
}

CallgrindOutput MustParse(const std::string& text) {
  CallgrindOutput out;
  Error err;
  EXPECT_TRUE(ParseCallgrindOutput(text, &out, &err)) << err.message;
  return out;
}

std::string ParseError(const std::string& text) {
  CallgrindOutput out;
  Error err;
  EXPECT_FALSE(ParseCallgrindOutput(text, &out, &err)) << "parsed:\n" << text;
  return err.message;
}

// The header callgrind 3.19 writes, with a 9-event cache simulation.
const char kHeader[] =
    "# callgrind format\n"
    "version: 1\n"
    "creator: callgrind-3.19.0\n"
    "pid: 4808\n"
    "cmd:  ./t 1000\n"
    "part: 1\n"
    "\n\n"
    "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
    "desc: D1 cache: 32768 B, 64 B, 8-way associative\n"
    "desc: LL cache: 268435456 B, 64 B, direct-mapped\n"
    "\n"
    "desc: Timerange: Basic block 0 - 39039\n"
    "desc: Trigger: Program termination\n"
    "\n"
    "positions: instr line\n"
    "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
    "summary: 0\n"
    "\n\n";

TEST(CallgrindOutput, ReadsARealShapedFile) {
  // Trimmed from a real run of a triad loop: name compression, a call line with the callee's
  // inclusive cost, relative addresses, one instruction reached from two basic blocks (0x11c8 is
  // written twice: once at +3, once at -25).
  std::string text = std::string(kHeader) +
                     "ob=(1) /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
                     "fl=(1) ???\n"
                     "fn=(0) 0x000000000001ab70\n"
                     "cob=(5) /tmp/cg/t\n"
                     "cfi=(139) ???\n"
                     "cfn=(502) (below main)\n"
                     "calls=1 0x12f0 0 \n"
                     "0x1abaa 0 6017 2002 1007 3 1 17 3 1\n"
                     "\n"
                     "ob=(5)\n"
                     "fl=(139)\n"
                     "fn=(536) main\n"
                     "0x11ac 0 1 0 1\n"
                     "+5 0 1 1\n"
                     "+20 0 1\n"        // 0x11c5
                     "+3 0 1 1\n"       // 0x11c8, first block
                     "+5 0 1 1\n"       // 0x11cd
                     "+6 0 1 0 1\n"     // 0x11d3
                     "-11 0 999 999\n"  // 0x11c8 again, loop block
                     "+5 0 999 999\n"
                     "+6 0 999 0 999 0 0 16\n"
                     "\n"
                     "totals: 3003 2001 1001 0 0 16\n";
  CallgrindOutput out = MustParse(text);
  EXPECT_EQ(out.events.size(), 9u);
  EXPECT_EQ(out.events[0], "Ir");
  EXPECT_EQ(out.EventIndex("D1mw"), 5);
  EXPECT_EQ(out.EventIndex("nope"), -1);
  EXPECT_TRUE(out.has_instr_positions);
  EXPECT_TRUE(out.has_line_positions);
  EXPECT_EQ(out.creator, "callgrind-3.19.0");
  EXPECT_EQ(out.command, "./t 1000");
  ASSERT_EQ(out.pids.size(), 1u);
  EXPECT_EQ(out.pids[0], 4808);
  EXPECT_EQ(out.parts, 1);
  ASSERT_EQ(out.triggers.size(), 1u);
  EXPECT_EQ(out.triggers[0], "Program termination");

  // Only self cost: the call line's 6017 Ir in ld.so is the callee's inclusive cost.
  EXPECT_EQ(CostAt(out, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 0x1abaa, "Ir"), -1);
  EXPECT_EQ(out.sites.size(), 6u);
  EXPECT_EQ(CostAt(out, "/tmp/cg/t", 0x11ac, "Ir"), 1);
  EXPECT_EQ(CostAt(out, "/tmp/cg/t", 0x11ac, "Dw"), 1);
  EXPECT_EQ(CostAt(out, "/tmp/cg/t", 0x11b1, "Dr"), 1);
  EXPECT_EQ(CostAt(out, "/tmp/cg/t", 0x11c8, "Ir"), 1000);  // 1 + 999: summed over blocks
  EXPECT_EQ(CostAt(out, "/tmp/cg/t", 0x11c8, "Dr"), 1000);
  EXPECT_EQ(CostAt(out, "/tmp/cg/t", 0x11cd, "Ir"), 1000);
  EXPECT_EQ(CostAt(out, "/tmp/cg/t", 0x11d3, "Dw"), 1000);
  EXPECT_EQ(CostAt(out, "/tmp/cg/t", 0x11d3, "D1mw"), 16);
  EXPECT_EQ(CostAt(out, "/tmp/cg/t", 0x11d3, "DLmw"), 0);  // missing trailing counts are 0

  ASSERT_TRUE(out.totals.has_value());
  EXPECT_EQ(out.self_totals, *out.totals);
  EXPECT_EQ(out.self_totals[0], 3003u);

  ASSERT_TRUE(out.cache.d1.has_value());
  EXPECT_EQ(out.cache.d1->size_bytes, 32768u);
  EXPECT_EQ(out.cache.d1->line_bytes, 64u);
  EXPECT_EQ(out.cache.d1->associativity, 8u);
  ASSERT_TRUE(out.cache.ll.has_value());
  EXPECT_EQ(out.cache.ll->size_bytes, 268435456u);
  EXPECT_EQ(out.cache.ll->associativity, 1u);
  ASSERT_TRUE(out.cache.i1.has_value());

  // Sites come sorted by object, then address.
  for (size_t i = 1; i < out.sites.size(); ++i) {
    const InstructionSite& a = out.sites[i - 1];
    const InstructionSite& b = out.sites[i];
    EXPECT_TRUE(a.object < b.object || (a.object == b.object && a.address < b.address));
  }
}

TEST(CallgrindOutput, NameCompressionAcrossObjects) {
  std::string text = std::string(kHeader) +
                     "ob=(1) /lib/a.so\n"
                     "fl=(1) a.c\n"
                     "fn=(1) f\n"
                     "0x100 0 5\n"
                     "ob=(2) /lib/b.so\n"
                     "fl=(2) b.c\n"
                     "fn=(2) g\n"
                     "0x100 0 7\n"
                     "ob=(1)\n"  // back to /lib/a.so by id
                     "fl=(1)\n"
                     "fn=(1)\n"
                     "0x100 0 1\n"
                     "ob=/lib/c.so\n"  // no compression at all
                     "fn=plain name with spaces\n"
                     "0x200 0 2\n";
  CallgrindOutput out = MustParse(text);
  EXPECT_EQ(CostAt(out, "/lib/a.so", 0x100, "Ir"), 6);
  EXPECT_EQ(CostAt(out, "/lib/b.so", 0x100, "Ir"), 7);
  EXPECT_EQ(CostAt(out, "/lib/c.so", 0x200, "Ir"), 2);
  EXPECT_FALSE(out.totals.has_value());  // no totals: line
}

TEST(CallgrindOutput, RelativePositionsAndStar) {
  std::string text = std::string(kHeader) +
                     "ob=(1) /x\n"
                     "fn=(1) f\n"
                     "0x1000 10 1\n"
                     "+4 +1 2\n"     // 0x1004 line 11
                     "* * 3\n"       // 0x1004 again
                     "-4 -1 4\n"     // 0x1000
                     "+0x10 * 5\n";  // hex relative: 0x1010
  CallgrindOutput out = MustParse(text);
  EXPECT_EQ(CostAt(out, "/x", 0x1000, "Ir"), 5);
  EXPECT_EQ(CostAt(out, "/x", 0x1004, "Ir"), 5);
  EXPECT_EQ(CostAt(out, "/x", 0x1010, "Ir"), 5);
}

TEST(CallgrindOutput, CallLinesAreNotSelfCostAndDoNotMoveTheBase) {
  // From a real run (tests/sim_targets-like: two collection switches in one function). The call
  // of on() at 0x129f ran with collection off, so its own cost is zero and callgrind wrote only
  // the call's inclusive cost at "+25" from the last self cost line (0x1286). The next self cost
  // line "+30" is relative to 0x1286 as well: callgrind's writer does not move the base for
  // call lines. 0x1286 + 30 = 0x12a4 is the next instruction; 0x129f + 30 would be mid-way into
  // one.
  std::string text = std::string(kHeader) +
                     "ob=(5) /tmp/cg/ex2\n"
                     "fl=(139) ???\n"
                     "fn=(536) main\n"
                     "cfn=(548) on\n"
                     "calls=1 0x1149 0 \n"
                     "0x1257 0 3 2 1\n"
                     "0x125c 0 1\n"
                     "+2 0 1 0 1\n"
                     "cfn=(550) work\n"
                     "calls=1 -89 0 \n"
                     "* 0 707 2 0 0 1 0 0 1\n"
                     "+5 0 1\n"
                     "+35 0 1 0 1\n"  // 0x1286: call off
                     "cfn=(552) off\n"
                     "calls=1 0x11a7 0 \n"
                     "* 0 9 0 6 1 0 0 1\n"
                     "cfn=(548)\n"
                     "calls=1 0x1149 0 \n"
                     "+25 0 3 2 1\n"  // inclusive cost of on() called at 0x129f
                     "+30 0 1 1\n"    // self cost at 0x12a4
                     "+5 0 1 1\n"     // 0x12a9
                     "\n"
                     "totals: 6 2 2 0 0 0 0 0 0\n";
  CallgrindOutput out = MustParse(text);
  EXPECT_EQ(CostAt(out, "/tmp/cg/ex2", 0x1257, "Ir"), -1);  // call cost only
  EXPECT_EQ(CostAt(out, "/tmp/cg/ex2", 0x125c, "Ir"), 1);
  EXPECT_EQ(CostAt(out, "/tmp/cg/ex2", 0x125e, "Ir"), 1);
  EXPECT_EQ(CostAt(out, "/tmp/cg/ex2", 0x1263, "Ir"), 1);
  EXPECT_EQ(CostAt(out, "/tmp/cg/ex2", 0x1286, "Ir"), 1);
  EXPECT_EQ(CostAt(out, "/tmp/cg/ex2", 0x129f, "Ir"), -1);
  EXPECT_EQ(CostAt(out, "/tmp/cg/ex2", 0x12a4, "Dr"), 1);
  EXPECT_EQ(CostAt(out, "/tmp/cg/ex2", 0x12a9, "Ir"), 1);
  EXPECT_EQ(out.self_totals[0], 6u);  // 707 + 9 + 3 + 3 of calls are not in it
}

TEST(CallgrindOutput, JumpLinesCarryNoCost) {
  std::string text = std::string(kHeader) +
                     "ob=(1) /x\n"
                     "fn=(1) f\n"
                     "0x3490 0 1\n"
                     "+7 0 1\n"
                     "jcnd=1/1 +26 0\n"
                     "* 0\n"
                     "+26 0 1 1\n"  // relative to 0x3497, not to the jump target
                     "jump=1 0x3490 0\n"
                     "* 0\n"
                     "jfi=(3) other.c\n"
                     "jfn=(9) g\n";
  CallgrindOutput out = MustParse(text);
  EXPECT_EQ(CostAt(out, "/x", 0x3490, "Ir"), 1);
  EXPECT_EQ(CostAt(out, "/x", 0x3497, "Ir"), 1);
  EXPECT_EQ(CostAt(out, "/x", 0x34b1, "Dr"), 1);
  EXPECT_EQ(out.sites.size(), 3u);
}

TEST(CallgrindOutput, PartsAreSummedAndEventsUnited) {
  std::string text = std::string(kHeader) +
                     "ob=(1) /x\n"
                     "fn=(1) f\n"
                     "0x10 0 4 1\n"
                     "totals: 4 1\n"
                     "\n"
                     "part: 2\n"
                     "desc: Trigger: Client Request: region b\n"
                     "positions: instr line\n"
                     "events: Ir Dr Dw Bc\n"
                     "summary: 8\n"
                     "ob=(1)\n"  // ids stay valid across parts
                     "fn=(1)\n"
                     "0x10 0 2 0 0 5\n"
                     "0x20 0 6\n"
                     "totals: 8 0 0 5\n";
  CallgrindOutput out = MustParse(text);
  EXPECT_EQ(out.parts, 2);
  ASSERT_EQ(out.triggers.size(), 2u);
  EXPECT_EQ(out.triggers[1], "Client Request: region b");
  ASSERT_EQ(out.events.size(), 10u);  // the 9 of part 1, then Bc
  EXPECT_EQ(out.events[9], "Bc");
  EXPECT_EQ(CostAt(out, "/x", 0x10, "Ir"), 6);
  EXPECT_EQ(CostAt(out, "/x", 0x10, "Dr"), 1);
  EXPECT_EQ(CostAt(out, "/x", 0x10, "Bc"), 5);
  EXPECT_EQ(CostAt(out, "/x", 0x20, "Ir"), 6);
  ASSERT_TRUE(out.totals.has_value());
  EXPECT_EQ((*out.totals)[0], 12u);
  EXPECT_EQ((*out.totals)[9], 5u);
}

TEST(CallgrindOutput, LineOnlyPositionsHaveNoAddresses) {
  CallgrindOutput out = MustParse(
      "events: Ir\n"
      "fl=a.c\n"
      "fn=main\n"
      "15 90\n"
      "+1 20\n");
  EXPECT_FALSE(out.has_instr_positions);
  EXPECT_EQ(out.self_totals[0], 110u);
}

TEST(CallgrindOutput, MalformedInputNamesTheLine) {
  struct Case {
    std::string text;
    std::string expected;  // substring of the error
  };
  const std::string h = "positions: instr line\nevents: Ir Dr\nob=(1) /x\nfn=(1) f\n";  // 4 lines
  const Case cases[] = {
      {"fn=f\n0x10 0 1\n", "line 2: cost line before any events: line"},
      {h + "0x10 0 1 2 3\n", "line 5: more than 2 costs"},
      {h + "0x10\n", "line 5: position has 1 subpositions but positions: lists 2"},
      {h + "+x 0 1\n", "line 5: bad relative instr position '+x'"},
      {h + "0x10 0 1\n-0x20 0 1\n", "line 6: relative position '-0x20' goes below 0"},
      {h + "0x10 0 1x\n", "line 5: bad cost '1x'"},
      {h + "0x10 0 99999999999999999999999\n", "line 5: bad cost"},
      {h + "fn=(7)\n", "line 5: name id (7) is used before it is defined"},
      {h + "fn=(x) f\n", "line 5: bad name compression"},
      {h + "calls=1 0x20 0\n", "line 5: calls= line is the last line"},
      {h + "calls=1 0x20 0\nfn=(1)\n",
       "line 6: 'fn=' line where the cost line of the calls=/jump "
       "line 5 must follow"},
      {h + "calls=x 0x20 0\n0x10 0 1\n", "line 5: calls= has a bad count 'x'"},
      {h + "jcnd=3 0x20 0\n* 0\n", "line 5: jcnd= has a bad count '3'"},
      {h + "jump=1 0x20 0\n* 0 5\n", "line 6: the line after a jump= line carries costs"},
      {h + "0x10 0 5 1\ntotals: 4 1\n",
       "line 6: totals: Ir = 4 but the cost lines of this part "
       "sum to 5"},
      {h + "zz=1\n", "line 5: unknown specification 'zz='"},
      {h + "%%%\n", "line 5: unrecognised line '%%%'"},
      {h + "hello world\n", "line 5: unrecognised line 'hello world'"},
      {"version: 2\nevents: Ir\n", "line 1: unsupported callgrind format version '2'"},
      {"", "line 1: no events: line"},
      {"# callgrind format\nversion: 1\n", "line 3: no events: line"},
      {"events: Ir Ir\n", "line 1: events: lists 'Ir' twice"},
      {"events: Ir 2x\n", "line 1: events: has a bad event name '2x'"},
      {"events:\n", "line 1: events: lists no event"},
      {"positions:\nevents: Ir\n", "line 1: positions: lists no subposition"},
      {"pid: abc\nevents: Ir\n", "line 1: pid: is not a number"},
  };
  for (const Case& c : cases) {
    std::string err = ParseError(c.text);
    EXPECT_NE(err.find(c.expected), std::string::npos)
        << "input:\n"
        << c.text << "\nerror: " << err << "\nexpected: " << c.expected;
  }
}

TEST(CallgrindOutput, CacheDescriptions) {
  auto g = ParseCacheDescription("32768 B, 64 B, 8-way associative");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->size_bytes, 32768u);
  EXPECT_EQ(g->line_bytes, 64u);
  EXPECT_EQ(g->associativity, 8u);
  g = ParseCacheDescription("268435456 B, 64 B, direct-mapped");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->associativity, 1u);
  g = ParseCacheDescription("8192 B, 32 B, fully associative");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->associativity, 0u);
  g = ParseCacheDescription("1048576 B, 64 B, 16-way associative, sectored");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->associativity, 16u);
  EXPECT_FALSE(ParseCacheDescription(""));
  EXPECT_FALSE(ParseCacheDescription("32768 B, 0 B, 8-way associative"));
  EXPECT_FALSE(ParseCacheDescription("big, 64 B, 8-way associative"));
  EXPECT_FALSE(ParseCacheDescription("32768 B, 64 B, 0-way associative"));
  EXPECT_FALSE(ParseCacheDescription("32768 B, 64 B, weird"));

  // A desc: line that is not a geometry leaves the level absent; it is not an error.
  CallgrindOutput out = MustParse("desc: D1 cache: unknown\nevents: Ir\n");
  EXPECT_FALSE(out.cache.d1.has_value());
}

TEST(CallgrindOutput, ReadsAndMergesFiles) {
  char dir_template[] = "/tmp/sim_callgrind_output_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::string dir = dir_template;
  std::string a = dir + "/callgrind.out.1";
  std::string b = dir + "/callgrind.out.2";
  std::ofstream(a) << "pid: 1\npositions: instr\nevents: Ir\nob=(1) /x\n0x10 3\ntotals: 3\n";
  std::ofstream(b) << "pid: 2\npositions: instr\nevents: Ir Dr\nob=(1) /y\n0x10 4 4\n"
                      "ob=(2) /x\n0x10 1\n";
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(ReadCallgrindOutputFiles({a, b}, &out, &err)) << err.message;
  EXPECT_EQ(out.pids.size(), 2u);
  EXPECT_EQ(CostAt(out, "/x", 0x10, "Ir"), 4);
  EXPECT_EQ(CostAt(out, "/y", 0x10, "Dr"), 4);
  EXPECT_FALSE(out.totals.has_value());  // the second file has none

  std::ofstream(b) << "positions: instr\nevents: Ir\n0x10 zz\n";
  EXPECT_FALSE(ReadCallgrindOutputFiles({a, b}, &out, &err));
  EXPECT_EQ(err.message, b + ":3: bad cost 'zz'");

  EXPECT_FALSE(ReadCallgrindOutputFiles({dir + "/missing"}, &out, &err));
  EXPECT_EQ(err.message, dir + "/missing: cannot open: No such file or directory");

  unlink(a.c_str());
  unlink(b.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace rprof
