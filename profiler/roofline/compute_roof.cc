#include "roofline/compute_roof.h"

#include <algorithm>
#include <cstdio>

#include "core/text.h"
#include "functions/replay_coverage.h"
#include "machine/profile_trust.h"
#include "roofline/placement.h"

namespace rprof {

namespace {

// The metrics' vector widths (flops_dp_<width>) and the ISA whose ceilings run that width.
const char* const kWidths[] = {"scalar", "128", "256", "512"};
const char* const kIsas[] = {"scalar", "sse", "avx2", "avx512"};

// Under 1 % of the FLOPs in one ISA (a conversion, a library call) is not a part of the mix,
// as under 1 % of one precision is no mixed precision.
constexpr double kLeastShare = 0.01;

// The best compute ceiling of the precision ("": of any) and ISA ("": of any) at exactly this
// thread count. A mul+add above its FMA is noise (ImplausibleCeiling), never the roof.
const Ceiling* BestCompute(const MachineProfile& profile, const std::string& precision,
                           const std::string& isa, int threads) {
  const Ceiling* best = nullptr;
  for (const Ceiling& c : profile.ceilings) {
    if (c.kind != "compute" || c.threads != threads || ImplausibleCeiling(profile, c)) continue;
    if (!precision.empty() && c.precision != precision) continue;
    if (!isa.empty() && c.isa != isa) continue;
    if (!best || c.value > best->value) best = &c;
  }
  return best;
}

// The best roof of the shape's precision, whatever the code: mixed precision gets the
// time-weighted harmonic combination of the two precisions' best roofs by FLOP share, because
// at best a run spends share / peak seconds per FLOP of each: 1 / (s64 / P64 + s32 / P32).
bool WidestRoof(const MachineProfile& profile, const RunShape& shape, ComputeRoofChoice* out,
                std::string* lacking) {
  if (shape.precision != "mixed") {
    const Ceiling* best = BestCompute(profile, shape.precision, "", shape.threads);
    if (!best) {
      *lacking = shape.precision;
      return false;
    }
    out->widest_name = best->name;
    out->widest = best->value;
    out->widest_isa = best->isa;
    return true;
  }
  const Ceiling* fp64 = BestCompute(profile, "fp64", "", shape.threads);
  const Ceiling* fp32 = BestCompute(profile, "fp32", "", shape.threads);
  if (!fp64 || !fp32 || fp64->value <= 0 || fp32->value <= 0) {
    *lacking = !fp64 || fp64->value <= 0 ? "fp64" : "fp32";
    return false;
  }
  double s64 = std::clamp(shape.fp64_share, 0.0, 1.0);
  out->widest_name = fp64->name + "+" + fp32->name;
  out->widest = 1 / (s64 / fp64->value + (1 - s64) / fp32->value);
  out->widest_isa = fp64->isa == fp32->isa ? fp64->isa : "";
  out->note = Format(
      "a roof of both precisions, weighted by FLOP share: %s %.3g and %s %.3g give %.3g GFLOP/s",
      fp64->name.c_str(), fp64->value, fp32->name.c_str(), fp32->value, out->widest);
  return true;
}

// The run's FLOPs by (precision, ISA), from the first measured source that splits them by
// vector width (flops_dp_scalar … flops_sp_512), in the shape's precision(s). False when none
// does: a model declares no instruction mix, and many PMUs count no FLOPs by width.
bool ReplayRanOtherCode(const std::vector<Metric>& metrics) {
  const Metric* missing = FindMetric(metrics, kReplayMissingShare, Source::kSim);
  return missing && missing->value && *missing->value > 0;
}

bool MeasuredMix(const std::vector<Metric>& metrics, const RunShape& shape,
                 std::vector<IsaShare>* mix, Source* from) {
  for (Source source : CountingSources()) {
    if (!IsMeasured(source)) continue;
    // A replay that ran other code than the timed run (a library dispatching on valgrind's
    // CPUID) split other code's FLOPs: not the timed code's widths.
    if (source == Source::kSim && ReplayRanOtherCode(metrics)) continue;
    std::vector<IsaShare> parts;
    double total = 0;
    for (const char* precision : {"fp64", "fp32"}) {
      if ((shape.precision == "fp64" || shape.precision == "fp32") && shape.precision != precision)
        continue;
      std::string prefix =
          std::string("flops_") + (std::string(precision) == "fp64" ? "dp" : "sp") + "_";
      for (int w = 0; w < 4; ++w) {
        const Metric* m = FindMetric(metrics, prefix + kWidths[w], source);
        if (!m || !m->value || *m->value <= 0) continue;
        total += *m->value;
        parts.push_back({precision, kIsas[w], *m->value, kIsas[w], 0, ""});
      }
    }
    if (total <= 0) continue;
    double kept = 0;
    for (IsaShare& s : parts) s.share /= total;
    parts.erase(std::remove_if(parts.begin(), parts.end(),
                               [](const IsaShare& s) { return s.share < kLeastShare; }),
                parts.end());
    for (const IsaShare& s : parts) kept += s.share;
    for (IsaShare& s : parts) s.share /= kept;
    std::stable_sort(parts.begin(), parts.end(),
                     [](const IsaShare& a, const IsaShare& b) { return a.share > b.share; });
    *mix = std::move(parts);
    *from = source;
    return true;
  }
  return false;
}

std::string Percent(double share) { return Format("%.0f %%", share * 100); }

}  // namespace

std::string IsaLabel(const std::string& isa) {
  if (isa == "sse") return "SSE";
  if (isa == "avx2") return "AVX2";
  if (isa == "avx512") return "AVX-512";
  return isa;
}

std::string CodeDescription(const ComputeRoofChoice& roof) {
  if (!roof.isa_measured || roof.mix.empty()) return "code of an unmeasured instruction mix";
  bool one_isa = std::all_of(roof.mix.begin(), roof.mix.end(),
                             [&](const IsaShare& s) { return s.isa == roof.mix.front().isa; });
  if (one_isa) return IsaLabel(roof.mix.front().isa) + " code";
  std::string parts;
  // The same ISA in both precisions is one part of the code as people read it.
  std::vector<std::pair<std::string, double>> by_isa;
  for (const IsaShare& s : roof.mix) {
    auto it =
        std::find_if(by_isa.begin(), by_isa.end(), [&](const auto& p) { return p.first == s.isa; });
    if (it == by_isa.end())
      by_isa.push_back({s.isa, s.share});
    else
      it->second += s.share;
  }
  for (const auto& [isa, share] : by_isa)
    parts += (parts.empty() ? "" : ", ") + Percent(share) + " " + IsaLabel(isa);
  return "mixed code (" + parts + ")";
}

bool ChooseComputeRoof(const std::vector<Metric>& metrics, const RunShape& shape,
                       const MachineProfile& profile, ComputeRoofChoice* out,
                       std::string* lacking) {
  *out = ComputeRoofChoice();
  if (!WidestRoof(profile, shape, out, lacking)) return false;
  out->name = out->widest_name;
  out->value = out->widest;
  std::string threads = Format("%d thread%s", shape.threads, shape.threads == 1 ? "" : "s");
  std::string assumed =
      Format("the widest roof assumed, %s %.3g GFLOP/s", out->widest_name.c_str(), out->widest);

  std::vector<IsaShare> mix;
  Source from = Source::kSim;
  if (!MeasuredMix(metrics, shape, &mix, &from)) {
    if (ReplayRanOtherCode(metrics))
      out->isa_note =
          std::string("not measured: sim's replay ran other code than the timed run (") +
          kReplayMissingShare + " names the natively hot functions it never ran): " + assumed;
    else
      out->isa_note = std::string("not measured (no source split the FLOPs by vector width; ") +
                      (shape.sim_absent    ? "sim, which does, gave no counts for this run"
                       : shape.rank_of_job ? "sim does, for one process without the launcher"
                                           : "--counters sim does") +
                      "): " + assumed;
    return true;
  }
  std::string source(SourceName(from));
  ComputeRoofChoice measured = *out;
  measured.mix = mix;
  measured.mix_source = from;
  measured.isa_measured = true;
  double seconds_per_flop = 0;
  std::string names, parts;
  // Sim replayed another build than the one timed (a built-in kernel: AVX2 under valgrind,
  // -march=native when timed): its scalar code is scalar in both, but its vectors may be wider
  // in the timed build, so the vector shares are held against the widest vector roof, said.
  std::string other_build;
  if (from == Source::kSim && !shape.sim_build_isa.empty()) {
    for (IsaShare& s : measured.mix) {
      if (s.isa == "scalar") continue;
      const Ceiling* widest = BestCompute(profile, s.precision, "", shape.threads);
      if (widest && widest->isa != s.isa && widest->isa != "scalar") {
        s.roof_isa = widest->isa;
        other_build = Format(
            "; sim counted the %s build of the kernel, the timed build may use "
            "wider vectors: its vector code is held against the %s roof",
            IsaLabel(shape.sim_build_isa).c_str(), IsaLabel(widest->isa).c_str());
      }
    }
  }
  for (IsaShare& s : measured.mix) {
    const Ceiling* c = BestCompute(profile, s.precision, s.roof_isa, shape.threads);
    if (!c || c->value <= 0) {
      // A roof the profile lacks is not made up: the widest is assumed, and said.
      out->isa_note =
          Format("%s (%s of FLOPs, %s), but the profile has no %s %s ceiling at %s: ",
                 CodeDescription(measured).c_str(), Percent(s.share).c_str(), source.c_str(),
                 s.precision.c_str(), IsaLabel(s.roof_isa).c_str(), threads.c_str()) +
          assumed;
      return true;
    }
    s.roof = c->value;
    s.ceiling = c->name;
    seconds_per_flop += s.share / c->value;
    names += (names.empty() ? "" : "+") + c->name;
    parts += Format("%s%s %.3g (%s)", parts.empty() ? "" : ", ", c->name.c_str(), c->value,
                    Percent(s.share).c_str());
  }
  measured.name = names;
  measured.value = 1 / seconds_per_flop;
  // The mixed-precision note described the widest roofs; the mix below replaces it.
  measured.note.clear();
  if (measured.mix.size() == 1) {
    const IsaShare& s = measured.mix.front();
    measured.isa_note = Format("%s (100 %% of FLOPs, %s): the %s %s roof is %.3g GFLOP/s",
                               CodeDescription(measured).c_str(), source.c_str(),
                               s.precision.c_str(), IsaLabel(s.roof_isa).c_str(), s.roof);
  } else {
    measured.isa_note =
        Format("%s, %s: its roof weighted by FLOP share: %s give %.3g GFLOP/s",
               CodeDescription(measured).c_str(), source.c_str(), parts.c_str(), measured.value);
  }
  measured.isa_note += other_build;
  if (measured.value < measured.widest * 0.99)
    measured.isa_note += Format("; the widest vector code (%s) could reach %.3g",
                                measured.widest_name.c_str(), measured.widest);
  *out = std::move(measured);
  return true;
}

}  // namespace rprof
