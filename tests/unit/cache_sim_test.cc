// rprofsim's cache hierarchy (profiler/counters/simtool/cache_sim.c) on access patterns whose
// traffic is counted by hand: the same file valgrind's tool links, here under GoogleTest.
#include <gtest/gtest.h>

#include <cstdint>
#include <list>
#include <vector>

extern "C" {
#include "cache_sim.h"
}

namespace {

constexpr uint64_t kLine = 64;

// A hierarchy with its tag storage and its event counters.
struct Hierarchy {
  explicit Hierarchy(std::vector<CsLevelConfig> config, int prefetch = CS_PREFETCH_NONE)
      : levels(std::move(config)) {
    const char* why = "";
    uint64_t bytes = cs_tag_bytes(levels.data(), static_cast<int>(levels.size()), &why);
    EXPECT_GT(bytes, 0u) << why;
    tags.assign(bytes / sizeof(uint64_t), 0);
    cs_init(&sim, levels.data(), static_cast<int>(levels.size()), prefetch, tags.data());
  }
  void Read(uint64_t a, uint64_t size = 8) { cs_access(&sim, a, size, 0, ev); }
  void Write(uint64_t a, uint64_t size = 8) { cs_access(&sim, a, size, 1, ev); }
  uint64_t Misses(int k) const { return ev[CS_EV_MISS_READ(k)] + ev[CS_EV_MISS_WRITE(k)]; }
  uint64_t Out(int k) const { return ev[CS_EV_OUT(k)]; }
  // Bytes between level k and the one below it.
  uint64_t Bytes(int k) const {
    return (Misses(k) + Out(k) + ev[CS_EV_PREFETCH(k)]) * kLine + ev[CS_EV_NT_BYTES];
  }
  void Clear() {
    for (uint64_t& e : ev) e = 0;
  }

