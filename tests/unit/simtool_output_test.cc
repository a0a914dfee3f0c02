// rprofsim's output read by the sim source (callgrind_output.cc, sim_counts.cc) on hand-made
// files: its hierarchy description, and the traffic across every boundary computed from its
// events. No valgrind needed.
#include <gtest/gtest.h>

#include <string>

#include "counters/sim/callgrind_output.h"
#include "counters/sim/sim_counts.h"

namespace rprof {
namespace {

// Two instructions of an object rprof cannot open (costs still summed), three levels.
constexpr char kThreeLevels[] =
    "version: 1\n"
    "creator: rprofsim-1\n"
    "pid: 42\n"
    "desc: D1 cache: 49152 B, 64 B, 12-way associative\n"
    "desc: D1 policy: non-inclusive\n"
    "desc: D2 cache: 2097152 B, 64 B, 16-way associative\n"
    "desc: D2 policy: non-inclusive\n"
    "desc: D3 cache: 16777216 B, 64 B, 16-way associative\n"
    "desc: D3 policy: inclusive\n"
    "desc: LL cache: 16777216 B, 64 B, 16-way associative\n"
    "desc: Prefetch: none\n"
    "\npart: 1\nthread: 1\ndesc: Trigger: Program termination\n"
    "positions: instr\n"
    "events: Ir Dr Dw D1mr D1mw D1out D1pf D2mr D2mw D2out D2pf D3mr D3mw D3out D3pf NTb\n"
    "ob=(1) /nonexistent/object\n"
    //    Ir  Dr Dw D1:mr mw out pf D2:mr mw out pf D3:mr mw out pf NTb
    "0x1000 10 10 0 100 0 0 0 60 0 0 0 50 0 0 0 0\n"
    "0x1004 10 0 10 0 50 40 0 0 30 20 0 0 25 20 0 800\n"
    "totals: 20 10 10 100 50 40 0 60 30 20 0 50 25 20 0 800\n";

TEST(SimtoolOutput, ReadsTheHierarchyAndTheTrafficAtEveryBoundary) {
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(ParseCallgrindOutput(kThreeLevels, &out, &err)) << err.message;
  ASSERT_EQ(out.cache.levels.size(), 3u);
  EXPECT_EQ(out.cache.levels[1].size_bytes, 2097152u);
  EXPECT_EQ(out.cache.levels[2].associativity, 16u);
  ASSERT_EQ(out.cache.policies.size(), 3u);
  EXPECT_EQ(out.cache.policies[2], "inclusive");
  EXPECT_EQ(out.cache.prefetch, "none");

  SimCounts c;
  ASSERT_TRUE(ComputeSimCounts(out, &c, &err)) << err.message;
  EXPECT_EQ(c.l1d_misses, 150u);
  EXPECT_EQ(c.l2_misses, 90u);
  EXPECT_EQ(c.llc_misses, 75u);
  // (misses + lines sent down + prefetched) x 64 + non-temporal bytes, per boundary.
  EXPECT_EQ(c.bytes_l2, (150u + 40u) * 64 + 800);
  EXPECT_EQ(c.bytes_l3, (90u + 20u) * 64 + 800);
  EXPECT_EQ(c.bytes_dram, (75u + 20u) * 64 + 800);
  bool said = false;
  for (const SimCounts::Note& n : c.notes)
    said = said || n.text.find("L3 16777216 B 16-way 64 B line inclusive") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(SimtoolOutput, TwoLevelsHaveNoL3AndSayWhy) {
  std::string two =
      "version: 1\ncreator: rprofsim-1\n"
      "desc: D1 cache: 32768 B, 64 B, 8-way associative\n"
      "desc: D2 cache: 1048576 B, 64 B, 16-way associative\n"
      "desc: LL cache: 1048576 B, 64 B, 16-way associative\n"
      "positions: instr\nevents: Ir Dr Dw D1mr D1mw D1out D1pf D2mr D2mw D2out D2pf NTb\n"
      "ob=(1) /nonexistent/object\n0x10 1 1 0 1 0 0 0 1 0 1 0 0\n";
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(ParseCallgrindOutput(two, &out, &err)) << err.message;
  SimCounts c;
  ASSERT_TRUE(ComputeSimCounts(out, &c, &err)) << err.message;
  EXPECT_EQ(c.bytes_l2, 64u);
  EXPECT_EQ(c.bytes_dram, 128u);
  EXPECT_FALSE(c.bytes_l3.has_value());
  bool said = false;
  for (const SimCounts::Note& n : c.notes)
    said = said || n.text == "bytes_l3 absent: the simulated hierarchy has no third level";
  EXPECT_TRUE(said);
}

TEST(SimtoolOutput, CallgrindsD1IsNoHierarchy) {
  std::string cg =
      "version: 1\ncreator: callgrind-3.19.0\n"
      "desc: D1 cache: 32768 B, 64 B, 8-way associative\n"
      "desc: LL cache: 33554432 B, 64 B, 16-way associative\n"
      "positions: instr\nevents: Ir Dr Dw D1mr D1mw DLmr DLmw\n"
      "ob=(1) /nonexistent/object\n0x10 1 1 0 1 0 1 0\n";
  CallgrindOutput out;
  Error err;
  ASSERT_TRUE(ParseCallgrindOutput(cg, &out, &err)) << err.message;
  EXPECT_TRUE(out.cache.levels.empty());
  ASSERT_TRUE(out.cache.d1.has_value());
  SimCounts c;
  ASSERT_TRUE(ComputeSimCounts(out, &c, &err)) << err.message;
  EXPECT_EQ(c.bytes_l2, 64u);  // callgrind's D1 refills
  EXPECT_FALSE(c.bytes_l3.has_value());
}

}  // namespace
}  // namespace rprof
