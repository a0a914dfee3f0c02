#include "cache_sim.h"

/* A tag word: (line + 1) << 1 | dirty, 0 = invalid. */
#define TAG_LINE(t) (((t) >> 1) - 1)
#define TAG_DIRTY(t) ((t)&1u)
#define MAKE_TAG(line, dirty) ((((line) + 1) << 1) | (uint64_t)((dirty) != 0))

static int is_pow2(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

uint64_t cs_tag_bytes(const CsLevelConfig* config, int levels, const char** why) {
  if (levels < 1 || levels > CS_MAX_LEVELS) {
    *why = "between 1 and 4 cache levels are simulated";
    return 0;
  }
  uint64_t total = 0;
  for (int k = 0; k < levels; ++k) {
    const CsLevelConfig* c = &config[k];
    if (!is_pow2(c->line_bytes) || c->line_bytes != config[0].line_bytes) {
      *why = "the line size must be a power of two, the same at every level";
      return 0;
    }
    if (c->ways == 0 || c->size_bytes == 0 ||
        c->size_bytes % ((uint64_t)c->ways * c->line_bytes) != 0) {
      *why = "a level's size must be a non-zero multiple of ways x line";
      return 0;
    }
    if (k == 0 && c->policy == CS_VICTIM) {
      *why = "the first level cannot be a victim cache";
      return 0;
    }
    total += c->size_bytes / c->line_bytes * sizeof(uint64_t);
  }
  return total;
}

void cs_init(CacheSim* sim, const CsLevelConfig* config, int levels, int prefetch,
             uint64_t* tag_storage) {
  sim->levels = levels;
  sim->prefetch = prefetch;
  sim->line_shift = 0;
  while ((1u << sim->line_shift) < config[0].line_bytes) ++sim->line_shift;
  sim->last_miss_line = 0;
  sim->stride = 0;
  for (int k = 0; k < levels; ++k) {
    CsLevel* l = &sim->level[k];
    l->ways = config[k].ways;
    l->sets = config[k].size_bytes / ((uint64_t)config[k].ways * config[k].line_bytes);
    l->set_mask = is_pow2(l->sets) ? l->sets - 1 : 0;
    /* ceil(2^64 / sets) = floor((2^64 - 1) / sets) + 1 for sets no power of two */
    l->set_magic = l->set_mask == 0 && l->sets > 1 && l->sets <= ((uint64_t)1 << 20)
                       ? UINT64_MAX / l->sets + 1
                       : 0;
    l->policy = k == 0 ? CS_NINE : config[k].policy;
    l->clean_victims_matter =
        l->policy == CS_INCLUSIVE || (k + 1 < levels && config[k + 1].policy == CS_VICTIM);
    l->tags = tag_storage;
    tag_storage += l->sets * l->ways;
  }
}

static inline uint64_t* set_of(const CsLevel* l, uint64_t line) {
  return l->tags + cs_set_index(l, line) * l->ways;
}

/* Index of `line` in its set, or -1. */
static inline int find(const uint64_t* set, uint32_t ways, uint64_t line) {
  uint64_t want = (line + 1) << 1;
  for (uint32_t w = 0; w < ways; ++w)
    if ((set[w] & ~(uint64_t)1) == want) return (int)w;
  return -1;
}

/* Removes way w; returns its tag. */
static inline uint64_t take(uint64_t* set, uint32_t ways, int w) {
  uint64_t t = set[w];
  for (uint32_t i = (uint32_t)w; i + 1 < ways; ++i) set[i] = set[i + 1];
  set[ways - 1] = 0;
  return t;
}

static void evict(CacheSim* sim, int k, uint64_t tag, uint64_t* ev);
static inline void evict_if_needed(CacheSim* sim, int k, uint64_t tag, uint64_t* ev);

/* Looks `line` up and makes it the most recent in one pass, shifting the ways it passes one
 * towards LRU (cachegrind's trick): on a hit (1) its tag is at the front; on a miss (0) every way
 * has moved down, the front is the caller's to fill and *victim is the tag that fell out of the
 * least recently used way (0: it was invalid). */
static inline __attribute__((always_inline)) int lookup_to_front_n(uint64_t* set, uint32_t ways,
                                                                   uint64_t line,
                                                                   uint64_t* victim) {
  uint64_t want = (line + 1) << 1;
  uint64_t prev = set[0];
  if ((prev & ~(uint64_t)1) == want) return 1;
  uint64_t lru = set[ways - 1];
  if ((lru & ~(uint64_t)1) == want) {
    /* The least recently used line: what a set sees when more lines take turns in it than it
     * has ways but fewer than the next level's (a matrix column walked down, a stream reread),
     * where the scan would compare every way; only the moves are left. */
    for (uint32_t w = ways - 1; w > 0; --w) set[w] = set[w - 1];
    set[0] = lru;
    return 1;
  }
  for (uint32_t w = 1; w < ways; ++w) {
    uint64_t cur = set[w];
    set[w] = prev;
    if ((cur & ~(uint64_t)1) == want) {
      set[0] = cur;
      return 1;
    }
    prev = cur;
  }
  *victim = prev;
  set[0] = 0;
  return 0;
}

/* lookup_to_front_n, its loops unrolled for the usual associativities. */
static inline int lookup_to_front(uint64_t* set, uint32_t ways, uint64_t line, uint64_t* victim) {
  switch (ways) {
    case 8:
      return lookup_to_front_n(set, 8, line, victim);
    case 12:
      return lookup_to_front_n(set, 12, line, victim);
    case 16:
      return lookup_to_front_n(set, 16, line, victim);
    default:
      return lookup_to_front_n(set, ways, line, victim);
  }
}

/* Puts `line` at the front of its set in level k; the least recently used line, if valid,
 * leaves the level. */
static void insert(CacheSim* sim, int k, uint64_t line, int dirty, uint64_t* ev) {
  CsLevel* l = &sim->level[k];
  uint64_t* set = set_of(l, line);
  uint64_t victim = set[l->ways - 1];
  for (uint32_t i = l->ways - 1; i > 0; --i) set[i] = set[i - 1];
  set[0] = MAKE_TAG(line, dirty);
  evict_if_needed(sim, k, victim, ev);
}

/* A line level k-1 sends down (dirty write-back, or any victim into a victim cache). */
static void receive(CacheSim* sim, int k, uint64_t line, int dirty, uint64_t* ev) {
  CsLevel* l = &sim->level[k];
  uint64_t* set = set_of(l, line);
  uint64_t victim = 0;
  if (lookup_to_front(set, l->ways, line, &victim)) {
    set[0] |= (uint64_t)(dirty != 0);
    return;
  }
  set[0] = MAKE_TAG(line, dirty);
  evict_if_needed(sim, k, victim, ev);
}

/* A line leaves level k: write it back if dirty (or hand it to a victim level below). */
static void evict(CacheSim* sim, int k, uint64_t tag, uint64_t* ev) {
  uint64_t line = TAG_LINE(tag);
  int dirty = (int)TAG_DIRTY(tag);
  if (sim->level[k].policy == CS_INCLUSIVE) {
    for (int j = 0; j < k; ++j) {
      CsLevel* up = &sim->level[j];
      uint64_t* set = set_of(up, line);
      int w = find(set, up->ways, line);
      if (w >= 0) dirty |= (int)TAG_DIRTY(take(set, up->ways, w));
    }
  }
  int below_is_victim = k + 1 < sim->levels && sim->level[k + 1].policy == CS_VICTIM;
  if (!dirty && !below_is_victim) return;
  /* A clean victim a victim cache takes in is simulated (it fills that level) but not counted:
   * the bytes between two levels are line fills plus dirty write-backs on every vendor, the
   * convention of Intel's counters, of the L3 ceilings and of calibration (cache_sim.h). */
  if (dirty) ev[CS_EV_OUT(k)]++;
  if (k + 1 < sim->levels) receive(sim, k + 1, line, dirty, ev);
}

/* evict() for a tag taken out of level k (0: none), without the call where it does nothing: a
 * clean line that no level above has to lose and no victim level below takes in. */
static inline void evict_if_needed(CacheSim* sim, int k, uint64_t tag, uint64_t* ev) {
  if (tag != 0 && (TAG_DIRTY(tag) || sim->level[k].clean_victims_matter)) evict(sim, k, tag, ev);
}

/* Looks `line` up from level k down, as a miss in level k-1 does, and fills every level it
 * missed in (all but a victim level) before any of them evicts: the deepest level that missed
 * evicts first, as a recursive fetch would. The line comes up clean (a victim level keeps a
 * dirty line and gives a clean copy up, see below). */
static inline __attribute__((always_inline)) void fetch(CacheSim* sim, int k, uint64_t line,
                                                        int is_write, uint64_t* ev) {
  uint64_t victims[CS_MAX_LEVELS];
  int j = k;
  for (; j < sim->levels; ++j) {
    CsLevel* l = &sim->level[j];
    uint64_t* set = set_of(l, line);
    victims[j] = 0;
    if (l->policy == CS_VICTIM) {
      int w = find(set, l->ways, line);
      if (w >= 0 && TAG_DIRTY(set[w])) {
        /* A dirty line stays here, the most recent, and a clean copy goes up: it was written
         * back into this level once, and crosses the boundary again only if the core modifies
         * it. Handed up dirty, a line that fits in L2 + L3 but is never written again (an
         * array the kernel's set-up wrote, then only read) would be written back on every L2
         * eviction: 48 B per triad element at L3 where Intel's L3, which keeps the dirty copy,
         * moves 32. */
        uint64_t tag = take(set, l->ways, w);
        for (uint32_t i = l->ways - 1; i > 0; --i) set[i] = set[i - 1];
        set[0] = tag;
        break;
      }
      if (w >= 0) {
        take(set, l->ways, w); /* a clean line moves up: the victim cache is exclusive */
        break;
      }
      ev[is_write ? CS_EV_MISS_WRITE(j) : CS_EV_MISS_READ(j)]++;
      continue;
    }
    if (lookup_to_front(set, l->ways, line, &victims[j])) break;
    ev[is_write ? CS_EV_MISS_WRITE(j) : CS_EV_MISS_READ(j)]++;
    /* The line takes the front now; what lower levels do meanwhile (an inclusive level's
     * back-invalidation) removes other lines only, so it stays there. */
    set[0] = MAKE_TAG(line, 0);
  }
  while (j-- > k) evict_if_needed(sim, j, victims[j], ev);
}

/* The prefetch model brings `line` into level k (L2 where there is one) unless it is there. */
static void prefetch_line(CacheSim* sim, uint64_t line, uint64_t* ev) {
  int k = sim->levels > 1 && sim->level[1].policy != CS_VICTIM ? 1 : 0;
  CsLevel* l = &sim->level[k];
  uint64_t* set = set_of(l, line);
  if (find(set, l->ways, line) >= 0) return;
  if (k == 1 && find(set_of(&sim->level[0], line), sim->level[0].ways, line) >= 0) return;
  ev[CS_EV_PREFETCH(k)]++;
  fetch(sim, k + 1, line, 0, ev);
  insert(sim, k, line, 0, ev);
}

void cs_access_past_mru(CacheSim* sim, uint64_t line, uint64_t* set, int is_write, uint64_t* ev) {
  CsLevel* l1 = &sim->level[0];
  uint64_t victim = 0;
  if (lookup_to_front(set, l1->ways, line, &victim)) {
    set[0] |= (uint64_t)(is_write != 0);
    return;
  }
  ev[is_write ? CS_EV_MISS_WRITE(0) : CS_EV_MISS_READ(0)]++;
  set[0] = MAKE_TAG(line, is_write);
  fetch(sim, 1, line, is_write, ev);
  evict_if_needed(sim, 0, victim, ev);
  if (sim->prefetch == CS_PREFETCH_NEXT_LINE) {
    prefetch_line(sim, line + 1, ev);
  } else if (sim->prefetch == CS_PREFETCH_STRIDE) {
    int64_t stride = (int64_t)(line - sim->last_miss_line);
    uint64_t next = line + (uint64_t)stride;
    /* Nothing below address 0 or past the top: the line number would wrap (and its set index
     * leave the tag array where the set count is not a power of two). */
    if (stride != 0 && stride == sim->stride && (stride > 0 ? next > line : next < line))
      prefetch_line(sim, next, ev);
    sim->stride = stride;
    sim->last_miss_line = line;
  }
}

static inline void access_line(CacheSim* sim, uint64_t line, int is_write, uint64_t* ev) {
  uint64_t* set = set_of(&sim->level[0], line);
  if (((set[0] >> 1) - 1) == line && set[0] != 0) { /* the MRU way: most accesses */
    set[0] |= (uint64_t)(is_write != 0);
    return;
  }
  cs_access_past_mru(sim, line, set, is_write, ev);
}

void cs_access(CacheSim* sim, uint64_t address, uint64_t size, int is_write, uint64_t* events) {
  if (size == 0) return;
  uint64_t first = address >> sim->line_shift;
  uint64_t last = (address + size - 1) >> sim->line_shift;
  for (uint64_t line = first;; ++line) {
    access_line(sim, line, is_write, events);
    if (line == last) break;
  }
}

void cs_nt_store(CacheSim* sim, uint64_t address, uint64_t size, uint64_t* events) {
  if (size == 0) return;
  events[CS_EV_NT_BYTES] += size;
  uint64_t first = address >> sim->line_shift;
  uint64_t last = (address + size - 1) >> sim->line_shift;
  for (uint64_t line = first;; ++line) {
    for (int k = 0; k < sim->levels; ++k) {
      CsLevel* l = &sim->level[k];
      uint64_t* set = set_of(l, line);
      int w = find(set, l->ways, line);
      if (w >= 0) take(set, l->ways, w);
    }
    if (line == last) break;
  }
}

int cs_present(const CacheSim* sim, int k, uint64_t address, int* dirty) {
  uint64_t line = address >> sim->line_shift;
  const CsLevel* l = &sim->level[k];
  const uint64_t* set = set_of(l, line);
  int w = find(set, l->ways, line);
  if (w < 0) return 0;
  if (dirty != 0) *dirty = (int)TAG_DIRTY(set[w]);
  return 1;
}