  std::vector<CsLevelConfig> levels;
  std::vector<uint64_t> tags;
  CacheSim sim{};
  uint64_t ev[CS_EV_COUNT] = {};
};

// 4 KiB L1 (8-way), 32 KiB L2, 256 KiB L3, like a real part scaled down.
std::vector<CsLevelConfig> Small(int l3_policy) {
  return {{4096, 8, kLine, CS_NINE}, {32768, 8, kLine, CS_NINE}, {262144, 16, kLine, l3_policy}};
}

// Triad a[i] = b[i] + s*c[i] over n doubles; three arrays apart.
void Triad(Hierarchy* h, uint64_t n, bool nt = false) {
  const uint64_t a = 1 << 24, b = 2 << 24, c = 3 << 24;
  for (uint64_t i = 0; i < n; ++i) {
    h->Read(b + 8 * i);
    h->Read(c + 8 * i);
    if (nt)
      cs_nt_store(&h->sim, a + 8 * i, 8, h->ev);
    else
      h->Write(a + 8 * i);
  }
}

TEST(CacheSim, RejectsBadGeometry) {
  const char* why = "";
  CsLevelConfig odd[] = {{1000, 8, kLine, CS_NINE}};
  EXPECT_EQ(cs_tag_bytes(odd, 1, &why), 0u);
  CsLevelConfig victim_l1[] = {{4096, 8, kLine, CS_VICTIM}};
  EXPECT_EQ(cs_tag_bytes(victim_l1, 1, &why), 0u);
  CsLevelConfig mixed_lines[] = {{4096, 8, 64, CS_NINE}, {32768, 8, 128, CS_NINE}};
  EXPECT_EQ(cs_tag_bytes(mixed_lines, 2, &why), 0u);
  CsLevelConfig three_sets[] = {{3 * 8 * 64, 8, kLine, CS_NINE}};  // not a power of two: fine
  EXPECT_EQ(cs_tag_bytes(three_sets, 1, &why), 3u * 8 * 8);
}

// Set counts that are no power of two (measured sizes: 45 KiB, 12-way = 60 sets) take the
// remainder by a reciprocal: the same sets as %, for every line an address below 2^47 has.
TEST(CacheSim, SetIndexWithoutDivisionEqualsTheRemainder) {
  for (uint64_t sets : {3ull, 60ull, 491520ull, (1ull << 20) - 1, (1ull << 20) + 7}) {
    CsLevel level{};
    CsLevelConfig config = {sets * 12 * kLine, 12, kLine, CS_NINE};
    std::vector<uint64_t> tags(sets * 12);
    CacheSim sim{};
    cs_init(&sim, &config, 1, CS_PREFETCH_NONE, tags.data());
    level = sim.level[0];
    uint64_t x = 88172645463325252ull;  // xorshift: lines all over [0, 2^41)
    for (int i = 0; i < 200000; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      uint64_t line = i < 1000 ? (1ull << 41) - 1 - static_cast<uint64_t>(i) : x >> 23;
      ASSERT_EQ(cs_set_index(&level, line), line % sets) << sets << " " << line;
    }
  }
}

TEST(CacheSim, AccessesSplitAtLineBoundaries) {
  Hierarchy h(Small(CS_NINE));
  h.Read(60, 8);  // bytes 60..67: two lines
  EXPECT_EQ(h.Misses(0), 2u);
  h.Read(64, 64);  // one line, already there
  EXPECT_EQ(h.Misses(0), 2u);
}

// The textbook figures: with write-allocate, 32 B per element cross every boundary (b, c and a
// read, a written back); the working set (3 x 8 x 2^16 = 1.5 MiB) is larger than every level.
TEST(CacheSim, TriadMovesThirtyTwoBytesPerElementAtEveryLevel) {
  for (int policy : {CS_NINE, CS_INCLUSIVE}) {
    Hierarchy h(Small(policy));
    const uint64_t n = 1 << 16;
    Triad(&h, n);  // warm-up: the state of a second, counted call
    h.Clear();
    Triad(&h, n);
    for (int k = 0; k < 3; ++k) {
      // Lines still dirty in the caches at the end are not written back yet: at most the
      // hierarchy's own size over n.
      double per_element = static_cast<double>(h.Bytes(k)) / n;
      EXPECT_NEAR(per_element, 32.0, 32.0 * 0.01) << "level " << k << " policy " << policy;
    }
    EXPECT_EQ(h.Misses(0), 3 * n / 8);
  }
}

TEST(CacheSim, NonTemporalStoresMoveTwentyFourBytesPerElement) {
  Hierarchy h(Small(CS_NINE));
  const uint64_t n = 1 << 16;
  Triad(&h, n, true);
  h.Clear();
  Triad(&h, n, true);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(static_cast<double>(h.Bytes(k)) / n, 24.0, 0.24) << k;
  EXPECT_EQ(h.ev[CS_EV_NT_BYTES], 8 * n);
  EXPECT_EQ(h.Misses(0), 2 * n / 8);  // the stores allocate nothing
}

// A working set that fits L2 but not L1: after a warm-up, L1 misses on every line, L2 on none.
TEST(CacheSim, ReuseStaysInTheLevelThatHoldsIt) {
  Hierarchy h(Small(CS_NINE));
  const uint64_t bytes = 16384;  // 4x L1, half of L2
  for (int pass = 0; pass < 3; ++pass) {
    if (pass == 1) h.Clear();
    for (uint64_t a = 0; a < bytes; a += 8) h.Read(a);
  }
  EXPECT_EQ(h.Misses(0), 2 * bytes / kLine);
  EXPECT_EQ(h.Misses(1), 0u);
  EXPECT_EQ(h.Out(0), 0u);  // clean lines: nothing written back
}

// A dirty line leaves L1, then L2, then L3, each eviction a write-back one level down.
TEST(CacheSim, DirtyLinesAreWrittenBackLevelByLevel) {
  Hierarchy h({{128, 2, kLine, CS_NINE}, {256, 4, kLine, CS_NINE}, {512, 8, kLine, CS_NINE}});
  h.Write(0);  // dirty in L1; clean copies in L2 and L3
  int dirty = 0;
  ASSERT_TRUE(cs_present(&h.sim, 0, 0, &dirty));
  EXPECT_EQ(dirty, 1);
  h.Read(1 * kLine);
  h.Read(2 * kLine);  // L1 (1 set, 2 ways) evicts line 0: written back into L2
  EXPECT_EQ(h.Out(0), 1u);
  ASSERT_TRUE(cs_present(&h.sim, 1, 0, &dirty));
  EXPECT_EQ(dirty, 1);
  // The write-back made line 0 L2's most recent: four new lines later L2 (4 ways) evicts it.
  for (uint64_t l = 3; l <= 6; ++l) h.Read(l * kLine);
  EXPECT_EQ(h.Out(1), 1u);
  ASSERT_TRUE(cs_present(&h.sim, 2, 0, &dirty));
  EXPECT_EQ(dirty, 1);
  for (uint64_t l = 7; l <= 14; ++l) h.Read(l * kLine);  // L3 (8 ways) evicts it: to DRAM
  EXPECT_EQ(h.Out(2), 1u);
  EXPECT_FALSE(cs_present(&h.sim, 2, 0, nullptr));
}

TEST(CacheSim, InclusiveLevelBackInvalidatesAndWritesBackDirtyCopies) {
  // L3 as small as L2: evicting from L3 must remove the line from L1 and L2.
  Hierarchy h({{128, 2, kLine, CS_NINE}, {256, 4, kLine, CS_NINE}, {256, 4, kLine, CS_INCLUSIVE}});
  h.Write(0);
  for (uint64_t l = 1; l <= 4; ++l) h.Read(l * 4096);  // same L3 set, line 0 the LRU there
  EXPECT_FALSE(cs_present(&h.sim, 0, 0, nullptr));
  EXPECT_FALSE(cs_present(&h.sim, 1, 0, nullptr));
  EXPECT_FALSE(cs_present(&h.sim, 2, 0, nullptr));
  EXPECT_EQ(h.Out(2), 1u);  // the dirty L1 copy went to DRAM with it
}

TEST(CacheSim, VictimL3TakesEveryL2EvictionAndGivesLinesBack) {
  Hierarchy h({{128, 2, kLine, CS_NINE}, {256, 4, kLine, CS_NINE}, {1024, 16, kLine, CS_VICTIM}});
  int dirty = 0;
  h.Read(0);
  EXPECT_FALSE(cs_present(&h.sim, 2, 0, nullptr));      // fills bypass a victim cache
  for (uint64_t l = 1; l <= 4; ++l) h.Read(l * kLine);  // L2 evicts clean line 0
  EXPECT_TRUE(cs_present(&h.sim, 2, 0, nullptr));       // sent to L3 ...
  EXPECT_EQ(h.Out(1), 0u);  // ... but a clean victim is no write-back: not counted as traffic
  h.Write(5 * kLine);       // a dirty line, pushed out of L1 and L2 by new lines ...
  for (uint64_t l = 6; l <= 12; ++l) h.Read(l * kLine);
  EXPECT_EQ(h.Out(1), 1u);  // ... is written back into L3 and counted
  ASSERT_TRUE(cs_present(&h.sim, 2, 5 * kLine, &dirty));
  EXPECT_EQ(dirty, 1);
  h.Clear();
  h.Read(0);  // misses L1 and L2, hits L3: moved back up
  EXPECT_EQ(h.Misses(0), 1u);
  EXPECT_EQ(h.Misses(1), 1u);
  EXPECT_EQ(h.Misses(2), 0u);
  EXPECT_FALSE(cs_present(&h.sim, 2, 0, nullptr));
  EXPECT_TRUE(cs_present(&h.sim, 1, 0, nullptr));
}

TEST(CacheSim, LruEvictsTheLeastRecentlyUsed) {
  Hierarchy h({{128, 2, kLine, CS_NINE}});  // one set, two ways
  h.Read(0);
  h.Read(kLine);
  h.Read(0);          // line 0 most recent
  h.Read(2 * kLine);  // evicts line 1
  EXPECT_TRUE(cs_present(&h.sim, 0, 0, nullptr));
  EXPECT_FALSE(cs_present(&h.sim, 0, kLine, nullptr));
}

TEST(CacheSim, NextLinePrefetchTurnsL2MissesIntoPrefetches) {
  Hierarchy off(Small(CS_NINE)), on(Small(CS_NINE), CS_PREFETCH_NEXT_LINE);
  for (uint64_t a = 0; a < (1 << 20); a += 8) {
    off.Read(a);
    on.Read(a);
  }
  EXPECT_EQ(off.Misses(1), (1u << 20) / kLine);
  EXPECT_LT(on.Misses(1), off.Misses(1) / 100);  // every L1 miss finds its line prefetched
  EXPECT_EQ(on.Misses(0), off.Misses(0));        // the model prefetches into L2 only
  // The same lines cross L2<->L3, earlier, and one past the end.
  EXPECT_EQ(on.Bytes(1), off.Bytes(1) + kLine);
}

// The stride model: after two L1D misses the same number of lines apart it fetches the next line
// of that stride into L2; a stream touching every fourth line then misses L2 only at its start.
TEST(CacheSim, StridePrefetchFollowsAConstantStride) {
  Hierarchy off(Small(CS_NINE)), on(Small(CS_NINE), CS_PREFETCH_STRIDE);
  const uint64_t lines = 4096;
  for (uint64_t l = 0; l < lines; l += 4) {
    off.Read(l * kLine);
    on.Read(l * kLine);
  }
  EXPECT_EQ(off.Misses(1), lines / 4);
  EXPECT_LE(on.Misses(1), 3u);
  EXPECT_EQ(on.ev[CS_EV_PREFETCH(1)], lines / 4 - 2);
  EXPECT_EQ(off.ev[CS_EV_PREFETCH(1)], 0u);
}

// A stream walking down to address 0 stops prefetching there: the line below 0 would wrap.
TEST(CacheSim, StridePrefetchStopsAtAddressZero) {
  Hierarchy h(Small(CS_NINE), CS_PREFETCH_STRIDE);
  for (uint64_t l : {8, 6, 4, 2, 0}) h.Read(l * kLine);
  EXPECT_EQ(h.ev[CS_EV_PREFETCH(1)], 2u);  // lines 2 and 0, not "-2"
}

// A straightforward model of two non-inclusive levels (no prefetch): each set a list, most
// recently used first, a found line moved to the front, a dirty L1 victim written back into L2
// (where it becomes the most recent, dirty), L2's dirty victims counted as write-backs to DRAM.
// cache_sim.c finds lines and moves them its own way (an unrolled scan per associativity, the
// least recently used way checked first, levels filled then evicted bottom-up); this is what it
// must still compute, access for access.
class ReferenceLru {
 public:
  struct Line {
    uint64_t line;
    bool dirty;
  };
  ReferenceLru(uint64_t sets1, uint32_t ways1, uint64_t sets2, uint32_t ways2)
      : sets_{sets1, sets2}, ways_{ways1, ways2}, set_(2) {
    set_[0].resize(sets1);
    set_[1].resize(sets2);
  }
  void Access(uint64_t address, uint64_t size, bool write, uint64_t* ev) {
    for (uint64_t line = address / kLine; line <= (address + size - 1) / kLine; ++line) {
      std::list<Line>& s = Set(0, line);
      if (MoveToFront(&s, line)) {
        s.front().dirty |= write;
        continue;
      }
      ev[write ? CS_EV_MISS_WRITE(0) : CS_EV_MISS_READ(0)]++;
      s.push_front({line, write});
      std::list<Line>& s2 = Set(1, line);
      Line l2_victim{0, false};
      bool l2_evicts = false;
      if (!MoveToFront(&s2, line)) {
        ev[write ? CS_EV_MISS_WRITE(1) : CS_EV_MISS_READ(1)]++;
        s2.push_front({line, false});
        if (s2.size() > ways_[1]) {
          l2_victim = s2.back();
          l2_evicts = true;
          s2.pop_back();
        }
      }
      if (l2_evicts && l2_victim.dirty) ev[CS_EV_OUT(1)]++;
      if (s.size() > ways_[0]) {
        Line victim = s.back();
        s.pop_back();
        if (victim.dirty) {
          ev[CS_EV_OUT(0)]++;
          std::list<Line>& r = Set(1, victim.line);
          if (MoveToFront(&r, victim.line)) {
            r.front().dirty = true;
          } else {
            r.push_front({victim.line, true});
            if (r.size() > ways_[1]) {
              if (r.back().dirty) ev[CS_EV_OUT(1)]++;
              r.pop_back();
            }
          }
        }
      }
    }
  }
  bool Present(int k, uint64_t address, bool* dirty) {
    uint64_t line = address / kLine;
    for (const Line& l : Set(k, line))
      if (l.line == line) {
        *dirty = l.dirty;
        return true;
      }
    return false;
  }

