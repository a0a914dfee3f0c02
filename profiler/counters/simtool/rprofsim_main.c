/* rprofsim: rprof's valgrind tool. It counts, per executed instruction, its executions (for
 * rprof's Zydis decoding of FLOPs and operand bytes, as with callgrind) and the traffic its data
 * accesses cause at every level of a simulated write-back cache hierarchy (cache_sim.h), and
 * writes them in callgrind's output format (positions: instr), so rprof reads them with the
 * parser it uses for callgrind:
 *
 *   events: Ir Dr Dw D1mr D1mw D1out D1pf [D2mr ... per level] NTb
 *
 * Dr/Dw are data accesses (one per load/store, whatever its size); Dkmr/Dkmw demand misses at
 * level k, Dkout lines level k sent down, Dkpf lines the prefetch model brought into level k,
 * NTb bytes of non-temporal stores (cache_sim.h says what each means).
 *
 * Collection: on from the start or not (--collect-atstart), switched by CALLGRIND_TOGGLE_COLLECT;
 * the hierarchy is simulated all the time, so a counted call after a warm-up one starts warm.
 * Regions: RPROFSIM_REGION_BEGIN/END (rprofsim_requests.h) from any thread. A region counts what
 * EVERY thread of the process executes while the region is open in at least one thread: the
 * union of its spans, each instruction once (a region each OpenMP thread opens itself is not
 * counted twice), so work handed to a pool thread that never entered it (OpenBLAS, an OpenMP
 * team) is the region's too. Its counts are kept per executing thread, the threads that never
 * entered it included. Files: --rprofsim-out-file=BASE (%p: the pid): BASE holds the whole
 * collected run (a part per thread); BASE.region<N>.t<T> region N's share of thread T (one part,
 * "desc: Trigger: Client Request: rprof-region:<name>", "desc: Region thread: <T> entered" or
 * "... <T> did not enter"), so rprof can sum a region's files and still read each thread's share.
 *
 * How counts reach the right region: every instruction's counters are per translated block and
 * accumulate until the next flush: a region boundary in any thread, a collection toggle, a
 * switch to another thread, the end. valgrind runs one thread at a time, so between two flushes
 * one thread ran and the set of open regions stayed the same: a flush adds the counts to the
 * running thread's total and to its share of every region open anywhere, and zeroes them. Blocks
 * executed since the last flush are found through a list that a block joins (one guarded helper
 * call) the first time it runs after a flush.
 *
 * Functions (--rprofsim-functions=yes): each instruction's function, source file and line, from
 * valgrind's debug-info reader (the ELF symbol table, else .dynsym, and DWARF's line table), are
 * looked up once, when its block is translated, never when it executes: the replay's cost per
 * executed instruction does not change. VG_(get_fnname) names the function whose symbol covers
 * the address, so inlined code counts in the function it was inlined into, while its line is
 * the inlined source's. The output then has "positions: instr line" and fl= / fn= lines before
 * the cost lines they apply to; an instruction without a symbol has "fn=(id) ???". */
#include "cache_sim.h"
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "rprofsim_requests.h"
#include "valgrind/callgrind.h"

/* ---- counters -------------------------------------------------------------------------- */

enum { EV_IR = 0, EV_DR = 1, EV_DW = 2, EV_CACHE = 3, EV_COUNT = 3 + CS_EV_COUNT };

typedef struct {
  const HChar* object; /* the ELF file's path as valgrind knows it, "???" without one */
  UInt object_id;      /* index into objects[] */
  Addr address;        /* link-time address inside the object (what callgrind prints) */
  UInt id;             /* index into instrs[] */
  UInt segment;        /* its block's segment (whose count is its executions) */
  UInt fn_id;          /* index into functions[] (0: "???"), with --rprofsim-functions=yes */
  UInt file_id;        /* index into files[] (0: "???") */
  UInt line;           /* source line, 0 when unknown */
  uint64_t cost[EV_COUNT];
} InstrInfo;

/* A translated block. Its instructions run in segments, the runs between side exits: every
 * instruction of a segment executes as often as the segment is entered, so one counter per
 * segment (an inline increment at its first instruction) gives every instruction's executions;
 * Flush turns them into cost[EV_IR]. */
typedef struct SBInfo {
  ULong epoch; /* the flush epoch in which it last joined the dirty list */
  struct SBInfo* next_dirty;
  UInt n;
  uint64_t* segments; /* entries of each segment since the last flush */
  InstrInfo instr[0];
} SBInfo;

/* Counts of one thread over the whole run (name NULL) or its share of one region. */
typedef struct {
  HChar* name;
  ThreadId tid;
  Bool entered; /* a region's share: the thread opened the region at least once */
  UInt cap;
  uint64_t** cost; /* by InstrInfo id; NULL where the instruction has nothing here */
} Bucket;

/* A region by name: how many opens are pending over all threads (0: closed), and which bucket
 * holds each thread's share (index + 1; 0: none yet). */
typedef struct {
  HChar* name;
  UInt open;
  UInt* share; /* VG_N_THREADS entries */
} Region;

#define MAX_DEPTH 64
typedef struct {
  UInt depth;
  UInt region[MAX_DEPTH]; /* indexes into regions[] of those this thread opened, innermost last */
} ThreadRegions;

static CacheSim sim;
static CsLevelConfig levels_config[CS_MAX_LEVELS];
static int levels_count = 0;
static int prefetch = CS_PREFETCH_NONE;
static Bool collect_at_start = False;
static Bool with_functions = False;
static const HChar* out_file = "rprofsim.out.%p";

static Bool collecting;
static ULong epoch = 1;
static SBInfo* dirty_head = NULL;
/* The block running now: stored by every block on entry. A client request ends its block, so
 * when a request is handled this is the block that issued it, executed to its end. */
