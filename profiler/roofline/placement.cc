#include "roofline/placement.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace rprof {

namespace {

const char* const kLevels[] = {"l1", "l2", "l3", "dram"};

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The best compute ceiling for the precision at exactly this thread count.
const Ceiling* ComputeRoof(const MachineProfile& profile, const RunShape& shape) {
  const Ceiling* best = nullptr;
  for (const Ceiling& c : profile.ceilings) {
    if (c.kind != "compute" || c.threads != shape.threads) continue;
    if (!shape.precision.empty() && c.precision != shape.precision) continue;
    if (!best || c.value > best->value) best = &c;
  }
  return best;
}

}  // namespace

const Ceiling* BandwidthRoof(const MachineProfile& profile, const std::string& level,
                             int threads) {
  const Ceiling* best = nullptr;
  for (const Ceiling& c : profile.ceilings)
    if (c.kind == "bandwidth" && c.level == level && c.threads == threads &&
        c.pattern != "copy_nt" && (!best || c.value > best->value))
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

// The compute roof of the vector width that did most of the run's FLOPs (flops_<p>_<width>
// metrics, measured), next to the best roof of the run's precision.
void AddIsaRoof(const std::vector<Metric>& metrics, const RunShape& shape,
                const MachineProfile& profile, Placement* p) {
  const char* widths[] = {"scalar", "128", "256", "512"};
  const char* isas[] = {"scalar", "sse", "avx2", "avx512"};
  const char* names[] = {"scalar code", "128-bit vector code", "256-bit vector code",
                         "512-bit vector code"};
  for (const char* precision : {"fp64", "fp32"}) {
    if (!shape.precision.empty() && shape.precision != precision) continue;
    std::string prefix = std::string("flops_") + (precision == std::string("fp64") ? "dp" : "sp");
    for (Source source : CountingSources()) {
      if (!IsMeasured(source)) continue;  // the instruction mix is known only when measured
      double total = 0, best = 0;
      int dominant = -1;
      for (int w = 0; w < 4; ++w) {
        const Metric* m = FindMetric(metrics, prefix + "_" + widths[w], source);
        if (!m || !m->value) continue;
        total += *m->value;
        if (*m->value > best) best = *m->value, dominant = w;
      }
      if (dominant < 0 || total <= 0) continue;
      const Ceiling* roof = nullptr;
      for (const Ceiling& c : profile.ceilings)
        if (c.kind == "compute" && c.threads == shape.threads && c.precision == precision &&
            c.isa == isas[dominant] && (!roof || c.value > roof->value))
          roof = &c;
      if (!roof) return;
      p->isa_roof_ceiling = roof->name;
      p->isa_roof = roof->value;
      char text[240];
      std::snprintf(text, sizeof text, "%s (%.0f %% of FLOPs, %s): the %s %s roof is %.3g GFLOP/s",
                    names[dominant], best / total * 100, std::string(SourceName(source)).c_str(),
                    precision, isas[dominant], roof->value);
      p->isa_note = text;
      if (roof->value < p->peak * 0.99) {
        std::snprintf(text, sizeof text, "; the widest vector code could lift it to %.3g",
                      p->peak);
        p->isa_note += text;
      }
      return;
    }
  }
}

// What a verdict on model bytes alone must say: they are the least the run can move.
constexpr const char* kCompulsoryCaveat =
    "model bytes are a lower bound on traffic; measured traffic unknown: run --counters sim";

// A compute side found from compulsory bytes is not a compute bound: more traffic than the
// model's (cache misses, strided access) lowers the AI and can move the run under a bandwidth
// roof. Says what is known: the side by compulsory AI, and the rate against the compute roof,
// which is an upper bound on the real roof.
std::string CompulsoryComputeVerdict(const Placement& p, const LevelPlacement& binding) {
  char text[320];
  int n = std::snprintf(text, sizeof text, "compute-side by compulsory AI %.3g (%s)", binding.ai,
                        kCompulsoryCaveat);
  if (p.percent_of_roof)
    std::snprintf(text + n, sizeof text - n,
                  ": %.0f %% of the compute roof (%.3g of %.3g GFLOP/s); the real roof may be "
                  "lower",
                  *p.percent_of_roof, *p.achieved, p.attainable);
  else
    std::snprintf(text + n, sizeof text - n, "; no measured rate to compare with the roof");
  return text;
}

}  // namespace

