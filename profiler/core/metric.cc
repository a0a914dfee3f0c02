#include "core/metric.h"

#include <string>
#include <unordered_map>

#include "core/stats.h"

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
  std::vector<std::vector<double>> values;  // out[i]'s value in each execution
  // (name, source, region) to its index in out: linear in the metrics, however many regions a
  // program marks (a linear search here once cost minutes at 20,000 regions).
  std::unordered_map<std::string, size_t> index;
  std::string key;
  for (const auto& metrics : per_execution) {
    for (const Metric& m : metrics) {
      key.assign(m.name).push_back('\0');
      key.append(std::to_string(static_cast<int>(m.source))).push_back('\0');
      key.append(m.region);
      auto [at, added] = index.emplace(key, out.size());
      size_t same = at->second;
      if (added) {
        out.push_back(m);
        values.emplace_back();
      } else if (out[same].value && m.value) {
        *out[same].value += *m.value;
      } else {
        out[same].value = std::nullopt;
        if (out[same].note.empty()) out[same].note = m.note;
      }
      if (m.value) values[same].push_back(*m.value);
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].value) continue;
    *out[i].value /= static_cast<double>(per_execution.size());
    if (values[i].size() == per_execution.size()) out[i].spread_pct = SpreadPercent(values[i]);
  }
  return out;
}

}  // namespace rprof