static SBInfo* current_sb = NULL;
static ThreadId current_tid = 1;
static ThreadRegions* threads; /* VG_N_THREADS of them */

static Bucket* buckets = NULL;
static UInt bucket_count = 0, bucket_cap = 0;

static Region* regions = NULL;
static UInt region_count = 0, region_cap = 0;
/* The regions open in some thread now (open > 0), each once: what a flush walks, however many
 * regions the program has named. Its capacity follows region_cap. */
static UInt* open_regions = NULL;
static UInt open_count = 0;

static InstrInfo** instrs = NULL;
static UInt instr_count = 0, instr_cap = 0;

static const HChar** objects = NULL;
static UInt object_count = 0, object_cap = 0;

static UInt Grow(void** array, UInt cap, SizeT elem, const HChar* cc) {
  UInt next = cap == 0 ? 64 : cap * 2;
  *array = VG_(realloc)(cc, *array, next * elem);
  return next;
}

/* Interned names (functions, source files): an open-addressing hash set, as libpython or
 * OpenBLAS name thousands of functions and every translated instruction looks one up. Id 0 is
 * "???" (unknown). */
typedef struct {
  HChar** names; /* by id */
  UInt count, cap;
  UInt* slots; /* id + 1; 0: empty */
  UInt slot_count;
} NameTable;

static NameTable functions, files;

static UInt HashName(const HChar* s) {
  UInt h = 2166136261u; /* FNV-1a */
  for (; *s; ++s) h = (h ^ (UChar)*s) * 16777619u;
  return h;
}

static UInt NameId(NameTable* t, const HChar* name) {
  if (t->slot_count == 0 || 2 * (t->count + 1) > t->slot_count) { /* (re)build at half load */
    UInt slots = t->slot_count == 0 ? 1024 : 2 * t->slot_count;
    if (t->slots != NULL) VG_(free)(t->slots);
    t->slots = VG_(calloc)("rprofsim.nameslots", slots, sizeof(UInt));
    t->slot_count = slots;
    for (UInt id = 0; id < t->count; ++id) {
      UInt k = HashName(t->names[id]) & (slots - 1);
      while (t->slots[k] != 0) k = (k + 1) & (slots - 1);
      t->slots[k] = id + 1;
    }
  }
  UInt k = HashName(name) & (t->slot_count - 1);
  for (; t->slots[k] != 0; k = (k + 1) & (t->slot_count - 1))
    if (VG_(strcmp)(t->names[t->slots[k] - 1], name) == 0) return t->slots[k] - 1;
  if (t->count == t->cap)
    t->cap = Grow((void**)&t->names, t->cap, sizeof(HChar*), "rprofsim.names");
  t->names[t->count] = VG_(strdup)("rprofsim.name", name);
  t->slots[k] = t->count + 1;
  return t->count++;
}

/* The function, file and line of the instruction at `runtime`, into *ii. */
static void LookUpSource(InstrInfo* ii, Addr runtime) {
  DiEpoch ep = VG_(current_DiEpoch)();
  const HChar* name = NULL;
  /* The name is copied (NameId) before the next lookup overwrites valgrind's buffer. */
  ii->fn_id = VG_(get_fnname)(ep, runtime, &name) && name != NULL && *name != '\0'
                  ? NameId(&functions, name)
                  : 0;
  const HChar* file = NULL;
  const HChar* dir = NULL;
  UInt line = 0;
  if (VG_(get_filename_linenum)(ep, runtime, &file, &dir, &line) && file != NULL && *file != '\0') {
    if (dir != NULL && *dir != '\0' && file[0] != '/') {
      HChar path[4096];
      VG_(snprintf)(path, sizeof path, "%s/%s", dir, file);
      ii->file_id = NameId(&files, path);
    } else {
      ii->file_id = NameId(&files, file);
    }
    ii->line = line;
  } else {
    ii->file_id = 0;
    ii->line = 0;
  }
}

static UInt ObjectId(const HChar* name) {
  for (UInt i = 0; i < object_count; ++i)
    if (VG_(strcmp)(objects[i], name) == 0) return i;
  if (object_count == object_cap)
    object_cap = Grow((void**)&objects, object_cap, sizeof(HChar*), "rprofsim.objects");
  objects[object_count] = VG_(strdup)("rprofsim.objname", name);
  return object_count++;
}

static UInt BucketFor(const HChar* name, ThreadId tid) {
  for (UInt i = 0; i < bucket_count; ++i) {
    Bucket* b = &buckets[i];
    if (b->tid != tid) continue;
    if (name == NULL ? b->name == NULL : b->name != NULL && VG_(strcmp)(b->name, name) == 0)
      return i;
  }
  if (bucket_count == bucket_cap)
    bucket_cap = Grow((void**)&buckets, bucket_cap, sizeof(Bucket), "rprofsim.buckets");
  Bucket* b = &buckets[bucket_count];
  b->name = name == NULL ? NULL : VG_(strdup)("rprofsim.region", name);
  b->tid = tid;
  b->entered = False;
  b->cap = 0;
  b->cost = NULL;
  return bucket_count++;
}

static UInt RegionFor(const HChar* name) {
  for (UInt i = 0; i < region_count; ++i)
    if (VG_(strcmp)(regions[i].name, name) == 0) return i;
  if (region_count == region_cap) {
    UInt cap = region_cap;
    region_cap = Grow((void**)&regions, cap, sizeof(Region), "rprofsim.regions");
    Grow((void**)&open_regions, cap, sizeof(UInt), "rprofsim.open");
  }
  Region* r = &regions[region_count];
  r->name = VG_(strdup)("rprofsim.region", name);
  r->open = 0;
  r->share = VG_(calloc)("rprofsim.shares", VG_N_THREADS, sizeof(UInt));
  return region_count++;
}