 private:
  std::list<Line>& Set(int k, uint64_t line) { return set_[k][line % sets_[k]]; }
  static bool MoveToFront(std::list<Line>* s, uint64_t line) {
    for (auto it = s->begin(); it != s->end(); ++it)
      if (it->line == line) {
        s->splice(s->begin(), *s, it);
        return true;
      }
    return false;
  }
  uint64_t sets_[2];
  uint32_t ways_[2];
  std::vector<std::vector<std::list<Line>>> set_;
};

// Random reads and writes, some crossing a line, over a range a few times the hierarchy, mixed
// with runs that reuse a set's lines in turn (its least recently used line hit each time): the
// events after every access and the final contents equal the reference's, for the
// associativities with an unrolled scan (8, 12, 16), others, and set counts of either kind.
TEST(CacheSim, MatchesAReferenceLruOnRandomAccesses) {
  struct Geometry {
    uint64_t sets1;
    uint32_t ways1;
    uint64_t sets2;
    uint32_t ways2;
  };
  for (Geometry g : {Geometry{60, 12, 512, 16}, Geometry{64, 8, 128, 16}, Geometry{3, 1, 5, 2},
                     Geometry{7, 20, 16, 12}, Geometry{1, 4, 3, 8}}) {
    Hierarchy h({{g.sets1 * g.ways1 * kLine, g.ways1, kLine, CS_NINE},
                 {g.sets2 * g.ways2 * kLine, g.ways2, kLine, CS_NINE}});
    ReferenceLru ref(g.sets1, g.ways1, g.sets2, g.ways2);
    uint64_t ref_ev[CS_EV_COUNT] = {};
    const uint64_t span = 4 * g.sets2 * g.ways2 * kLine;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 200000; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      uint64_t address = (1ull << 30) + (x >> 16) % span;
      if ((x & 0xF000) == 0) {  // a set's lines in turn: ways + 1 of them, twice
        for (int pass = 0; pass < 2; ++pass)
          for (uint64_t l = 0; l <= g.ways1; ++l) {
            uint64_t a = address + l * g.sets1 * kLine;
            cs_access_inline(&h.sim, a, 8, 0, h.ev);
            ref.Access(a, 8, false, ref_ev);
          }
        continue;
      }
      uint64_t size = 1 + (x >> 4) % 32;
      bool write = (x >> 9) % 3 == 0;
      if ((x >> 11) & 1)
        cs_access_inline(&h.sim, address, size, write, h.ev);
      else
        cs_access(&h.sim, address, size, write, h.ev);
      ref.Access(address, size, write, ref_ev);
      for (int e = 0; e < CS_EV_COUNT; ++e)
        ASSERT_EQ(h.ev[e], ref_ev[e]) << "event " << e << " access " << i << " ways " << g.ways1;
    }
    for (uint64_t a = 1ull << 30; a < (1ull << 30) + span; a += kLine) {
      for (int k = 0; k < 2; ++k) {
        bool ref_dirty = false;
        int dirty = 0;
        bool present = ref.Present(k, a, &ref_dirty);
        ASSERT_EQ(cs_present(&h.sim, k, a, &dirty) != 0, present) << a << " level " << k;
        if (present) {
          EXPECT_EQ(dirty != 0, ref_dirty) << a << " level " << k;
        }
      }
    }
  }
}

