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

std::vector<Metric> MeanPerExecution(const std::vector<std::vector<Metric>>& per_execution) {
  std::vector<Metric> out;
  for (const auto& metrics : per_execution) {
    for (const Metric& m : metrics) {
      Metric* same = nullptr;
      for (Metric& o : out)
        if (o.name == m.name && o.source == m.source && o.region == m.region) same = &o;
      if (!same) {
        out.push_back(m);
      } else if (same->value && m.value) {
        *same->value += *m.value;
      } else {
        same->value = std::nullopt;
        if (same->note.empty()) same->note = m.note;
      }
    }
  }
  for (Metric& m : out)
    if (m.value) *m.value /= static_cast<double>(per_execution.size());
  return out;
}

}  // namespace rprof
