#include "core/metric.h"

namespace rprof {

std::string_view SourceName(Source source) {
  switch (source) {
    case Source::kClock:
      return "clock";
    case Source::kPmu:
      return "pmu";
    case Source::kSim:
      return "sim";
    case Source::kModel:
      return "model";
  }
  return "?";
}

std::optional<Source> ParseSource(std::string_view name) {
  for (Source s : {Source::kClock, Source::kPmu, Source::kSim, Source::kModel})
    if (SourceName(s) == name) return s;
  return std::nullopt;
}

const Metric* FindMetric(const std::vector<Metric>& metrics, std::string_view name, Source source,
                         std::string_view region) {
  for (const Metric& m : metrics)
    if (m.name == name && m.source == source && m.region == region) return &m;
  return nullptr;
}

const Metric* PreferredMetric(const std::vector<Metric>& metrics, std::string_view name,
                              std::string_view region) {
  for (Source s : {Source::kClock, Source::kPmu, Source::kSim, Source::kModel}) {
    const Metric* m = FindMetric(metrics, name, s, region);
    if (m && m->value) return m;
  }
  return nullptr;
}

}  // namespace rprof