/* The bucket of thread `tid`'s share of region `region`. */
static UInt ShareOf(UInt region, ThreadId tid) {
  Region* r = &regions[region];
  if (r->share[tid] == 0) r->share[tid] = BucketFor(r->name, tid) + 1;
  return r->share[tid] - 1;
}

static void AddTo(Bucket* b, const InstrInfo* ii) {
  if (ii->id >= b->cap) {
    UInt next = b->cap == 0 ? 1024 : b->cap;
    while (next <= ii->id) next *= 2;
    b->cost = VG_(realloc)("rprofsim.bucket", b->cost, next * sizeof(uint64_t*));
    for (UInt i = b->cap; i < next; ++i) b->cost[i] = NULL;
    b->cap = next;
  }
  uint64_t* c = b->cost[ii->id];
  if (c == NULL) c = b->cost[ii->id] = VG_(calloc)("rprofsim.cost", EV_COUNT, sizeof(uint64_t));
  for (int e = 0; e < EV_COUNT; ++e) c[e] += ii->cost[e];
}

/* Moves what the blocks run since the last flush counted to where it belongs: the running
 * thread's total and its share of every region open in any thread while collecting, nowhere
 * otherwise. With `keep_current`
 * the block that issued the request being handled keeps its counts for the next flush: they are
 * the request's own setup (its argument block), which belongs to the context after the switch,
 * as callgrind's block-wise accounting has it. */
static void Flush(Bool keep_current) {
  static UInt* targets = NULL;
  static UInt targets_cap = 0;
  if (targets_cap < open_count + 1) {
    targets_cap = open_count + 64;
    targets = VG_(realloc)("rprofsim.targets", targets, targets_cap * sizeof(UInt));
  }
  UInt n = 0;
  if (collecting) {
    targets[n++] = BucketFor(NULL, current_tid);
    /* Each open region once, however many threads (or recursive calls) have it open. */
    for (UInt k = 0; k < open_count; ++k) targets[n++] = ShareOf(open_regions[k], current_tid);
  }
  SBInfo* kept = keep_current ? current_sb : NULL;
  for (SBInfo* sb = dirty_head; sb != NULL;) {
    SBInfo* next = sb->next_dirty;
    sb->next_dirty = NULL;
    if (sb != kept) {
      for (UInt i = 0; i < sb->n; ++i) {
        InstrInfo* ii = &sb->instr[i];
        ii->cost[EV_IR] = sb->segments[ii->segment];
        if (ii->cost[EV_IR] == 0) continue; /* not executed, so no access either */
        for (UInt t = 0; t < n; ++t) AddTo(&buckets[targets[t]], ii);
        for (int e = 0; e < EV_COUNT; ++e) ii->cost[e] = 0;
      }
      if (sb->n > 0)
        for (UInt k = 0; k <= sb->instr[sb->n - 1].segment; ++k) sb->segments[k] = 0;
    }
    sb = next;
  }
  dirty_head = NULL;
  ++epoch;
  if (kept != NULL) { /* still dirty, in the new epoch */
    kept->epoch = epoch;
    dirty_head = kept;
  }
}

/* ---- helpers called by the instrumented code -------------------------------------------- */

static VG_REGPARM(1) void MarkDirty(SBInfo* sb) {
  sb->epoch = epoch;
  sb->next_dirty = dirty_head;
  dirty_head = sb;
}

static VG_REGPARM(3) void Load(InstrInfo* ii, Addr a, SizeT size) {
  ii->cost[EV_DR]++;
  cs_access_inline(&sim, a, size, 0, ii->cost + EV_CACHE);
}

/* Loads of one instruction that read one range in order, as one access (LoadRun): the low 32
 * bits of `packed` its bytes, the high 32 how many loads. */
static VG_REGPARM(3) void LoadMerged(InstrInfo* ii, Addr a, ULong packed) {
  ii->cost[EV_DR] += packed >> 32;
  cs_access_inline(&sim, a, packed & 0xFFFFFFFFu, 0, ii->cost + EV_CACHE);
}

static VG_REGPARM(3) void Store(InstrInfo* ii, Addr a, SizeT size) {
  ii->cost[EV_DW]++;
  cs_access_inline(&sim, a, size, 1, ii->cost + EV_CACHE);
}

static VG_REGPARM(3) void Modify(InstrInfo* ii, Addr a, SizeT size) {
  ii->cost[EV_DR]++;
  ii->cost[EV_DW]++;
  cs_access(&sim, a, size, 0, ii->cost + EV_CACHE);
  cs_access_inline(&sim, a, size, 1, ii->cost + EV_CACHE);
}

static VG_REGPARM(3) void StoreNonTemporal(InstrInfo* ii, Addr a, SizeT size) {
  ii->cost[EV_DW]++;
  cs_nt_store(&sim, a, size, ii->cost + EV_CACHE);
}

/* ---- instrumentation -------------------------------------------------------------------- */

/* Whether the instruction at p is a non-temporal store (MOVNTI, MOVNTPS/PD, MOVNTDQ, MOVNTQ,
 * MOVNTSS/SD and their VEX forms): VEX IR gives them as plain stores. */
