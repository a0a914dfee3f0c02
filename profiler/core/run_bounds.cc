#include "core/run_bounds.h"

#include <cmath>
#include <unordered_set>

#include "core/untrusted_file.h"

namespace rprof {

namespace {

// "" when `text` may be stored as a note, else why not.
std::string NoteViolation(const std::string& text) {
  if (text.size() > kMaxNoteBytes)
    return std::to_string(text.size()) + " bytes, over the " + std::to_string(kMaxNoteBytes >> 10) +
           " KiB a note may have";
  if (text.find('\0') != std::string::npos) return "holds a NUL byte";
  return "";
}

}  // namespace

std::string RunBoundsViolation(const RunRecord& run) {
  if (std::string why = NoteViolation(run.note); !why.empty()) return "note: " + why;
  if (!run.started_at.empty() && !run.ended_at.empty() && run.ended_at < run.started_at)
    return "ended_at " + run.ended_at + " is before started_at " + run.started_at;
  for (size_t i = 0; i < run.samples.size(); ++i)
    if (!std::isfinite(run.samples[i]) || run.samples[i] < 0)
      return "samples[" + std::to_string(i) + "]: a repetition's time must be 0 s or more";
  std::unordered_set<std::string_view> regions;
  for (const Metric& m : run.metrics) {
    const std::string key =
        "metric " + m.name + (m.region.empty() ? "" : " of region " + Excerpt(m.region, 60));
    if (std::string why = NoteViolation(m.note); !why.empty()) return key + ": note: " + why;
    if (m.region.size() > kMaxRegionNameBytes)
      return key + ": region name of " + std::to_string(m.region.size()) + " bytes, over the " +
             std::to_string(kMaxRegionNameBytes) + " a name may have";
    if (m.region.find('\0') != std::string::npos) return key + ": region name holds a NUL byte";
    if (m.name == "time_s" && m.value && (!std::isfinite(*m.value) || *m.value < 0))
      return key + ": a time must be 0 s or more";
    if (!m.region.empty()) regions.insert(m.region);
    if (regions.size() > kMaxRegions + kMaxCodeRegions)
      return "more than " + std::to_string(kMaxRegions + kMaxCodeRegions) +
             " regions, the most a run may have";
  }
  return "";
}

}  // namespace rprof
