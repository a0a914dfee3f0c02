#include "core/metric.h"

namespace rprof {

const Metric* FindMetric(const std::vector<Metric>& metrics, std::string_view name, Source source,
                         std::string_view region) {
  for (const Metric& m : metrics)
    if (m.name == name && m.source == source && m.region == region) return &m;
  return nullptr;
}

const Metric* PreferredMetric(const std::vector<Metric>& metrics, std::string_view name,
                              std::string_view region) {
  if (const Metric* m = FindMetric(metrics, name, Source::kClock, region); m && m->value) return m;
  for (Source s : CountingSources()) {
    const Metric* m = FindMetric(metrics, name, s, region);
    if (m && m->value) return m;
  }
  return nullptr;
}

}  // namespace rprof
