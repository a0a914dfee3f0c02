#include "core/source.h"

#include <array>
#include <utility>

namespace rprof {

namespace {

struct SourceInfo {
  Source source;
  std::string_view name;
  bool measured;
};

// Every source once, the clock first, then the counting sources in order of preference.
constexpr std::array<SourceInfo, 4> kSources = {{
    {Source::kClock, "clock", false},
    {Source::kPmu, "pmu", true},
    {Source::kSim, "sim", true},
    {Source::kModel, "model", false},
}};

}  // namespace

std::string_view SourceName(Source source) {
  for (const SourceInfo& s : kSources)
    if (s.source == source) return s.name;
  return "?";
}

std::optional<Source> ParseSource(std::string_view name) {
  for (const SourceInfo& s : kSources)
    if (s.name == name) return s.source;
  return std::nullopt;
}

const std::vector<Source>& CountingSources() {
  static const std::vector<Source> sources = [] {
    std::vector<Source> out;
    for (const SourceInfo& s : kSources)
      if (s.source != Source::kClock) out.push_back(s.source);
    return out;
  }();
  return sources;
}

bool IsMeasured(Source source) {
  for (const SourceInfo& s : kSources)
    if (s.source == source) return s.measured;
  return false;
}

}  // namespace rprof