static Bool IsNonTemporalStore(const UChar* p, UInt len) {
  UInt i = 0;
  while (i < len && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xF2 || p[i] == 0xF3 || p[i] == 0x2E ||
                     p[i] == 0x3E || p[i] == 0x26 || p[i] == 0x36 || p[i] == 0x64 || p[i] == 0x65 ||
                     p[i] == 0xF0))
    ++i;
  UChar op;
  if (i + 2 < len && p[i] == 0xC5) {
    op = p[i + 2];
  } else if (i + 3 < len && p[i] == 0xC4) {
    if ((p[i + 1] & 0x1F) != 1) return False; /* only map 0F holds them */
    op = p[i + 3];
  } else {
    if (i < len && (p[i] & 0xF0) == 0x40) ++i; /* REX */
    if (i + 1 >= len || p[i] != 0x0F) return False;
    op = p[i + 1];
  }
  return op == 0x2B || op == 0xE7 || op == 0xC3;
}

static void CallHelper(IRSB* sb, const HChar* name, void* fn, InstrInfo* ii, IRExpr* addr, Int size,
                       IRExpr* guard) {
  IRExpr** args = mkIRExprVec_3(mkIRExpr_HWord((HWord)ii), addr, mkIRExpr_HWord((HWord)size));
  IRDirty* di = unsafeIRDirty_0_N(3, name, VG_(fnptr_to_fnentry)(fn), args);
  if (guard != NULL) di->guard = guard;
  addStmtToIRSB(sb, IRStmt_Dirty(di));
}

static void AddLoad(IRSB* sb, InstrInfo* ii, IRExpr* addr, Int size, IRExpr* guard) {
  CallHelper(sb, "rprofsim_load", Load, ii, addr, size, guard);
}

static void AddStore(IRSB* sb, InstrInfo* ii, Bool nt, IRExpr* addr, Int size, IRExpr* guard) {
  if (nt)
    CallHelper(sb, "rprofsim_store_nt", StoreNonTemporal, ii, addr, size, guard);
  else
    CallHelper(sb, "rprofsim_store", Store, ii, addr, size, guard);
}

/* Loads of one instruction, each beginning where the one before ended (VEX reads an operand
 * of AVX2's FMA one lane at a time: four 8-byte loads), are one access to the simulation: the
 * lines they touch, in order, are the range's, and a line loaded again right after is its set's
 * most recent, which changes nothing. So they take one helper call, at the last of them; any
 * other statement with a memory effect, or an exit, ends the run. */
typedef struct {
  InstrInfo* ii; /* NULL: no run pending */
  IRExpr* addr;  /* the first load's address */
  IRTemp base;   /* the addresses as base + constant */
  Long next;     /* the offset the next load must read at to join */
  Int size;
  UInt count;
} LoadRun;

/* Each temporary's value as another's plus a constant (IRTemp_INVALID: itself). */
typedef struct {
  IRTemp* base;
  Long* offset;
} Offsets;

static void RootOf(const Offsets* o, IRTemp t, IRTemp* base, Long* offset) {
  if (o->base[t] == IRTemp_INVALID) {
    *base = t;
    *offset = 0;
  } else {
    *base = o->base[t];
    *offset = o->offset[t];
  }
}

static void EndRun(IRSB* sb, LoadRun* run) {
  if (run->ii == NULL) return;
  if (run->count == 1) {
    AddLoad(sb, run->ii, run->addr, run->size, NULL);
  } else {
    IRExpr** args = mkIRExprVec_3(mkIRExpr_HWord((HWord)run->ii), run->addr,
                                  mkIRExpr_HWord(((HWord)run->count << 32) | (HWord)run->size));
    IRDirty* di =
        unsafeIRDirty_0_N(3, "rprofsim_load_merged", VG_(fnptr_to_fnentry)(LoadMerged), args);
    addStmtToIRSB(sb, IRStmt_Dirty(di));
  }
  run->ii = NULL;
}

static InstrInfo* NewInstr(InstrInfo* ii, Addr runtime) {
  DebugInfo* di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), runtime);
  const HChar* name = di != NULL ? VG_(DebugInfo_get_filename)(di) : NULL;
  ii->object_id = ObjectId(name != NULL ? name : "???");
  ii->object = objects[ii->object_id];
  ii->address = di != NULL ? runtime - (Addr)VG_(DebugInfo_get_text_bias)(di) : runtime;
  if (instr_count == instr_cap)
    instr_cap = Grow((void**)&instrs, instr_cap, sizeof(InstrInfo*), "rprofsim.instrs");
  ii->id = instr_count;
  instrs[instr_count++] = ii;
  if (with_functions) {
    LookUpSource(ii, runtime);
  } else {
    ii->fn_id = ii->file_id = 0;
    ii->line = 0;
  }
  for (int e = 0; e < EV_COUNT; ++e) ii->cost[e] = 0;
  return ii;
}

