#include "machine/profile_trust.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "core/text.h"
#include "machine/hierarchy.h"
#include "machine/thread_team.h"

namespace rprof {

namespace {

// The level before `i` in profile.levels (l1 first) with a latency, or nullptr.
const LevelSummary* PreviousWithLatency(const std::vector<LevelSummary>& levels, size_t i) {
  for (size_t j = i; j-- > 0;)
    if (levels[j].latency_ns > 0) return &levels[j];
  return nullptr;
}

}  // namespace

const Ceiling* FmaCounterpart(const MachineProfile& profile, const Ceiling& c) {
  for (const Ceiling& f : profile.ceilings)
    if (f.kind == "compute" && f.pattern == "fma" && f.isa == c.isa && f.precision == c.precision &&
        f.threads == c.threads)
      return &f;
  return nullptr;
}

bool ImplausibleCeiling(const MachineProfile& profile, const Ceiling& c) {
  if (c.kind != "compute" || c.pattern != "mul_add") return false;
  const Ceiling* fma = FmaCounterpart(profile, c);
  // Above it by more than kMulAddTiePct: where multiplies and adds each have pipes of their own
  // (Zen 5: two FMA and two add pipes) mul+add ties the FMA, and a tie comes out either way
  // (fp64 AVX-512 on quiet profiles: 127 against 125, 121 against 119 GFLOP/s).
  return fma != nullptr && c.value > fma->value * (1 + kMulAddTiePct / 100);
}

std::vector<std::string> ProfileNoiseReasons(const MachineProfile& profile, double competing_cpus) {
  std::vector<std::string> reasons;
  if (competing_cpus >= kNoisyCompetingCpus) {
    reasons.push_back(
        Format("measured under load: other processes used %.2f CPUs on average "
               "while it measured",
               competing_cpus));
  } else if (competing_cpus < 0 &&
             profile.load_average_before >= std::max(1.0, 0.5 * profile.threads)) {
    reasons.push_back(
        Format("measured under load: load average %.2f before measuring on %d thread%s",
               profile.load_average_before, profile.threads, profile.threads > 1 ? "s" : ""));
  }
  int large = 0;
  const Ceiling* worst = nullptr;
  for (const Ceiling& c : profile.ceilings) {
    // A large spread is noise in the ceiling only when no other repetition reproduced its best:
    // on a quiet 2-vCPU VM a third of the ceilings spread more than 10 % (a tick in one 2 ms
    // repetition) while their best two agree within 2 %, and every profile was called noisy.
    if (c.spread_pct <= kLargeSpreadPct || c.best_confirmed) continue;
    ++large;
    if (!worst || c.spread_pct > worst->spread_pct) worst = &c;
  }
  if (4 * large > static_cast<int>(profile.ceilings.size())) {
    reasons.push_back(
        Format("%d of %zu ceilings varied more than %.0f %% between repetitions, no other "
               "reproducing their best (worst: %s, %d thread%s, %.0f %%)",
               large, profile.ceilings.size(), kLargeSpreadPct, worst->name.c_str(), worst->threads,
               worst->threads > 1 ? "s" : "", worst->spread_pct));
  }
  std::vector<std::string> contradictions = ProfileContradictions(profile);
  reasons.insert(reasons.end(), contradictions.begin(), contradictions.end());
  return reasons;
}

std::vector<std::string> ProfileContradictions(const MachineProfile& profile) {
  std::vector<std::string> reasons;
  for (const Ceiling& c : profile.ceilings) {
    if (!ImplausibleCeiling(profile, c)) continue;
    const Ceiling* fma = FmaCounterpart(profile, c);
    reasons.push_back(
        Format("%s (%.3g GFLOP/s) above %s (%.3g) on %d thread%s: FMA does 2 FLOPs "
               "an instruction, so this is noise; it is not used as a roof",
               c.name.c_str(), c.value, fma->name.c_str(), fma->value, c.threads,
               c.threads > 1 ? "s" : ""));
  }
  for (size_t i = 0; i < profile.levels.size(); ++i) {
    const LevelSummary& l = profile.levels[i];
    const LevelSummary* before = PreviousWithLatency(profile.levels, i);
    if (l.latency_ns <= 0 || !before || l.latency_ns > before->latency_ns) continue;
    reasons.push_back(Format(
        "%s latency %.3g ns is not above %s's %.3g ns: latency grows with "
        "level, so one of them is noise",
        Upper(l.level).c_str(), l.latency_ns, Upper(before->level).c_str(), before->latency_ns));
  }
  return reasons;
}

void NoteLevelContradictions(MachineProfile* profile) {
  std::vector<LevelSummary>& levels = profile->levels;
  for (size_t i = 0; i < levels.size(); ++i) {
    const LevelSummary* before = PreviousWithLatency(levels, i);
    if (levels[i].latency_ns <= 0 || !before || levels[i].latency_ns > before->latency_ns) continue;
    std::string note = Format("latency not above %s's %.3g ns: noise, not a fact",
                              Upper(before->level).c_str(), before->latency_ns);
    levels[i].note += (levels[i].note.empty() ? "" : "; ") + note;
  }
}

void ReconcileLevelSizes(const MachineProfile& previous, int64_t previous_id, double resolution,
                         MachineProfile* now) {
  for (LevelSummary& l : now->levels) {
    if (l.effective_size == 0) continue;  // DRAM, or not found
    l.size_agreement = 1;
    const LevelSummary* old = nullptr;
    for (const LevelSummary& p : previous.levels)
      if (p.level == l.level && p.effective_size > 0) old = &p;
    if (!old) continue;
    const double ratio = static_cast<double>(std::max(l.effective_size, old->effective_size)) /
                         static_cast<double>(std::min(l.effective_size, old->effective_size));
    const int agreed = std::max(1, old->size_agreement);
    // A hair over one grid step still counts as one: sizes are rounded to cache lines.
    if (ratio <= resolution * 1.01) {
      if (l.effective_size != old->effective_size)
        l.note = "measured " + FormatBytes(l.effective_size) +
                 ", within the sweep's resolution "
                 "of profile " +
                 std::to_string(previous_id) + "'s " + FormatBytes(old->effective_size) + ": kept";
      l.effective_size = old->effective_size;
      l.size_agreement = agreed + 1;
      continue;
    }
    std::string was = "profile " + std::to_string(previous_id) + " measured " +
                      FormatBytes(old->effective_size) +
                      (agreed > 1 ? " (" + std::to_string(agreed) + " profiles agreed)" : "");
    l.note = "a new size: " + was;
    now->warnings.push_back(Upper(l.level) + "'s effective size " + FormatBytes(l.effective_size) +
                            " differs from the last: " + was +
                            "; measure again on a quiet machine to tell which holds");
    if (agreed > 1)
      now->noisy_reasons.push_back(Upper(l.level) + "'s effective size " +
                                   FormatBytes(l.effective_size) + " contradicts " + was);
  }
}

}  // namespace rprof