Placement PlaceRun(const std::vector<Metric>& metrics, const RunShape& shape,
                   const MachineProfile& profile) {
  Placement p;
  const Ceiling* roof = ComputeRoof(profile, shape);
  if (!roof) {
    p.reason = "the machine profile has no " + (shape.precision.empty() ? "" : shape.precision + " ") +
               "compute ceiling for " + std::to_string(shape.threads) +
               " thread(s); measure with `rprof machine measure --threads " +
               std::to_string(shape.threads) + "`";
    return p;
  }
  p.compute_ceiling = roof->name;
  p.peak = roof->value;
  AddIsaRoof(metrics, shape, profile, &p);

  const Metric* gflops = PreferredMetric(metrics, "gflops");
  if (gflops) {
    p.achieved = gflops->value;
    p.achieved_source = gflops->source;
  }

  // Pure data movement (copy): no FLOP roofline to stand on; judge it by its bandwidth.
  const Metric* flops_metric = PreferredMetric(metrics, "flops");
  if (flops_metric && *flops_metric->value == 0) {
    for (const char* level : {"dram", "l3", "l2", "l1"}) {
      const Metric* gbs = PreferredMetric(metrics, std::string("gbs_") + level);
      const Ceiling* bw = BandwidthRoof(profile, level, shape.threads);
      if (!gbs || !bw || bw->value <= 0) continue;
      p.placed = true;
      SetBinding(std::string(level) + " bandwidth", bw->name, &p);
      p.percent_of_roof = *gbs->value / bw->value * 100;
      char text[200];
      std::snprintf(text, sizeof text,
                    "no floating-point work: moves %.3g GB/s, %.0f %% of the %s bandwidth roof "
                    "(%.3g GB/s)",
                    *gbs->value, *p.percent_of_roof, Upper(level).c_str(), bw->value);
      p.verdict = text;
      return p;
    }
  }

  const LevelPlacement* binding = nullptr;
  for (Source source : CountingSources()) {
    for (const char* level : kLevels) {
      auto flops = Value(metrics, "flops", source);
      auto bytes = Value(metrics, std::string("bytes_") + level, source);
      const Ceiling* bw = BandwidthRoof(profile, level, shape.threads);
      if (!flops || !bytes || *bytes <= 0 || !bw || bw->value <= 0) continue;
      LevelPlacement lp;
      lp.level = level;
      lp.source = source;
      lp.ai = *flops / *bytes;
      lp.bandwidth = bw->value;
      lp.bandwidth_ceiling = bw->name;
      lp.attainable = std::min(p.peak, lp.ai * lp.bandwidth);
      lp.ridge_ai = p.peak / lp.bandwidth;
      lp.memory_bound = lp.ai < lp.ridge_ai;
      p.levels.push_back(lp);
    }
  }
  // The binding ceiling comes from the best source that has bytes: measured before model.
  for (Source source : CountingSources()) {
    for (const LevelPlacement& lp : p.levels)
      if (lp.source == source && (!binding || lp.attainable < binding->attainable)) binding = &lp;
    if (binding) break;
  }
  if (!binding) {
    bool has_flops = PreferredMetric(metrics, "flops") != nullptr;
    p.reason = has_flops ? "no bytes moved are known for this run (no model, sim or pmu byte "
                           "counts), so it has no arithmetic intensity"
                         : "no FLOP count is known for this run; declare one (--flops) or count "
                           "with --counters sim";
    return p;
  }
  p.placed = true;
  p.attainable = binding->attainable;
  p.bytes_compulsory_only = binding->source == Source::kModel;
  bool compute_bound = !binding->memory_bound;
  if (compute_bound)
    SetBinding("compute", p.compute_ceiling, &p);
  else
    SetBinding(binding->level + " bandwidth", binding->bandwidth_ceiling, &p);
  if (p.achieved && p.attainable > 0) p.percent_of_roof = *p.achieved / p.attainable * 100;
  if (compute_bound && p.bytes_compulsory_only) {
    p.verdict = CompulsoryComputeVerdict(p, *binding);
    return p;
  }
  char text[200];
  if (p.percent_of_roof) {
    std::snprintf(text, sizeof text, "%s-bound at %.0f %% of its roof (%.3g of %.3g GFLOP/s)",
                  compute_bound ? "compute" : (Upper(binding->level) + "-bandwidth").c_str(),
                  *p.percent_of_roof, *p.achieved, p.attainable);
    // Above a bandwidth roof: the bytes did not all come from that level (a working set that
    // fits in a cache, measured with DRAM-level model bytes). Say so rather than leave a puzzle.
    if (*p.percent_of_roof > 105 && !compute_bound) {
      p.verdict = text;
      p.verdict += "; above the " + Upper(binding->level) +
                   " roof: the data is served from a closer cache level than the " +
                   std::string(SourceName(binding->source)) +
                   " bytes assume (--counters sim gives bytes per level)";
      return p;
    }
  } else {
    std::snprintf(text, sizeof text, "%s-bound; no measured rate to compare with the roof",
                  compute_bound ? "compute" : (Upper(binding->level) + "-bandwidth").c_str());
  }
  p.verdict = text;
  // Memory-bound on compulsory bytes stays memory-bound with more traffic (the AI only falls),
  // but the roof it is held against may be lower still.
  if (p.bytes_compulsory_only) p.verdict += "; " + std::string(kCompulsoryCaveat);
  return p;
}

}  // namespace rprof