static IRSB* Instrument(VgCallbackClosure* closure, IRSB* in, const VexGuestLayout* layout,
                        const VexGuestExtents* extents, const VexArchInfo* archinfo, IRType gWordTy,
                        IRType hWordTy) {
  (void)closure, (void)layout, (void)extents, (void)archinfo;
  if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");

  UInt n = 0, exits = 0;
  for (Int i = 0; i < in->stmts_used; ++i) {
    if (in->stmts[i]->tag == Ist_IMark) ++n;
    if (in->stmts[i]->tag == Ist_Exit) ++exits;
  }
  SBInfo* info = VG_(malloc)("rprofsim.sb", sizeof(SBInfo) + n * sizeof(InstrInfo));
  info->epoch = 0;
  info->next_dirty = NULL;
  info->n = n;
  info->segments = VG_(calloc)("rprofsim.segments", exits + 1, sizeof(uint64_t));

  IRSB* out = deepCopyIRSBExceptStmts(in);
  Int i = 0;
  for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; ++i)
    addStmtToIRSB(out, in->stmts[i]);

  /* Say which block runs, then join the dirty list when first run after a flush. */
  addStmtToIRSB(
      out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&current_sb), mkIRExpr_HWord((HWord)info)));
  IRTemp own = newIRTemp(out->tyenv, Ity_I64), now = newIRTemp(out->tyenv, Ity_I64);
  IRTemp stale = newIRTemp(out->tyenv, Ity_I1);
  addStmtToIRSB(
      out, IRStmt_WrTmp(own, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&info->epoch))));
  addStmtToIRSB(out,
                IRStmt_WrTmp(now, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&epoch))));
  addStmtToIRSB(
      out, IRStmt_WrTmp(stale, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(own), IRExpr_RdTmp(now))));
  IRDirty* mark = unsafeIRDirty_0_N(1, "rprofsim_mark", VG_(fnptr_to_fnentry)(MarkDirty),
                                    mkIRExprVec_1(mkIRExpr_HWord((HWord)info)));
  mark->guard = IRExpr_RdTmp(stale);
  addStmtToIRSB(out, IRStmt_Dirty(mark));

  InstrInfo* ii = NULL;
  Bool nt = False;
  UInt k = 0;
  UInt segment = 0;
  Bool segment_started = False; /* the current segment's counter is incremented already */
  Offsets offsets;
  Int temps = in->tyenv->types_used;
  offsets.base = VG_(malloc)("rprofsim.offsets", (temps + 1) * sizeof(IRTemp));
  offsets.offset = VG_(malloc)("rprofsim.offsets", (temps + 1) * sizeof(Long));
  for (Int t = 0; t < temps; ++t) offsets.base[t] = IRTemp_INVALID;
  LoadRun run = {NULL, NULL, IRTemp_INVALID, 0, 0, 0};
  for (; i < in->stmts_used; ++i) {
    IRStmt* st = in->stmts[i];
    if (st == NULL || st->tag == Ist_NoOp) continue;
    if (st->tag == Ist_WrTmp) {
      IRExpr* data = st->Ist.WrTmp.data;
      IRTemp dst = st->Ist.WrTmp.tmp;
      if (data->tag == Iex_Binop && data->Iex.Binop.op == Iop_Add64 &&
          data->Iex.Binop.arg1->tag == Iex_RdTmp && data->Iex.Binop.arg2->tag == Iex_Const &&
          data->Iex.Binop.arg2->Iex.Const.con->tag == Ico_U64) {
        RootOf(&offsets, data->Iex.Binop.arg1->Iex.RdTmp.tmp, &offsets.base[dst],
               &offsets.offset[dst]);
        offsets.offset[dst] += (Long)data->Iex.Binop.arg2->Iex.Const.con->Ico.U64;
      }
      if (data->tag == Iex_Load && data->Iex.Load.addr->tag == Iex_RdTmp) {
        IRTemp base;
        Long offset;
        RootOf(&offsets, data->Iex.Load.addr->Iex.RdTmp.tmp, &base, &offset);
        Int size = sizeofIRType(data->Iex.Load.ty);
        if (run.ii == ii && run.base == base && run.next == offset) {
          run.next += size;
          run.size += size;
          run.count++;
        } else {
          EndRun(out, &run);
          run = (LoadRun){ii, deepCopyIRExpr(data->Iex.Load.addr), base, offset + size, size, 1};
        }
        addStmtToIRSB(out, st);
        continue;
      }
      if (data->tag == Iex_Load) EndRun(out, &run); /* at a constant address */
    } else if (st->tag != Ist_Put && st->tag != Ist_PutI && st->tag != Ist_AbiHint) {
      EndRun(out, &run); /* a memory effect, an exit or the next instruction */
    }
    switch (st->tag) {
      case Ist_IMark: {
        Addr pc = (Addr)st->Ist.IMark.addr;
        ii = NewInstr(&info->instr[k++], pc);
        ii->segment = segment;
        nt = IsNonTemporalStore((const UChar*)pc, st->Ist.IMark.len);
        addStmtToIRSB(out, st);
        if (!segment_started) { /* info->segments[segment] += 1, inline */
          IRTemp c = newIRTemp(out->tyenv, Ity_I64), c1 = newIRTemp(out->tyenv, Ity_I64);
          IRExpr* where = mkIRExpr_HWord((HWord)&info->segments[segment]);
          addStmtToIRSB(out, IRStmt_WrTmp(c, IRExpr_Load(Iend_LE, Ity_I64, where)));
          addStmtToIRSB(out, IRStmt_WrTmp(c1, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(c),
                                                           IRExpr_Const(IRConst_U64(1)))));
          addStmtToIRSB(out, IRStmt_Store(Iend_LE, where, IRExpr_RdTmp(c1)));
          segment_started = True;
        }
        continue;
      }
      case Ist_Exit:
        /* What follows runs only when the exit is not taken: a segment of its own. */
        if (segment_started) {
          ++segment;
          segment_started = False;
        }
        break;
      case Ist_WrTmp: {
        IRExpr* data = st->Ist.WrTmp.data;
        if (data->tag == Iex_Load)
          AddLoad(out, ii, data->Iex.Load.addr, sizeofIRType(data->Iex.Load.ty), NULL);
        break;
      }
      case Ist_Store: {
        IRType ty = typeOfIRExpr(in->tyenv, st->Ist.Store.data);
        AddStore(out, ii, nt, st->Ist.Store.addr, sizeofIRType(ty), NULL);
        break;
      }
      case Ist_StoreG: {
        IRStoreG* sg = st->Ist.StoreG.details;
        IRType ty = typeOfIRExpr(in->tyenv, sg->data);
        AddStore(out, ii, nt, sg->addr, sizeofIRType(ty), sg->guard);
        break;
      }
      case Ist_LoadG: {
        IRLoadG* lg = st->Ist.LoadG.details;
        IRType ty = Ity_INVALID, wide = Ity_INVALID;
        typeOfIRLoadGOp(lg->cvt, &wide, &ty);
        AddLoad(out, ii, lg->addr, sizeofIRType(ty), lg->guard);
        break;
      }
      case Ist_Dirty: {
        IRDirty* d = st->Ist.Dirty.details;
        if (d->mFx == Ifx_None) break;
        if (d->mFx == Ifx_Modify)
          CallHelper(out, "rprofsim_modify", Modify, ii, d->mAddr, d->mSize, NULL);
        else if (d->mFx == Ifx_Read)
          AddLoad(out, ii, d->mAddr, d->mSize, NULL);
        else
          AddStore(out, ii, False, d->mAddr, d->mSize, NULL);
        break;
      }
      case Ist_CAS: {
        IRCAS* cas = st->Ist.CAS.details;
        Int size = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo));
        if (cas->dataHi != NULL) size *= 2;
        CallHelper(out, "rprofsim_modify", Modify, ii, cas->addr, size, NULL);
        break;
      }
      case Ist_LLSC: {
        if (st->Ist.LLSC.storedata == NULL)
          AddLoad(out, ii, st->Ist.LLSC.addr,
                  sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result)), NULL);
        else
          AddStore(out, ii, False, st->Ist.LLSC.addr,
                   sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata)), NULL);
        break;
      }
      default:
        break;
    }
    addStmtToIRSB(out, st);
  }
  EndRun(out, &run);
  VG_(free)(offsets.base);
  VG_(free)(offsets.offset);
  tl_assert(k == n && segment <= exits);
  return out;
}