// rprofsim gives the loads of one instruction that read one range in order (VEX's four 8-byte
// loads of an AVX2 FMA operand) to the simulation as one access: the same events and state as
// the loads one by one, wherever the range starts in its line.
TEST(CacheSim, ConsecutiveLoadsAsOneAccessChangeNothing) {
  for (int policy : {CS_NINE, CS_INCLUSIVE, CS_VICTIM}) {
    for (int prefetch : {CS_PREFETCH_NONE, CS_PREFETCH_NEXT_LINE, CS_PREFETCH_STRIDE}) {
      Hierarchy split(Small(policy), prefetch), merged(Small(policy), prefetch);
      uint64_t x = 88172645463325252ull;
      for (int i = 0; i < 100000; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t address = (1ull << 30) + (x >> 20) % (1 << 20);
        if ((x & 7) == 0) {  // other traffic in between
          split.Write(address);
          merged.Write(address);
          continue;
        }
        for (uint64_t lane = 0; lane < 4; ++lane)
          cs_access_inline(&split.sim, address + 8 * lane, 8, 0, split.ev);
        cs_access_inline(&merged.sim, address, 32, 0, merged.ev);
      }
      for (int e = 0; e < CS_EV_COUNT; ++e) EXPECT_EQ(split.ev[e], merged.ev[e]) << e;
      for (uint64_t a = 1ull << 30; a < (1ull << 30) + (1 << 20) + 64; a += kLine)
        for (int k = 0; k < 3; ++k)
          ASSERT_EQ(cs_present(&split.sim, k, a, nullptr), cs_present(&merged.sim, k, a, nullptr));
    }
  }
}

}  // namespace
