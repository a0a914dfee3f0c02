#include "counters/sim/sim_counts.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <utility>

#include "core/text.h"
#include "counters/sim/address_index.h"

namespace rprof {

struct SimAnalyzer::Object {
  ObjectCode code;
  bool readable = false;
  std::string open_error;
  // Every address looked up so far: index -> entries, decoded or not (then with its reason).
  struct Entry {
    InstructionClass cls;
    int32_t failure = -1;  // index into failures, or -1 when decoded
  };
  AddressIndex index;
  std::vector<Entry> entries;
  std::vector<std::string> failures;
};

namespace {

double Percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string DescribeLevel(const char* name, const std::optional<CacheLevelGeometry>& g) {
  if (!g) return std::string(name) + " not described";
  std::string ways = g->associativity == 0   ? "fully associative"
                     : g->associativity == 1 ? "direct-mapped"
                                             : std::to_string(g->associativity) + "-way";
  return Format("%s %" PRIu64 " B %s %u B line", name, g->size_bytes, ways.c_str(), g->line_bytes);
}

// Sum of the listed events, or nullopt when any is missing.
std::optional<uint64_t> SumEvents(const CallgrindOutput& out,
                                  std::initializer_list<const char*> names) {
  uint64_t sum = 0;
  for (const char* n : names) {
    int e = out.EventIndex(n);
    if (e < 0) return std::nullopt;
    sum += out.self_totals[static_cast<size_t>(e)];
  }
  return sum;
}

// rprofsim's hierarchy (callgrind_output.h: CacheGeometry::levels): the traffic across every
// boundary, from its events Dkmr Dkmw Dkout Dkpf (k = 1..levels) and NTb.
void AddHierarchyCounts(const CallgrindOutput& output, SimCounts* c) {
  const std::vector<CacheLevelGeometry>& levels = c->cache.levels;
  const size_t n = levels.size();
  auto event = [&](size_t k, const char* what) {
    return std::optional<uint64_t>(SumEvents(output, {Format("D%zu%s", k, what).c_str()}));
  };
  std::optional<uint64_t> nt = SumEvents(output, {"NTb"});
  // Bytes between level k and k+1 (k+1 = n + 1: DRAM).
  auto boundary = [&](size_t k, std::string* how) -> std::optional<uint64_t> {
    std::optional<uint64_t> mr = event(k, "mr"), mw = event(k, "mw"), out = event(k, "out"),
                            pf = event(k, "pf");
    if (!mr || !mw || !out || !pf || !nt) return std::nullopt;
    uint32_t line = levels[k - 1].line_bytes;
    *how =
        Format("(D%zu misses %" PRIu64 " + lines D%zu sent down %" PRIu64
               " + lines prefetched %" PRIu64 ") x %u B line + non-temporal stores %" PRIu64 " B",
               k, *mr + *mw, k, *out, *pf, line, *nt);
    return (*mr + *mw + *out + *pf) * line + *nt;
  };
  auto misses = [&](size_t k) -> std::optional<uint64_t> {
    std::optional<uint64_t> mr = event(k, "mr"), mw = event(k, "mw");
    if (!mr || !mw) return std::nullopt;
    return *mr + *mw;
  };
  std::vector<SimCounts::Note>& notes = c->notes;
  std::string how;
  c->l1d_misses = misses(1);
  if (n >= 2) c->l2_misses = misses(2);
  c->llc_misses = misses(n);
  if (n >= 2 && (c->bytes_l2 = boundary(1, &how)))
    notes.push_back({{"bytes_l2"}, "bytes_l2 = L1D<->L2: " + how});
  if (n >= 3 && (c->bytes_l3 = boundary(2, &how)))
    notes.push_back({{"bytes_l3"}, "bytes_l3 = L2<->L3: " + how});
  if (n < 3)
    notes.push_back({{"bytes_l3"}, "bytes_l3 absent: the simulated hierarchy has no third level"});
  if ((c->bytes_dram = boundary(n, &how)))
    notes.push_back({{"bytes_dram"}, Format("bytes_dram = L%zu<->DRAM: ", n) + how});
  std::string levels_text;
  for (size_t k = 0; k < n; ++k) {
    std::string name = k == 0 ? "L1D" : Format("L%zu", k + 1);
    levels_text += (k ? ", " : "") + DescribeLevel(name.c_str(), levels[k]);
    if (k > 0 && k < c->cache.policies.size()) levels_text += " " + c->cache.policies[k];
  }
  std::string prefetch = c->cache.prefetch.empty() ? "none" : c->cache.prefetch;
  notes.push_back(
      {{"l1d_misses", "l2_misses", "llc_misses", "bytes_l2", "bytes_l3", "bytes_dram"},
       "simulated by rprofsim: " + levels_text +
           "; LRU, write-allocate, write-back at every level, non-temporal stores bypassing; "
           "prefetch model: " +
           prefetch + (prefetch == "none" ? " (--sim-prefetch adds one)" : "")});
}

}  // namespace

SimAnalyzer::SimAnalyzer() = default;
SimAnalyzer::~SimAnalyzer() = default;

SimAnalyzer::Object* SimAnalyzer::FindObject(const std::string& path) {
  auto it = objects_.find(path);
  if (it != objects_.end()) return it->second.get();
  auto obj = std::make_unique<Object>();
  if (path.empty() || path == "???") {
    obj->open_error = "valgrind did not know the object file";
  } else if (path[0] == '[') {
    obj->open_error = "not a file (" + path + ")";  // [vdso] and the like
  } else {
    Error open_error;
    obj->readable = obj->code.Open(path, &open_error);
    if (!obj->readable) obj->open_error = std::move(open_error.message);
  }
  Object* raw = obj.get();
  objects_.emplace(path, std::move(obj));
  return raw;
}

bool SimAnalyzer::Analyze(const CallgrindOutput& output, SimCounts* counts, Error* err) {
  *counts = SimCounts();
  SimCounts& c = *counts;
  int ir = output.EventIndex("Ir");
  if (ir < 0)
    return Fail(err, ErrorKind::kEnvironment,
                "the callgrind output has no Ir event: it was not written by callgrind's default "
                "event set");
  if (!output.sites.empty() && !output.has_instr_positions)
    return Fail(err, ErrorKind::kEnvironment,
                "the callgrind output has no instruction addresses: run callgrind with "
                "--dump-instr=yes");

  c.instructions = output.self_totals[static_cast<size_t>(ir)];
  c.cache = output.cache;

  int dr = output.EventIndex("Dr");
  int dw = output.EventIndex("Dw");
  uint64_t x87 = 0;
  uint64_t plt_adjusted_sites = 0;
  UndecodedObject* current_undecoded = nullptr;
  uint32_t current_object = UINT32_MAX;
  Object* obj = nullptr;
  for (size_t i = 0; i < output.sites.size(); ++i) {
    const InstructionSite& site = output.sites[i];
    uint64_t executions = output.Cost(i, ir);
    if (executions == 0) continue;  // e.g. only cache events attributed here
    if (site.object != current_object) {
      current_object = site.object;
      obj = FindObject(output.objects[site.object]);
      current_undecoded = nullptr;
      // Sites are sorted by object: count this object's to size its table once.
      size_t end = i;
      while (end < output.sites.size() && output.sites[end].object == site.object) ++end;
      obj->index.Reserve(obj->index.size() + (end - i));
      obj->entries.reserve(obj->entries.size() + (end - i));
    }
    const InstructionClass* cls = nullptr;
    const std::string* reason = nullptr;
    if (!obj->readable) {
      reason = &obj->open_error;
    } else {
      bool inserted;
      uint32_t e = obj->index.FindOrInsert(site.address, static_cast<uint32_t>(obj->entries.size()),
                                           &inserted);
      if (inserted) {
        Object::Entry entry;
        std::span<const uint8_t> code = obj->code.CodeAt(site.address);
        std::string why;
        Error undecodable;
        if (code.empty()) {
          why = Format("address 0x%" PRIx64 " is not in an executable segment of the file",
                       site.address);
        } else if (ClassifyInstruction(code, &entry.cls, &undecodable)) {
          ++decoded_;
        } else {
          why = std::move(undecodable.message);
        }
        if (!why.empty()) {
          entry.failure = static_cast<int32_t>(obj->failures.size());
          obj->failures.push_back(std::move(why));
        }
        obj->entries.push_back(std::move(entry));
      }
      const Object::Entry& entry = obj->entries[e];
      if (entry.failure < 0) {
        cls = &entry.cls;
      } else {
        reason = &obj->failures[static_cast<size_t>(entry.failure)];
      }
    }

    if (cls == nullptr) {
      c.undecoded_executions += executions;
      if (current_undecoded == nullptr) {
        c.undecoded.push_back({output.objects[site.object], 0, 0, *reason});
        current_undecoded = &c.undecoded.back();
      }
      current_undecoded->executions += executions;
      current_undecoded->sites += 1;
      continue;
    }

    if (cls->fp_arith) {
      int w = static_cast<int>(cls->width);
      uint64_t flops = executions * cls->flops;
      if (cls->fp_type == FpType::kFp64) {
        c.flops_dp += flops;
        c.flops_dp_by_width[w] += flops;
        c.fp_instructions_dp_by_width[w] += executions;
      } else {
        c.flops_sp += flops;
        c.flops_sp_by_width[w] += flops;
        c.fp_instructions_sp_by_width[w] += executions;
      }
    }
    if (cls->x87_arith) x87 += executions;
    if (cls->rep_string && dr >= 0 && dw >= 0) {
      // Valgrind runs a REP instruction once more with the count register at 0, which adds an
      // Ir but moves nothing; Dr/Dw count the iterations that did move an element.
      if (cls->load_operands > 0) {
        c.bytes_l1_loads += output.Cost(i, dr) * (cls->load_bytes / cls->load_operands);
      }
      if (cls->store_operands > 0) {
        c.bytes_l1_stores += output.Cost(i, dw) * (cls->store_bytes / cls->store_operands);
      }
    } else if (cls->control_flow && dr >= 0 && dw >= 0) {
      // With --skip-plt=yes (callgrind's default) the PLT stub a call or jump goes through is
      // charged to that instruction: its Ir then counts the stub's JMP too, and the stub's GOT
      // load shows up as Dr. Every stack or GOT access of CALL/RET/JMP is 8 bytes in 64-bit mode.
      uint64_t reads = output.Cost(i, dr);
      uint64_t writes = output.Cost(i, dw);
      if (reads != executions * cls->load_operands || writes != executions * cls->store_operands) {
        ++plt_adjusted_sites;
      }
      c.bytes_l1_loads += reads * 8;
      c.bytes_l1_stores += writes * 8;
    } else {
      c.bytes_l1_loads += executions * cls->load_bytes;
      c.bytes_l1_stores += executions * cls->store_bytes;
    }
    if (cls->mask_unknown) c.masked_executions += executions;
    if (cls->rep_string) c.rep_string_executions += executions;
  }
  c.x87_instructions = x87;

  // Cache simulation.
  c.data_accesses = SumEvents(output, {"Dr", "Dw"});
  c.l1d_misses = SumEvents(output, {"D1mr", "D1mw"});
  c.llc_misses = SumEvents(output, {"DLmr", "DLmw"});
  c.llc_writebacks = SumEvents(output, {"DLdmr", "DLdmw"});
  std::vector<SimCounts::Note>& notes = c.notes;
  const std::vector<std::string> kFlops = {"flops", "flops_dp", "flops_sp"};
  const std::vector<std::string> kFlopsAndL1 = {"flops", "flops_dp", "flops_sp", "bytes_l1"};
  const std::vector<std::string> kCaches = {"l1d_misses", "llc_misses", "bytes_l2", "bytes_dram"};
  notes.push_back(
      {kFlops,
       "flops_dp/flops_sp: decoded executed instructions, FP_ARITH rules: add, sub, mul, div, "
       "sqrt, min, max, rcp, rsqrt, hadd, hsub, addsub = 1 FLOP per lane; FMA and DPPS/DPPD = 2 "
       "per lane; compares, conversions and x87 not counted"});
  notes.push_back({{"bytes_l1"},
                   Format("bytes_l1 = memory-operand bytes of every executed instruction: %" PRIu64
                          " B loaded + %" PRIu64
                          " B stored (stack pushes/pops included; LEA, NOP, prefetch excluded)",
                          c.bytes_l1_loads, c.bytes_l1_stores)});
  if (!c.cache.levels.empty()) {
    AddHierarchyCounts(output, &c);
  } else {
    if (!c.l1d_misses || !c.llc_misses) {
      notes.push_back(
          {kCaches,
           "l1d_misses, llc_misses, bytes_l2, bytes_dram absent: the callgrind output has no D1/LL "
           "miss events; run callgrind with --cache-sim=yes"});
    }
    if (c.l1d_misses) {
      if (c.cache.d1) {
        c.bytes_l2 = *c.l1d_misses * c.cache.d1->line_bytes;
        notes.push_back({{"bytes_l2"},
                         Format("bytes_l2 = simulated D1 misses (D1mr + D1mw) x %u B line: line "
                                "refills only; write-backs of dirty D1 lines are not simulated",
                                c.cache.d1->line_bytes)});
      } else {
        notes.push_back(
            {{"bytes_l2"}, "bytes_l2 absent: the callgrind output does not describe the D1 cache"});
      }
    }
    if (c.llc_misses) {
      if (c.cache.ll) {
        uint64_t lines = *c.llc_misses + c.llc_writebacks.value_or(0);
        c.bytes_dram = lines * c.cache.ll->line_bytes;
        notes.push_back(
            {{"bytes_dram"},
             c.llc_writebacks
                 ? Format(
                       "bytes_dram = (simulated LL data misses + dirty LL evictions) x %u B line; "
                       "no hardware prefetch simulated",
                       c.cache.ll->line_bytes)
                 : Format("bytes_dram = simulated LL data misses (DLmr + DLmw) x %u B line; "
                          "write-backs not simulated (--simulate-wb=no), no hardware prefetch",
                          c.cache.ll->line_bytes)});
      } else {
        notes.push_back({{"bytes_dram"},
                         "bytes_dram absent: the callgrind output does not describe the LL cache"});
      }
    }
    if (c.cache.d1 || c.cache.ll) {
      notes.push_back(
          {kCaches,
           "simulated caches (the geometry rprof gave valgrind, else valgrind's reading of "
           "cpuid): " +
               DescribeLevel("D1", c.cache.d1) + ", " + DescribeLevel("LL", c.cache.ll) +
               "; LL is inclusive, write-allocate, LRU"});
    }
  }
  if (c.undecoded_executions > 0) {
    // One entry per object and reason: an object met in several runs of sites (or several
    // unnamed "???" objects alike) is said once, its executions summed.
    std::vector<UndecodedObject> merged;
    for (const UndecodedObject& u : c.undecoded) {
      auto same = std::find_if(merged.begin(), merged.end(), [&](const UndecodedObject& m) {
        return m.object == u.object && m.reason == u.reason;
      });
      if (same == merged.end())
        merged.push_back(u);
      else
        same->executions += u.executions, same->sites += u.sites;
    }
    std::string where;
    for (const UndecodedObject& u : merged) {
      if (!where.empty()) where += "; ";
      where += Format("%" PRIu64 " in %s (%s)", u.executions, u.object.c_str(), u.reason.c_str());
    }
    notes.push_back(
        {kFlopsAndL1, Format("%" PRIu64 " of %" PRIu64 " executed instructions (%.3g %%) could "
                             "not be decoded, so flops and bytes_l1 are lower bounds: ",
                             c.undecoded_executions, c.instructions,
                             Percent(c.undecoded_executions, c.instructions)) +
                          where});
  }
  if (c.masked_executions > 0) {
    notes.push_back(
        {kFlopsAndL1, Format("%" PRIu64 " executions of masked or gather/scatter instructions "
                             "counted at full width: flops and bytes_l1 are upper bounds for them",
                             c.masked_executions)});
  }
  if (c.x87_instructions > 0) {
    notes.push_back(
        {kFlops, Format("%" PRIu64 " x87 arithmetic instructions executed and not counted in "
                        "flops (FP_ARITH does not count x87 either)",
                        c.x87_instructions)});
  }
  if (c.rep_string_executions > 0) {
    notes.push_back({{"bytes_l1"},
                     Format("REP string instructions (%" PRIu64 " executions): bytes from "
                            "callgrind's per-iteration data reads and writes (Dr, Dw) x element "
                            "size",
                            c.rep_string_executions)});
  }
  if (plt_adjusted_sites > 0) {
    notes.push_back({{"bytes_l1"},
                     Format("%" PRIu64 " call/jump instructions carry the PLT stubs callgrind "
                            "skips (--skip-plt=yes): their bytes are Dr/Dw x 8 B, and the stubs' "
                            "instructions count in instructions but not as separate sites",
                            plt_adjusted_sites)});
  }
  if (!output.totals) {
    notes.push_back({kFlopsAndL1,
                     "the callgrind output has no totals: line (valgrind stopped before writing "
                     "it?): the counts may be incomplete"});
  }
  return true;
}

void AddSimMetrics(const SimCounts& counts, const std::string& region, bool split,
                   std::vector<Metric>* out, const std::string& where) {
  // Each metric's note: what it is here, then every caveat of the analysis that qualifies it.
  auto add = [&](const std::string& name, std::optional<double> value, const char* unit,
                 std::string note) {
    for (const SimCounts::Note& n : counts.notes)
      if (std::find(n.metrics.begin(), n.metrics.end(), name) != n.metrics.end())
        note += (note.empty() ? "" : "; ") + n.text;
    out->push_back({name, value, unit, Source::kSim, region, std::move(note)});
  };
  auto opt = [](const std::optional<uint64_t>& v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  std::string flop_note = DescribeFpMix(counts);
  add("instructions", static_cast<double>(counts.instructions), "count", where);
  add("flops", static_cast<double>(counts.flops()), "FLOP", flop_note);
  add("flops_dp", static_cast<double>(counts.flops_dp), "FLOP", "");
  add("flops_sp", static_cast<double>(counts.flops_sp), "FLOP", "");
  const char* widths[] = {"scalar", "128", "256", "512"};
  for (int w = 0; split && w < kVectorWidthCount; ++w) {
    if (counts.flops_dp > 0)
      add(std::string("flops_dp_") + widths[w], static_cast<double>(counts.flops_dp_by_width[w]),
          "FLOP", "");
    if (counts.flops_sp > 0)
      add(std::string("flops_sp_") + widths[w], static_cast<double>(counts.flops_sp_by_width[w]),
          "FLOP", "");
  }
  add("bytes_l1", static_cast<double>(counts.bytes_l1()), "B", "");
  if (split) {
    add("l1d_misses", opt(counts.l1d_misses), "count", "");
    add("llc_misses", opt(counts.llc_misses), "count", "");
  }
  add("bytes_l2", opt(counts.bytes_l2), "B", "");
  if (!counts.cache.levels.empty()) {  // rprofsim: levels callgrind does not simulate
    if (split && counts.cache.levels.size() > 2)
      add("l2_misses", opt(counts.l2_misses), "count", "");
    add("bytes_l3", opt(counts.bytes_l3), "B", "");
  }
  add("bytes_dram", opt(counts.bytes_dram), "B", "");
}

std::string DescribeFpMix(const SimCounts& counts) {
  WidthCounts instr{};
  WidthCounts flops{};
  for (int w = 0; w < kVectorWidthCount; ++w) {
    instr[w] = counts.fp_instructions_dp_by_width[w] + counts.fp_instructions_sp_by_width[w];
    flops[w] = counts.flops_dp_by_width[w] + counts.flops_sp_by_width[w];
  }
  uint64_t total_instr = 0, total_flops = 0;
  int top = 0;
  for (int w = 0; w < kVectorWidthCount; ++w) {
    total_instr += instr[w];
    total_flops += flops[w];
    if (flops[w] > flops[top]) top = w;
  }
  if (total_instr == 0) return "no floating-point arithmetic";
  auto name = [](int w) {
    return w == 0 ? std::string("scalar")
                  : std::string(VectorWidthName(static_cast<VectorWidth>(w))) + "-bit";
  };
  double top_share = Percent(flops[top], total_flops);
  if (top_share >= 90.0) {
    if (top == 0) {
      return Format("scalar code: %.3g %% of FP instructions are scalar",
                    Percent(instr[0], total_instr));
    }
    return Format("%s vector code: %.3g %% of FLOPs from %s instructions", name(top).c_str(),
                  top_share, name(top).c_str());
  }
  std::string mix = "mixed:";
  bool first = true;
  for (int w = 0; w < kVectorWidthCount; ++w) {
    if (flops[w] == 0) continue;
    mix += Format("%s %.3g %% of FLOPs %s", first ? "" : ",", Percent(flops[w], total_flops),
                  name(w).c_str());
    first = false;
  }
  return mix;
}

bool ComputeSimCounts(const CallgrindOutput& output, SimCounts* counts, Error* err) {
  SimAnalyzer analyzer;
  return analyzer.Analyze(output, counts, err);
}

}  // namespace rprof