/* ---- client requests, threads ----------------------------------------------------------- */

static void SwitchThread(ThreadId tid, ULong blocks) {
  (void)blocks;
  if (tid == current_tid) return;
  Flush(False);
  current_tid = tid;
}

static Bool HandleRequest(ThreadId tid, UWord* args, UWord* ret) {
  switch (args[0]) {
    case RPROFSIM_USERREQ_IS_RPROFSIM:
      *ret = 1;
      return True;
    case RPROFSIM_USERREQ_REGION_BEGIN: {
      const HChar* name = (const HChar*)args[1];
      ThreadRegions* t = &threads[tid];
      if (name == NULL || *name == '\0' || t->depth == MAX_DEPTH) break;
      current_tid = tid;
      Flush(False);
      UInt r = RegionFor(name);
      t->region[t->depth++] = r;
      if (regions[r].open++ == 0) open_regions[open_count++] = r;
      UInt share = ShareOf(r, tid); /* may move buckets[] */
      buckets[share].entered = True;
      break;
    }
    case RPROFSIM_USERREQ_REGION_END: {
      const HChar* name = (const HChar*)args[1];
      ThreadRegions* t = &threads[tid];
      if (name == NULL) break;
      for (UInt d = t->depth; d-- > 0;) {
        if (VG_(strcmp)(regions[t->region[d]].name, name) != 0) continue;
        current_tid = tid;
        Flush(True);
        UInt r = t->region[d];
        if (--regions[r].open == 0) {
          UInt k = 0;
          while (open_regions[k] != r) ++k;
          open_regions[k] = open_regions[--open_count];
        }
        for (UInt j = d; j + 1 < t->depth; ++j) t->region[j] = t->region[j + 1];
        --t->depth;
        break;
      }
      break;
    }
    case VG_USERREQ__TOGGLE_COLLECT:
      current_tid = tid;
      Flush(collecting);
      collecting = !collecting;
      break;
    case VG_USERREQ__DUMP_STATS:
    case VG_USERREQ__ZERO_STATS:
    case VG_USERREQ__DUMP_STATS_AT:
    case VG_USERREQ__START_INSTRUMENTATION:
    case VG_USERREQ__STOP_INSTRUMENTATION:
      break; /* callgrind's: nothing to do here, accepted so they do not warn */
    default:
      return False;
  }
  *ret = 0;
  return True;
}

/* ---- output ----------------------------------------------------------------------------- */

typedef struct {
  Int fd;
  UInt used;
  HChar buf[1 << 16];
} Writer;

static void WriteFlush(Writer* w) {
  if (w->used > 0 && w->fd >= 0) VG_(write)(w->fd, w->buf, (Int)w->used);
  w->used = 0;
}

static void Put(Writer* w, const HChar* text) {
  SizeT n = VG_(strlen)(text);
  if (w->used + n >= sizeof w->buf) WriteFlush(w);
  VG_(memcpy)(w->buf + w->used, text, n);
  w->used += (UInt)n;
}

static const HChar* PolicyName(int policy) {
  return policy == CS_INCLUSIVE ? "inclusive" : policy == CS_VICTIM ? "victim" : "non-inclusive";
}

static void WriteHeader(Writer* w) {
  HChar line[512];
  Put(w, "version: 1\ncreator: rprofsim-1\n");
  VG_(sprintf)(line, "pid: %d\n", VG_(getpid)());
  Put(w, line);
  for (int k = 0; k < levels_count; ++k) {
    const CsLevelConfig* c = &levels_config[k];
    VG_(sprintf)
    (line, "desc: D%d cache: %llu B, %u B, %u-way associative\ndesc: D%d policy: %s\n", k + 1,
     (ULong)c->size_bytes, c->line_bytes, c->ways, k + 1,
     k == 0 ? "non-inclusive" : PolicyName(c->policy));
    Put(w, line);
  }
  const CsLevelConfig* last = &levels_config[levels_count - 1];
  VG_(sprintf)
  (line, "desc: LL cache: %llu B, %u B, %u-way associative\n", (ULong)last->size_bytes,
   last->line_bytes, last->ways);
  Put(w, line);
  VG_(sprintf)
  (line, "desc: Prefetch: %s\n",
   prefetch == CS_PREFETCH_NEXT_LINE ? "next-line"
   : prefetch == CS_PREFETCH_STRIDE  ? "stride"
                                     : "none");
  Put(w, line);
}

