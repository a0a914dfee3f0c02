#include "roofline/placement.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "core/memory_level.h"
#include "core/target_kind.h"
#include "core/text.h"
#include "functions/hot_functions.h"
#include "functions/hot_lines.h"
#include "functions/sampled_time.h"
#include "machine/profile_trust.h"
#include "roofline/bandwidth_roof.h"
#include "roofline/compute_roof.h"
#include "roofline/time_check.h"

namespace rprof {

namespace {

// The thread counts the profile has compute ceilings for, ascending.
std::vector<int> ProfileThreadCounts(const MachineProfile& profile) {
  std::vector<int> counts;
  for (const Ceiling& c : profile.ceilings)
    if (c.kind == "compute" && std::find(counts.begin(), counts.end(), c.threads) == counts.end())
      counts.push_back(c.threads);
  std::sort(counts.begin(), counts.end());
  return counts;
}

std::string ThreadsText(int threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// The precision from the measured split of the FLOPs; false when no source has both counts.
bool PrecisionFromFlops(const std::vector<Metric>& metrics, RunShape* shape) {
  for (Source source : CountingSources()) {
    const Metric* dp = FindMetric(metrics, "flops_dp", source);
    const Metric* sp = FindMetric(metrics, "flops_sp", source);
    if (!dp || !sp || !dp->value || !sp->value || *dp->value + *sp->value <= 0) continue;
    double share = *dp->value / (*dp->value + *sp->value);
    std::string from = std::string(SourceName(source));
    char text[160];
    // Under 1 % of the FLOPs in one precision (a conversion, a library call) is not a mix.
    if (share >= 0.99 || share <= 0.01) {
      shape->precision = share >= 0.99 ? "fp64" : "fp32";
      std::snprintf(text, sizeof text, "%s (%.4g %% of FLOPs, %s)", shape->precision.c_str(),
                    (share >= 0.99 ? share : 1 - share) * 100, from.c_str());
    } else {
      shape->precision = "mixed";
      shape->fp64_share = share;
      std::snprintf(text, sizeof text, "mixed (%.3g %% of FLOPs fp64, %.3g %% fp32, %s)",
                    share * 100, (1 - share) * 100, from.c_str());
    }
    shape->precision_note = text;
    return true;
  }
  return false;
}

}  // namespace

RunShape RunShapeOf(const RunRecord& run, const MachineProfile& profile) {
  const TargetKindInfo& kind = TargetKindTraits(run.target_kind);
  RunShape shape;
  if (!run.precision.empty()) {
    shape.precision = run.precision;
    shape.precision_note =
        run.precision + (kind.declarer == WorkDeclarer::kKernelModel ? " (declared by the kernel)"
                                                                     : " (declared: --precision)");
  } else if (!PrecisionFromFlops(run.metrics, &shape)) {
    shape.precision_note = "not known (no per-precision FLOP count): the best of fp64 and fp32";
  }

  if (kind.built_by_rprof) shape.sim_build_isa = "avx2";
  shape.sim_absent = SourceWasAbsent(run, Source::kSim);
  shape.rank_of_job = run.job.has_value();
  shape.python = IsPythonRun(run);
  if (!kind.whole_process) {
    shape.threads_note = "1 thread (the kernel has no threads parameter)";
    for (const auto& [key, value] : run.params)
      if (key == "threads") {
        shape.threads = std::max(1, std::atoi(value.c_str()));
        shape.threads_note = ThreadsText(shape.threads) + " (the kernel's threads parameter)";
      }
    return shape;
  }
  const Metric* declared = FindMetric(run.metrics, "threads", Source::kClock);
  const Metric* cpu = FindMetric(run.metrics, "cpu_time_s", Source::kClock);
  const Metric* wall = FindMetric(run.metrics, "time_s", Source::kClock);
  int wanted = 1;
  char text[160];
  if (declared && declared->value && *declared->value >= 1) {
    wanted = static_cast<int>(std::lround(*declared->value));
    shape.threads_note = ThreadsText(wanted) + " (--threads)";
  } else if (cpu && cpu->value && wall && wall->value && *wall->value > 0) {
    double ratio = *cpu->value / *wall->value;
    wanted = std::max(1, static_cast<int>(std::lround(ratio)));
    std::snprintf(text, sizeof text, "%s (CPU time / wall time = %.2f)",
                  ThreadsText(wanted).c_str(), ratio);
    shape.threads_note = text;
  } else {
    shape.threads_note = "1 thread (assumed: no CPU time measured; --threads N says otherwise)";
  }
  shape.threads = wanted;
  // Never silently another thread count's roof: the nearest measured one (the lower of two
  // equally near), said, with the command that would measure the run's own.
  std::vector<int> counts = ProfileThreadCounts(profile);
  if (!counts.empty() && std::find(counts.begin(), counts.end(), wanted) == counts.end()) {
    int nearest = counts.front();
    for (int c : counts)
      if (std::abs(c - wanted) < std::abs(nearest - wanted)) nearest = c;
    shape.threads = nearest;
    shape.threads_note +=
        "; placed against the " + std::to_string(nearest) +
        "-thread roof, the nearest the profile has (`rprof machine measure --threads " +
        std::to_string(wanted) + "` measures " + std::to_string(wanted) + ")";
  }
  return shape;
}

ByteConvention ConventionOf(Source source) {
  // The model counts each input read once and each output written once; sim simulates the
  // caches (write misses allocate, dirty lines are written back) and PMU counters count lines.
  return source == Source::kModel ? ByteConvention::kCompulsory : ByteConvention::kTraffic;
}

const Ceiling* BandwidthRoof(const MachineProfile& profile, const std::string& level, int threads,
                             ByteConvention convention) {
  const Ceiling* best = nullptr;
  for (const Ceiling& c : profile.ceilings)
    if (c.kind == "bandwidth" && c.level == level && c.threads == threads &&
        c.pattern != "copy_nt" && !IsScalarBandwidthCeiling(c) &&
        (!best || CeilingValue(c, convention) > CeilingValue(*best, convention)))
      best = &c;
  return best;
}

namespace {

std::optional<double> Value(const std::vector<Metric>& metrics, const std::string& name,
                            Source source) {
  const Metric* m = FindMetric(metrics, name, source);
  return m ? m->value : std::nullopt;
}

}  // namespace

namespace {

// The binding ceiling: its kind ("dram bandwidth", "compute") and, for people, with its name.
void SetBinding(const std::string& bound, const std::string& ceiling, Placement* p) {
  p->bound = bound;
  p->binding = bound + " (" + ceiling + ")";
}

// What a verdict on model bytes alone must say: they are the least the run can move. Sim is
// advised only where it was not asked for already: a run sim gave nothing says so instead.
std::string CompulsoryCaveat(const RunShape& shape) {
  return std::string("model bytes are a lower bound on traffic; measured traffic unknown") +
         (shape.sim_absent    ? " (" + std::string(kSimGaveNothing) + ")"
          : shape.rank_of_job ? "; " + std::string(kSimOutsideTheJob)
                              : ": run --counters sim");
}

// A compute side found from compulsory bytes is not a compute bound: more traffic than the
// model's (cache misses, strided access) lowers the AI and can move the run under a bandwidth
// roof. Says what is known: the side by compulsory AI, and the rate against the compute roof,
// which is an upper bound on the real roof.
std::string CompulsoryComputeVerdict(const Placement& p, const LevelPlacement& binding,
                                     const RunShape& shape) {
  char text[400];
  int n = std::snprintf(text, sizeof text, "compute-side by compulsory AI %.3g (%s)", binding.ai,
                        CompulsoryCaveat(shape).c_str());
  if (p.percent_of_roof)
    std::snprintf(text + n, sizeof text - n,
                  ": %.0f %% of the compute roof (%.3g of %.3g GFLOP/s); the real roof may be "
                  "lower",
                  *p.percent_of_roof, *p.achieved, p.attainable);
  else
    std::snprintf(text + n, sizeof text - n, "; no measured rate to compare with the roof");
  return text;
}

// A compute bound names the code's own roof: "compute-bound by scalar code at 83 % of the fp64
// scalar roof (9.8 of 11.8 GFLOP/s); AVX2 would allow 46.9". Where the instruction mix is not
// measured the roof is the widest of the run's precision, and the verdict says it was assumed.
std::string ComputeBoundVerdict(const Placement& p, const ComputeRoofChoice& roof) {
  std::string rate = p.percent_of_roof ? Format("%.3g of %.3g GFLOP/s", *p.achieved, p.attainable)
                                       : "no measured rate to compare with the roof";
  std::string percent = p.percent_of_roof ? Format("%.0f %%", *p.percent_of_roof) : "";
  if (!roof.isa_measured) {
    std::string verdict = p.percent_of_roof
                              ? "compute-bound at " + percent + " of its roof (" + rate + ")"
                              : "compute-bound; " + rate;
    return verdict + "; roof assumed: " + roof.widest_name +
           ", the widest (the instruction mix is not measured)";
  }
  std::string of_roof = roof.mix.size() == 1
                            ? "the " + roof.mix.front().precision + " " +
                                  IsaLabel(roof.mix.front().roof_isa) + " roof"
                            : "its roof weighted by FLOP share (" + roof.name + ")";
  std::string verdict = "compute-bound by " + p.code;
  verdict += p.percent_of_roof ? " at " + percent + " of " + of_roof + " (" + rate + ")"
                               : " against " + of_roof + "; " + rate;
  if (roof.widest > roof.value * 1.01)
    verdict += Format(
        "; %s would allow %.3g",
        roof.widest_isa.empty() ? "the widest vector code" : IsaLabel(roof.widest_isa).c_str(),
        roof.widest);
  return verdict;
}

std::string Bytes(double bytes) {
  char text[32];
  if (bytes >= 1 << 20)
    std::snprintf(text, sizeof text, "%.3g MiB", bytes / (1 << 20));
  else
    std::snprintf(text, sizeof text, "%.3g KiB", bytes / 1024);
  return text;
}

// Why a run stands above its roof (percent > 100), in words; "" at or under 100 %. `level` is
// the binding memory level ("" when compute binds), `ceiling` the roof it was held against.
// First a working set that a closer level holds (the model's compulsory bytes of one call: each
// input and output once, i.e. the data the call touches); else the ceiling's own spread; else
// a ceiling that the run beat, which the profile measured too low.
std::string AboveRoofNote(const std::vector<Metric>& metrics, const MachineProfile& profile,
                          const std::string& level, const std::string& ceiling_name,
                          double spread_pct, int threads, double percent) {
  if (percent <= 100) return "";
  char text[400];
  auto rank = [](const std::string& name) {
    std::optional<MemoryLevel> parsed = ParseMemoryLevel(name);
    return parsed ? static_cast<int>(*parsed) : static_cast<int>(kMemoryLevels.size());
  };
  const Metric* footprint = FindMetric(metrics, "bytes_dram", Source::kModel);
  if (!level.empty() && footprint && footprint->value && *footprint->value > 0) {
    double ws = *footprint->value;
    for (const LevelSummary& l : profile.levels) {
      if (rank(l.level) >= rank(level)) continue;
      uint64_t size = l.effective_size > 0 ? l.effective_size : l.reported_size;
      // L1 and L2 are per core: threads each bring their own.
      uint64_t held = (l.level == "l1" || l.level == "l2") ? size * std::max(1, threads) : size;
      if (size == 0 || ws > static_cast<double>(held)) continue;
      std::snprintf(text, sizeof text,
                    "%.0f %% of the roof: the working set (%s) fits in %s (%s%s): held against "
                    "%s, its bytes came from a cache",
                    percent, Bytes(ws).c_str(), Upper(l.level).c_str(),
                    Bytes(static_cast<double>(held)).c_str(),
                    l.effective_size > 0 ? " measured" : " reported", Upper(level).c_str());
      return text;
    }
  }
  if (percent <= 100 + spread_pct) {
    std::snprintf(text, sizeof text,
                  "%.0f %% of the roof: within the spread of the %s ceiling over its repetitions "
                  "(%.3g %%); the roof is its best repetition, not a hard bound",
                  percent, ceiling_name.c_str(), spread_pct);
    return text;
  }
  std::snprintf(text, sizeof text,
                "%.0f %% of the roof: faster than the %s ceiling by more than its spread "
                "(%.3g %%): the profile measured it low (under load, or by a kernel that streams "
                "worse than this run); measure again on an idle machine (`rprof machine measure`)",
                percent, ceiling_name.c_str(), spread_pct);
  return text;
}

const Ceiling* FindCeiling(const MachineProfile& profile, const std::string& name, int threads) {
  for (const Ceiling& c : profile.ceilings)
    if (c.name == name && c.threads == threads) return &c;
  return nullptr;
}

// The run on its roofs alone: memory or compute, whatever the instructions around the FLOPs.
Placement PlaceOnRoofs(const std::vector<Metric>& metrics, const RunShape& shape,
                       const MachineProfile& profile) {
  Placement p;
  p.precision = shape.precision;
  p.precision_note = shape.precision_note;
  p.threads = shape.threads;
  p.threads_note = shape.threads_note;
  ComputeRoofChoice roof;
  std::string lacking;
  if (!ChooseComputeRoof(metrics, shape, profile, &roof, &lacking)) {
    p.reason = "the machine profile has no " + (lacking.empty() ? "" : lacking + " ") +
               "compute ceiling for " + std::to_string(shape.threads) +
               " thread(s); measure with `rprof machine measure --threads " +
               std::to_string(shape.threads) + "`";
    return p;
  }
  p.compute_ceiling = roof.name;
  p.peak = roof.value;
  if (!roof.note.empty()) p.precision_note += ": " + roof.note;
  p.isa_measured = roof.isa_measured;
  p.isa_note = roof.isa_note;
  if (roof.isa_measured) {
    p.isa_roof_ceiling = roof.name;
    p.isa_roof = roof.value;
    p.code = CodeDescription(roof);
  }
  p.widest_ceiling = roof.widest_name;
  p.widest_roof = roof.widest;

  const Metric* gflops = PreferredMetric(metrics, "gflops");
  if (gflops) {
    p.achieved = gflops->value;
    p.achieved_source = gflops->source;
  }

  // Pure data movement (copy): no FLOP roofline to stand on; judge it by its bandwidth, at the
  // level its bytes came from: of the best source's levels, the one it drives closest to that
  // level's roof (a copy inside L3 moves bytes at every level, but L3's roof is what binds it),
  // never DRAM by default.
  const Metric* flops_metric = PreferredMetric(metrics, "flops");
  if (flops_metric && *flops_metric->value == 0) {
    const Metric* best_gbs = nullptr;
    const Ceiling* best_bw = nullptr;
    double best_fraction = -1;
    std::string best_level;
    for (Source source : CountingSources()) {
      for (const MemoryLevelInfo& info : kMemoryLevels) {
        const std::string level(info.name);
        const Metric* gbs = FindMetric(metrics, std::string("gbs_") + level, source);
        if (!gbs || !gbs->value) continue;
        // The rate against the ceiling of its own bytes' convention.
        ByteConvention convention = ConventionOf(source);
        const Ceiling* bw = BandwidthRoof(profile, level, shape.threads, convention);
        if (!bw || CeilingValue(*bw, convention) <= 0) continue;
        double fraction = *gbs->value / CeilingValue(*bw, convention);
        if (fraction > best_fraction)
          best_fraction = fraction, best_gbs = gbs, best_bw = bw, best_level = level;
      }
      if (best_gbs) break;
    }
    if (best_gbs) {
      ByteConvention convention = ConventionOf(best_gbs->source);
      double roof_gbs = CeilingValue(*best_bw, convention);
      p.placed = true;
      p.binding_level = best_level;
      p.binding_source = best_gbs->source;
      p.bytes_compulsory_only = best_gbs->source == Source::kModel;
      SetBinding(best_level + " bandwidth", best_bw->name, &p);
      p.percent_of_roof = *best_gbs->value / roof_gbs * 100;
      p.note = AboveRoofNote(metrics, profile, best_level, best_bw->name, best_bw->spread_pct,
                             shape.threads, *p.percent_of_roof);
      p.verdict = Format(
          "no floating-point work: moves %.3g GB/s (%s bytes), %.0f %% of the %s bandwidth roof "
          "(%.3g GB/s)",
          *best_gbs->value, std::string(SourceName(best_gbs->source)).c_str(), *p.percent_of_roof,
          Upper(best_level).c_str(), roof_gbs);
      return p;
    }
  }

  const LevelPlacement* binding = nullptr;
  for (Source source : CountingSources()) {
    for (const MemoryLevelInfo& info : kMemoryLevels) {
      const std::string level(info.name);
      auto flops = Value(metrics, "flops", source);
      auto bytes = Value(metrics, std::string("bytes_") + level, source);
      // Like with like: the source's bytes against the ceiling counted the same way, and the
      // code against its own width's roof (bandwidth_roof.h: scalar code, scalar loads).
      ByteConvention convention = ConventionOf(source);
      const Ceiling* bw = CodeBandwidthRoof(profile, level, shape.threads, convention, roof);
      if (!flops || !bytes || *bytes <= 0 || !bw || CeilingValue(*bw, convention) <= 0) continue;
      LevelPlacement lp;
      lp.level = level;
      lp.source = source;
      lp.convention = convention;
      lp.ai = *flops / *bytes;
      lp.bandwidth = CeilingValue(*bw, convention);
      lp.bandwidth_ceiling = bw->name;
      lp.attainable = std::min(p.peak, lp.ai * lp.bandwidth);
      lp.ridge_ai = p.peak / lp.bandwidth;
      lp.memory_bound = lp.ai < lp.ridge_ai;
      p.levels.push_back(lp);
    }
  }
  // The binding ceiling comes from the best source that has bytes: measured before model.
  // Compute-bound, every level attains the compute roof: the binding level is then the one
  // whose memory roof is nearest (the least AI x bandwidth), the one the run would meet first.
  for (Source source : CountingSources()) {
    for (const LevelPlacement& lp : p.levels)
      if (lp.source == source && (!binding || lp.attainable < binding->attainable ||
                                  (lp.attainable == binding->attainable &&
                                   lp.ai * lp.bandwidth < binding->ai * binding->bandwidth)))
        binding = &lp;
    if (binding) break;
  }
  if (!binding) {
    bool has_flops = PreferredMetric(metrics, "flops") != nullptr;
    p.reason = has_flops ? "no bytes moved are known for this run (no model, sim or pmu byte "
                           "counts), so it has no arithmetic intensity"
               : shape.sim_absent ? "no FLOP count is known for this run; declare one (--flops): " +
                                        std::string(kSimGaveNothing)
               : shape.rank_of_job
                   ? "no FLOP count is known for this run; declare one (--flops), "
                     "or " +
                         std::string(kSimOutsideTheJob)
                   : "no FLOP count is known for this run; declare one (--flops) or "
                     "count with --counters sim";
    return p;
  }
  p.placed = true;
  p.binding_level = binding->level;
  p.binding_source = binding->source;
  p.attainable = binding->attainable;
  p.bytes_compulsory_only = binding->source == Source::kModel;
  bool compute_bound = !binding->memory_bound;
  if (compute_bound)
    SetBinding("compute", p.compute_ceiling, &p);
  else
    SetBinding(binding->level + " bandwidth", binding->bandwidth_ceiling, &p);
  if (p.achieved && p.attainable > 0) {
    p.percent_of_roof = *p.achieved / p.attainable * 100;
    const std::string& ceiling = compute_bound ? p.compute_ceiling : binding->bandwidth_ceiling;
    const Ceiling* held = FindCeiling(profile, ceiling, shape.threads);
    p.note = AboveRoofNote(metrics, profile, compute_bound ? "" : binding->level, ceiling,
                           held ? held->spread_pct : 0, shape.threads, *p.percent_of_roof);
  }
  if (compute_bound && p.bytes_compulsory_only) {
    p.verdict = CompulsoryComputeVerdict(p, *binding, shape);
    return p;
  }
  if (compute_bound) {
    p.verdict = ComputeBoundVerdict(p, roof);
    return p;
  }
  char text[200];
  if (p.percent_of_roof) {
    std::snprintf(text, sizeof text, "%s-bound at %.0f %% of its roof%s (%.3g of %.3g GFLOP/s)",
                  compute_bound ? "compute" : (Upper(binding->level) + "-bandwidth").c_str(),
                  *p.percent_of_roof,
                  ScalarRoofWords(profile, binding->bandwidth_ceiling, shape.threads).c_str(),
                  *p.achieved, p.attainable);
    // Above a bandwidth roof: the bytes did not all come from that level (a working set that
    // fits in a cache, measured with DRAM-level model bytes). Say so rather than leave a puzzle.
    if (*p.percent_of_roof > 105 && !compute_bound) {
      p.verdict = text;
      p.verdict +=
          "; above the " + Upper(binding->level) +
          " roof: the data is served from a closer cache level than the " +
          std::string(SourceName(binding->source)) + " bytes assume" +
          (shape.sim_absent || shape.rank_of_job ? "" : " (--counters sim gives bytes per level)");
      return p;
    }
  } else {
    std::snprintf(text, sizeof text, "%s-bound; no measured rate to compare with the roof",
                  compute_bound ? "compute" : (Upper(binding->level) + "-bandwidth").c_str());
  }
  p.verdict = text;
  // Memory-bound on compulsory bytes stays memory-bound with more traffic (the AI only falls),
  // but the roof it is held against may be lower still.
  if (p.bytes_compulsory_only) p.verdict += "; " + CompulsoryCaveat(shape);
  return p;
}

// Instructions per FLOP, from the first source that counts both (sim, else pmu).
std::optional<Placement::Overhead> InstructionOverhead(const std::vector<Metric>& metrics) {
  for (Source source : CountingSources()) {
    if (source == Source::kModel) continue;
    auto flops = Value(metrics, "flops", source);
    auto instructions = Value(metrics, "instructions", source);
    if (!instructions && source == Source::kPmu)
      instructions = Value(metrics, "PAPI_TOT_INS", source);
    if (!flops || !instructions || *flops <= 0) continue;
    return Placement::Overhead{*instructions / *flops, source};
  }
  return std::nullopt;
}

// Leaves `p` unplaced with `reason`: no bound, rate or verdict, the shape and roofs kept.
void NotPlaced(const std::string& reason, Placement* p) {
  p->placed = false;
  p->reason = reason;
  p->achieved.reset();
  p->percent_of_roof.reset();
  p->attainable = 0;
  p->levels.clear();
  p->binding.clear();
  p->bound.clear();
  p->binding_level.clear();
  p->verdict.clear();
  p->note.clear();
  p->time_contradiction.clear();
  p->bytes_compulsory_only = false;
  p->overhead.reset();
}

}  // namespace

Placement PlaceRun(const std::vector<Metric>& metrics, const RunShape& shape,
                   const MachineProfile& profile) {
  Placement p = PlaceOnRoofs(metrics, shape, profile);
  PlaceByTime(metrics, profile, &p);
  std::optional<Placement::Overhead> overhead = InstructionOverhead(metrics);
  if (!p.placed || !overhead || overhead->instructions_per_flop <= kOverheadInstructionsPerFlop)
    return p;
  // Neither roof is what holds such code back: say so first, the roofs' verdict after it.
  p.overhead = overhead;
  p.verdict =
      Format(
          "overhead-bound: %.0f instructions per FLOP (%s; compiled loops need a "
          "few: an interpreter, or scalar bookkeeping?); on the roofs: ",
          overhead->instructions_per_flop, std::string(SourceName(overhead->source)).c_str()) +
      p.verdict;
  return p;
}

std::string BoundText(const Placement& p) {
  std::string bound = BoundText(p.bound, p.bytes_compulsory_only);
  if (!p.overhead) return bound;
  return Format("overhead (%.0f instructions/FLOP)", p.overhead->instructions_per_flop) +
         (bound.empty() ? "" : ", " + bound);
}

std::string BoundText(const std::string& bound, bool bytes_compulsory_only) {
  if (bound.empty() || !bytes_compulsory_only) return bound;
  // Compulsory bytes give an upper bound on the AI: the compute side they find is only where
  // the run would stand if it moved no more than the model says.
  if (bound == "compute") return "≥ compute side (model bytes only)";
  return bound + " (model bytes only)";
}

std::vector<std::string> RegionNames(const std::vector<Metric>& metrics) {
  std::set<std::string> names;
  // A hot function's lines are shown under it, never placed on their own (functions/hot_lines.h).
  for (const Metric& m : metrics)
    if (!m.region.empty() && !IsLineRegion(m.region)) names.insert(m.region);
  return {names.begin(), names.end()};
}

Placement PlaceRegion(const std::vector<Metric>& metrics, const std::string& region,
                      const RunShape& shape, const MachineProfile& profile) {
  // The region's metrics as a whole run's: PlaceRun then reads them as it reads a run's.
  std::vector<Metric> own;
  RunShape region_shape = shape;
  for (const Metric& m : metrics) {
    if (m.region != region) continue;
    own.push_back(m);
    own.back().region.clear();
    // Work of several threads side by side over one wall time: their roof, not one thread's.
    // (A mean over executions may be fractional: the nearest whole count.) The marker library
    // counts the threads that entered the region (clock); sim, those that did its work.
    if (m.name != "threads" || !m.value) continue;
    long count = std::lround(*m.value);
    bool more = count > region_shape.threads;
    // Sim's count says who did the work: it names an equal count too.
    bool said = m.source == Source::kSim && count == region_shape.threads;
    if ((m.source == Source::kClock || m.source == Source::kSim) && (more || said)) {
      region_shape.threads = static_cast<int>(count);
      region_shape.threads_note =
          ThreadsText(region_shape.threads) +
          (m.source == Source::kSim ? " (did the region's work: sim)" : " (entered the region)");
    }
  }
  // The region's own precision, where its FLOPs are split by precision (measured, or declared
  // with rprof_region_declare_fp64/fp32), before the run's: a region of fp64 work in a program
  // that also computes in fp32 is held against fp64's roofs.
  RunShape own_precision;
  if (PrecisionFromFlops(own, &own_precision)) {
    region_shape.precision = own_precision.precision;
    region_shape.fp64_share = own_precision.fp64_share;
    region_shape.precision_note = own_precision.precision_note + ", the region's own";
  }
  Placement p = PlaceRun(own, region_shape, profile);
  if (IsFunctionRegion(region)) {
    // A hot function's time is its samples: too few of them (or none) are no time, so no rate
    // and no point on the roofline, whatever its FLOPs and bytes (sampled_time.h).
    const Metric* time = FindMetric(own, "time_s", Source::kClock);
    if (time && !time->value && !p.compute_ceiling.empty()) {
      NotPlaced(time->note.substr(0, time->note.find(" (")) +
                    "; a longer execution, or -r N executions, gives more samples",
                &p);
    } else if (!p.placed && !p.compute_ceiling.empty() && !PreferredMetric(own, "flops")) {
      // A hot function with its sampled time alone: nothing counted its work (no marker
      // declares a function's).
      p.reason = kTimeProfileOnly;
    }
    return p;
  }
  // A marker region is placed by its FLOPs: counted (sim, pmu: a measured zero is data movement,
  // placed by its bandwidth) or declared. Without any, or with only a declared zero, its bytes
  // over its time would read as a bandwidth bound at 0 % of the roof: it is not placed, and the
  // reason says how to count them.
  bool flops_counted = false;
  for (const Metric& m : own)
    if (m.name == "flops" && m.value && (*m.value > 0 || IsMeasured(m.source)))
      flops_counted = true;
  if (!flops_counted && !p.compute_ceiling.empty()) {
    const std::string declare =
        "no FLOPs counted: no FLOP count is known for this region; declare its work with " +
        std::string(shape.python ? "rprof.region(\"" + region + "\", flops=...)"
                                 : "rprof_region_declare(\"" + region +
                                       "\", flops, bytes) (rprof/marker.h)");
    NotPlaced(shape.sim_absent    ? declare + ": " + kSimGaveNothing
              : shape.rank_of_job ? declare + ", or " + kSimOutsideTheJob
                                  : declare + ", or count with --counters sim",
              &p);
  }
  return p;
}

}  // namespace rprof
