#include "core/source.h"

namespace rprof {

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
