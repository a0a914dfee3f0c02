/* The cache hierarchy rprof's valgrind tool (rprofsim) simulates: up to four data cache levels,
 * each set-associative with true LRU replacement, write-back with a dirty bit per line and
 * write-allocate, every level writing its dirty victims to the level below (the last one to
 * DRAM). Plain C without libc calls in its hot path, so the same file is linked into the
 * valgrind tool (which has no libc) and into a GoogleTest (tests/unit/cache_sim_test.cc).
 *
 * Inclusion, per level relative to the levels above it (the vendor's policy, chosen by rprof):
 *   CS_NINE       filled on the way up, keeps its copy, no back-invalidation (Intel L2; the
 *                 non-inclusive L3 of Intel server parts since Skylake-SP);
 *   CS_INCLUSIVE  as NINE, and evicting a line removes it from every level above (a dirty copy
 *                 there makes the eviction a write-back: Intel client and pre-Skylake server L3);
 *   CS_VICTIM     exclusive: never filled from below; receives every line the level above
 *                 evicts, clean or dirty, and gives a clean line up when the level above misses
 *                 on it (AMD's L3); a dirty line it keeps, giving a clean copy up, so that a line
 *                 written back once is written back again only when the core modifies it again
 *                 (as with Intel's L3, which keeps the dirty copy under a clean one in L2).
 *
 * Events, per level k (0 = L1D), counted into the caller's array at the CS_EV_* offsets:
 *   miss_read / miss_write  demand misses at level k (a store's read-for-ownership is a write
 *                           miss at every level it misses in);
 *   out                     dirty lines level k wrote back to level k+1. A victim cache below
 *                           also takes in level k's clean victims (AMD's L3): simulated, not
 *                           counted, so that one convention holds on every vendor: the bytes
 *                           across a boundary are the lines filled across it plus the dirty
 *                           lines written back (Intel's L2_LINES_IN + L2_TRANS.L2_WB; triad
 *                           moves 32 B per element past L1 on Intel and AMD alike);
 *   prefetch                lines the prefetch model brought into level k (0 when it is off).
 * so the bytes between level k and k+1 are (miss_read + miss_write + out + prefetch) x line.
 * Non-temporal stores bypass the hierarchy: their bytes are counted once (CS_EV_NT_BYTES) and
 * cross every boundary; a cached copy of the line is dropped. */
#ifndef RPROF_COUNTERS_SIMTOOL_CACHE_SIM_H_
#define RPROF_COUNTERS_SIMTOOL_CACHE_SIM_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CS_MAX_LEVELS 4
enum { CS_NINE = 0, CS_INCLUSIVE = 1, CS_VICTIM = 2 };
enum { CS_PREFETCH_NONE = 0, CS_PREFETCH_NEXT_LINE = 1, CS_PREFETCH_STRIDE = 2 };

/* Offsets into an event array of CS_EV_COUNT counters. */
#define CS_EV_PER_LEVEL 4
#define CS_EV_MISS_READ(k) ((k)*CS_EV_PER_LEVEL + 0)
#define CS_EV_MISS_WRITE(k) ((k)*CS_EV_PER_LEVEL + 1)
#define CS_EV_OUT(k) ((k)*CS_EV_PER_LEVEL + 2)
#define CS_EV_PREFETCH(k) ((k)*CS_EV_PER_LEVEL + 3)
#define CS_EV_NT_BYTES (CS_MAX_LEVELS * CS_EV_PER_LEVEL)
#define CS_EV_COUNT (CS_EV_NT_BYTES + 1)

typedef struct {
  uint64_t size_bytes; /* sets x ways x line: any set count, not only a power of two */
  uint32_t ways;
  uint32_t line_bytes; /* the same at every level, a power of two */
  int policy;          /* CS_NINE, CS_INCLUSIVE or CS_VICTIM (not for level 0) */
} CsLevelConfig;

typedef struct {
  uint64_t sets;
  uint64_t set_mask;  /* sets - 1 when sets is a power of two, else 0 */
  uint64_t set_magic; /* otherwise ceil(2^64 / sets): line % sets without a division */
  uint32_t ways;
  int policy;
  int clean_victims_matter; /* inclusive, or a victim level below: a clean victim is work too */
  uint64_t* tags; /* sets x ways, each set most recently used first: (line + 1) << 1 | dirty */
} CsLevel;

typedef struct {
  int levels;
  int line_shift;
  int prefetch;
  CsLevel level[CS_MAX_LEVELS];
  /* The stride model's one stream: last line missed in L1 and the stride between misses. */
  uint64_t last_miss_line;
  int64_t stride;
} CacheSim;

/* The storage a configuration needs for its tags, in bytes; 0 when the configuration is invalid
 * (*why then says why: no level, more than CS_MAX_LEVELS, line not a power of two or not the
 * same at every level, ways 0, size not a multiple of ways x line, a victim L1). */
uint64_t cs_tag_bytes(const CsLevelConfig* config, int levels, const char** why);

/* Sets *sim up over `tag_storage` (cs_tag_bytes bytes, zero-filled: every line invalid). */
void cs_init(CacheSim* sim, const CsLevelConfig* config, int levels, int prefetch,
             uint64_t* tag_storage);

/* One access of `size` bytes at `address` by the core (split at line boundaries here). */
void cs_access(CacheSim* sim, uint64_t address, uint64_t size, int is_write, uint64_t* events);

/* The set of `line` in level l. A set count that is no power of two (a measured effective size)
 * takes the remainder by multiplying with the reciprocal: exact for sets <= 2^20 and lines below
 * 2^44 (addresses below 2^50), the error of the rounded reciprocal staying under 1/sets. */
static inline uint64_t cs_set_index(const CsLevel* l, uint64_t line) {
  if (l->set_mask != 0 || l->sets == 1) return line & l->set_mask;
  if (l->set_magic == 0) return line % l->sets; /* more than 2^20 sets */
  uint64_t q = (uint64_t)(((unsigned __int128)line * l->set_magic) >> 64);
  return line - q * l->sets;
}

/* cs_access of `line`, whose L1 set is `set`, where the set's most recently used way is not
 * the line. */
void cs_access_past_mru(CacheSim* sim, uint64_t line, uint64_t* set, int is_write,
                        uint64_t* events);

/* cs_access with its most common case inline: an access within one line that hits the most
 * recently used way of its L1 set (no event); another within one line goes on from the set
 * found here. */
static inline void cs_access_inline(CacheSim* sim, uint64_t address, uint64_t size, int is_write,
                                    uint64_t* events) {
  uint64_t line = address >> sim->line_shift;
  const CsLevel* l1 = &sim->level[0];
  if (((address + size - 1) >> sim->line_shift) == line) {
    uint64_t* mru = l1->tags + cs_set_index(l1, line) * l1->ways;
    if ((*mru & ~(uint64_t)1) == (line + 1) << 1) {
      *mru |= (uint64_t)(is_write != 0);
      return;
    }
    cs_access_past_mru(sim, line, mru, is_write, events);
    return;
  }
  cs_access(sim, address, size, is_write, events);
}

/* A non-temporal store of `size` bytes at `address`. */
void cs_nt_store(CacheSim* sim, uint64_t address, uint64_t size, uint64_t* events);

/* Whether the line holding `address` is in level k now, and dirty there (for tests). */
int cs_present(const CacheSim* sim, int k, uint64_t address, int* dirty);

#ifdef __cplusplus
}
#endif

#endif /* RPROF_COUNTERS_SIMTOOL_CACHE_SIM_H_ */