static int EventColumn(int column) { /* output column -> index into cost[] */
  if (column < EV_CACHE) return column;
  int level_events = levels_count * CS_EV_PER_LEVEL;
  if (column - EV_CACHE < level_events) return column;
  return EV_CACHE + CS_EV_NT_BYTES;
}

/* "fl=(id) name" the first time the file sees id, "fl=(id)" after (callgrind's name
 * compression); `key` is "fl" or "fn". */
static void PutName(Writer* w, const HChar* key, UInt id, const HChar* name, Bool* named) {
  HChar line[64];
  VG_(sprintf)(line, "%s=(%u)", key, id + 1);
  Put(w, line);
  if (!named[id]) {
    Put(w, " ");
    Put(w, name);
    named[id] = True;
  }
  Put(w, "\n");
}

static void WritePart(Writer* w, const Bucket* b, Bool* object_named, Bool* fn_named,
                      Bool* file_named) {
  HChar line[4096];
  int columns = EV_CACHE + levels_count * CS_EV_PER_LEVEL + 1;
  VG_(sprintf)(line, "\npart: %u\nthread: %u\n", (UInt)(b - buckets) + 1, (UInt)b->tid);
  Put(w, line);
  if (b->name != NULL) {
    Put(w, "desc: Trigger: Client Request: rprof-region:");
    Put(w, b->name);
    VG_(sprintf)
    (line, "\ndesc: Region thread: %u %s\n", (UInt)b->tid,
     b->entered ? "entered" : "did not enter");
    Put(w, line);
  } else {
    Put(w, "desc: Trigger: Program termination\n");
  }
  Put(w, with_functions ? "positions: instr line\nevents: Ir Dr Dw"
                        : "positions: instr\nevents: Ir Dr Dw");
  static const HChar* kLevelEvents[CS_EV_PER_LEVEL] = {"mr", "mw", "out", "pf"};
  for (int k = 0; k < levels_count; ++k) {
    for (int e = 0; e < CS_EV_PER_LEVEL; ++e) {
      VG_(sprintf)(line, " D%d%s", k + 1, kLevelEvents[e]);
      Put(w, line);
    }
  }
  Put(w, " NTb\n");
  ULong totals[EV_COUNT];
  for (int e = 0; e < EV_COUNT; ++e) totals[e] = 0;
  Int current_object = -1, current_fn = -1, current_file = -1;
  for (UInt id = 0; id < b->cap; ++id) {
    const uint64_t* c = b->cost[id];
    if (c == NULL) continue;
    const InstrInfo* ii = instrs[id];
    if ((Int)ii->object_id != current_object) {
      current_object = (Int)ii->object_id;
      if (object_named[current_object]) {
        VG_(sprintf)(line, "ob=(%u)\n", ii->object_id + 1);
      } else {
        VG_(sprintf)(line, "ob=(%u) %s\n", ii->object_id + 1, ii->object);
        object_named[current_object] = True;
      }
      Put(w, line);
    }
    if (with_functions) {
      /* callgrind's order: the file, then the function, then the cost lines they apply to. */
      if ((Int)ii->file_id != current_file) {
        current_file = (Int)ii->file_id;
        PutName(w, "fl", ii->file_id, files.names[ii->file_id], file_named);
      }
      if ((Int)ii->fn_id != current_fn) {
        current_fn = (Int)ii->fn_id;
        PutName(w, "fn", ii->fn_id, functions.names[ii->fn_id], fn_named);
      }
    }
    Int at = VG_(sprintf)(line, "0x%lx", (UWord)ii->address);
    if (with_functions) at += VG_(sprintf)(line + at, " %u", ii->line);
    for (int col = 0; col < columns; ++col) {
      ULong v = (ULong)c[EventColumn(col)];
      totals[EventColumn(col)] += v;
      at += VG_(sprintf)(line + at, " %llu", v);
    }
    line[at++] = '\n';
    line[at] = '\0';
    Put(w, line);
  }
  Int at = VG_(sprintf)(line, "totals:");
  for (int col = 0; col < columns; ++col)
    at += VG_(sprintf)(line + at, " %llu", totals[EventColumn(col)]);
  line[at++] = '\n';
  line[at] = '\0';
  Put(w, line);
}

static Writer writer;

/* Writes the parts of the buckets with `name` (NULL: the totals) into `path`; with `only` set,
 * only that bucket's. */
static void WriteFile(const HChar* path, const HChar* name, const Bucket* only) {
  Writer* w = &writer;
  SysRes fd = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
  if (sr_isError(fd)) {
    VG_(umsg)("rprofsim: cannot write %s\n", path);
    return;
  }
  w->fd = (Int)sr_Res(fd);
  w->used = 0;
  WriteHeader(w);
  Bool* named = VG_(calloc)("rprofsim.named", object_count + 1, sizeof(Bool));
  Bool* fn_named = VG_(calloc)("rprofsim.named", functions.count + 1, sizeof(Bool));
  Bool* file_named = VG_(calloc)("rprofsim.named", files.count + 1, sizeof(Bool));
  for (UInt i = 0; i < bucket_count; ++i) {
    const Bucket* b = &buckets[i];
    Bool match =
        name == NULL ? b->name == NULL : b->name != NULL && VG_(strcmp)(b->name, name) == 0;
    if (match && (only == NULL || only == b)) WritePart(w, b, named, fn_named, file_named);
  }
  VG_(free)(named);
  VG_(free)(fn_named);
  VG_(free)(file_named);
  WriteFlush(w);
  VG_(close)(w->fd);
}

