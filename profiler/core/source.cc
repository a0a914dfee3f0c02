#include "core/source.h"

#include "core/closed_list.h"

namespace rprof {

std::string_view SourceName(Source source) { return NameIn<&SourceInfo::source>(kSources, source); }

std::optional<Source> ParseSource(std::string_view name) {
  return ParseIn<&SourceInfo::source>(kSources, name);
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

bool IsCalibratable(Source source) {
  for (const SourceInfo& s : kSources)
    if (s.source == source) return s.calibratable;
  return false;
}

std::string CalibratableSourceChoices() {
  std::vector<std::string> names;
  for (const SourceInfo& s : kSources)
    if (s.calibratable) names.emplace_back(s.name);
  return JoinChoices(names);
}

}  // namespace rprof