static void Fini(Int exitcode) {
  (void)exitcode;
  Flush(False);
  HChar* base = VG_(expand_file_name)("--rprofsim-out-file", out_file);
  BucketFor(NULL, 1); /* the main thread's total part exists even when nothing was collected */
  WriteFile(base, NULL, NULL);
  HChar* path = VG_(malloc)("rprofsim.path", VG_(strlen)(base) + 48);
  for (UInt r = 0; r < region_count; ++r) {
    for (ThreadId tid = 0; tid < VG_N_THREADS; ++tid) {
      if (regions[r].share[tid] == 0) continue;
      VG_(sprintf)(path, "%s.region%u.t%u", base, r + 1, (UInt)tid);
      WriteFile(path, regions[r].name, &buckets[regions[r].share[tid] - 1]);
    }
  }
  VG_(free)(path);
}

/* ---- options, start-up ------------------------------------------------------------------ */

/* --cache=SIZE,WAYS,LINE[,non-inclusive|inclusive|victim], once per level from L1D down. */
static Bool ParseCache(const HChar* text) {
  if (levels_count == CS_MAX_LEVELS) return False;
  CsLevelConfig* c = &levels_config[levels_count];
  HChar* end;
  c->size_bytes = VG_(strtoull10)(text, &end);
  if (*end != ',') return False;
  c->ways = (UInt)VG_(strtoull10)(end + 1, &end);
  if (*end != ',') return False;
  c->line_bytes = (UInt)VG_(strtoull10)(end + 1, &end);
  c->policy = CS_NINE;
  if (*end == ',') {
    const HChar* p = end + 1;
    if (VG_(strcmp)(p, "inclusive") == 0)
      c->policy = CS_INCLUSIVE;
    else if (VG_(strcmp)(p, "victim") == 0)
      c->policy = CS_VICTIM;
    else if (VG_(strcmp)(p, "non-inclusive") != 0)
      return False;
  } else if (*end != '\0') {
    return False;
  }
  ++levels_count;
  return True;
}

static Bool ProcessOption(const HChar* arg) {
  const HChar* value;
  if VG_STR_CLO (arg, "--cache", value) {
    if (!ParseCache(value))
      VG_(fmsg_bad_option)
      (arg,
       "expected SIZE,WAYS,LINE[,non-inclusive|inclusive|victim], "
       "at most 4 levels\n");
  } else if VG_STR_CLO (arg, "--rprofsim-out-file", out_file) {
  } else if VG_BOOL_CLO (arg, "--collect-atstart", collect_at_start) {
  } else if VG_BOOL_CLO (arg, "--rprofsim-functions", with_functions) {
  } else if VG_XACT_CLO (arg, "--sim-prefetch=none", prefetch, CS_PREFETCH_NONE) {
  } else if VG_XACT_CLO (arg, "--sim-prefetch=next-line", prefetch, CS_PREFETCH_NEXT_LINE) {
  } else if VG_XACT_CLO (arg, "--sim-prefetch=stride", prefetch, CS_PREFETCH_STRIDE) {
  } else {
    return False;
  }
  return True;
}

static void PrintUsage(void) {
  VG_(printf)
  ("    --cache=SIZE,WAYS,LINE[,non-inclusive|inclusive|victim]  a data cache level, L1D first\n"
   "                                    (default: 32768,8,64 then 1048576,16,64)\n"
   "    --collect-atstart=no|yes        count from the start [no]\n"
   "    --rprofsim-functions=no|yes     each instruction's function, file and line [no]\n"
   "    --sim-prefetch=none|next-line|stride  prefetch model into L2 [none]\n"
   "    --rprofsim-out-file=FILE        output file [rprofsim.out.%%p]\n");
}

static void PrintDebugUsage(void) { VG_(printf)("    (none)\n"); }

static uint64_t* tag_storage;

static void PostCloInit(void) {
  if (levels_count == 0) {
    levels_config[0] = (CsLevelConfig){32768, 8, 64, CS_NINE};
    levels_config[1] = (CsLevelConfig){1048576, 16, 64, CS_NINE};
    levels_count = 2;
  }
  const HChar* why = "";
  ULong bytes = cs_tag_bytes(levels_config, levels_count, &why);
  if (bytes == 0) VG_(fmsg_bad_option)("--cache", "%s\n", why);
  tag_storage = VG_(calloc)("rprofsim.tags", 1, bytes);
  cs_init(&sim, levels_config, levels_count, prefetch, tag_storage);
  threads = VG_(calloc)("rprofsim.threads", VG_N_THREADS, sizeof(ThreadRegions));
  collecting = collect_at_start;
  NameId(&functions, "???"); /* id 0: unknown */
  NameId(&files, "???");
}

static void PreCloInit(void) {
  VG_(details_name)("rprofsim");
  VG_(details_version)("1");
  VG_(details_description)("rprof's write-back cache hierarchy simulator");
  VG_(details_copyright_author)("rprof");
  VG_(details_bug_reports_to)("rprof");
  VG_(details_avg_translation_sizeB)(500);
  VG_(basic_tool_funcs)(PostCloInit, Instrument, Fini);
  VG_(needs_command_line_options)(ProcessOption, PrintUsage, PrintDebugUsage);
  VG_(needs_client_requests)(HandleRequest);
  VG_(track_start_client_code)(SwitchThread);
}

VG_DETERMINE_INTERFACE_VERSION(PreCloInit)
