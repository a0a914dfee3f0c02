#include "calibrate/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace rprof {

namespace {

constexpr uint64_t kMiB = 1ull << 20;

std::string LevelName(int level) {
  std::string name = "l";
  name += std::to_string(level);
  return name;
}

// The kernel's defaults with the size parameter set from the working set: a multiple of 64
// units, so vector loops have no remainder and line counts are whole.
bool SizedArgs(const rprof_kernel& k, const CalibrationCheck& check, uint64_t working_set,
               rprof_args* args, KeyValues* shown, Error* err) {
  int index = -1;
  for (uint32_t i = 0; i < k.param_count; ++i) {
    args->values[i] = k.params[i].default_value;
    if (check.size_param == k.params[i].name) index = static_cast<int>(i);
  }
  if (index < 0)
    return Fail(err, ErrorKind::kEnvironment,
                "calibration plan line " + std::to_string(check.line) + ": kernel " + k.name +
                    " has no parameter " + check.size_param);
  const rprof_param& p = k.params[index];
  int64_t units = static_cast<int64_t>(static_cast<double>(working_set) / check.bytes_per_unit);
  units -= units % 64;
  args->values[index] = std::clamp(units, p.min_value, p.max_value);
  shown->clear();
  for (uint32_t i = 0; i < k.param_count; ++i)
    shown->emplace_back(k.params[i].name, std::to_string(args->values[i]));
  return true;
}

std::optional<double> ParamValue(const rprof_kernel& k, const rprof_args& args,
                                 std::string_view name) {
  for (uint32_t i = 0; i < k.param_count; ++i)
    if (name == k.params[i].name) return static_cast<double>(args.values[i]);
  return std::nullopt;
}

}  // namespace

std::vector<CalibrationLevel> CalibrationLevels(const std::vector<CacheLevel>& data_caches) {
  std::vector<CalibrationLevel> levels;
  uint64_t last = 0;
  for (const CacheLevel& c : data_caches) {
    if (c.size_bytes == 0) continue;
    levels.push_back({LevelName(c.level), c.size_bytes / 2});
    last = std::max(last, c.size_bytes);
  }
  levels.push_back({"dram", std::max<uint64_t>(4 * last, 64 * kMiB)});
  return levels;
}

bool Calibrate(const std::vector<CalibrationCheck>& plan,
               const std::vector<CalibrationLevel>& levels, const KernelCatalog& catalog,
               const CalibrationRequest& request, const CalibrationMeasure& measure,
               CalibrationResult* result, Error* err) {
  result->source = request.source;
  result->tolerance_pct = request.tolerance_pct;
  auto wanted = [&](const std::string& level) {
    return request.levels.empty() ||
           std::find(request.levels.begin(), request.levels.end(), level) != request.levels.end();
  };
  auto skip = [&](const std::string& text) {
    if (std::find(result->skipped.begin(), result->skipped.end(), text) == result->skipped.end())
      result->skipped.push_back(text);
  };

  // One measurement per (kernel, level, group), in plan order; each serves all its checks.
  using Key = std::tuple<std::string, std::string, std::string>;
  std::vector<Key> order;
  std::map<Key, std::vector<const CalibrationCheck*>> checks_of;
  for (const CalibrationCheck& check : plan) {
    std::string group;
    if (request.source == Source::kPmu) {
      group = request.group_of ? request.group_of(check.metric) : "";
      if (group.empty()) {
        skip(check.metric + ": no metric group of this machine defines it");
        continue;
      }
    }
    for (const std::string& level : check.levels) {
      bool here = false;
      for (const CalibrationLevel& l : levels) here = here || l.level == level;
      if (!here) {
        skip(check.metric + " in " + level + ": this machine has no such cache level");
        continue;
      }
      if (!wanted(level)) continue;
      Key key{check.kernel, level, group};
      if (!checks_of.count(key)) order.push_back(key);
      checks_of[key].push_back(&check);
    }
  }

  for (const Key& key : order) {
    const auto& [kernel, level, group] = key;
    const CatalogEntry* entry = catalog.Resolve(kernel, err);
    if (!entry) return false;
    const std::vector<const CalibrationCheck*>& checks = checks_of[key];
    CalibrationTask task;
    task.entry = entry;
    task.level = level;
    task.group = group;
    for (const CalibrationLevel& l : levels)
      if (l.level == level) task.working_set_bytes = l.working_set_bytes;
    // The first check of a kernel decides its size (the plan gives every check of a kernel the
    // same size rule); the working set is what that size really touches.
    const CalibrationCheck& sizing = *checks.front();
    if (!SizedArgs(*entry->kernel, sizing, task.working_set_bytes, &task.args, &task.params, err))
      return false;
    task.working_set_bytes =
        static_cast<uint64_t>(ParamValue(*entry->kernel, task.args, sizing.size_param).value_or(0) *
                              sizing.bytes_per_unit);
    if (request.progress) request.progress(task);
    std::vector<Metric> metrics;
    if (!measure(task, &metrics, err)) return false;

    for (const CalibrationCheck* check : checks) {
      Error why;
      std::optional<double> expected = check->expected.Evaluate(
          [&](std::string_view name) { return ParamValue(*entry->kernel, task.args, name); }, &why);
      if (!expected || *expected <= 0)
        return Fail(err, ErrorKind::kEnvironment,
                    "calibration plan line " + std::to_string(check->line) + ": expected " +
                        check->expected.text() + " has no positive value for " + kernel +
                        (why.message.empty() ? "" : ": " + why.message));
      const Metric* m = FindMetric(metrics, check->metric, request.source);
      if (!m) {
        skip(check->metric + ": " + std::string(SourceName(request.source)) +
             (group.empty() ? "" : " group " + group) + " does not count it");
        continue;
      }
      CalibrationPoint point;
      point.metric = check->metric;
      point.group = group;
      point.kernel = kernel;
      point.params = task.params;
      point.level = level;
      point.working_set_bytes = task.working_set_bytes;
      point.expected = *expected;
      point.measured = m->value;
      if (m->value) {
        point.ratio = *m->value / *expected;
      } else {
        point.note = m->note.empty() ? "not measured" : m->note;
      }
      result->points.push_back(std::move(point));
    }
  }
  return true;
}

std::vector<MetricVerdict> Verdicts(const CalibrationResult& result) {
  std::vector<MetricVerdict> verdicts;
  auto deviation = [](const CalibrationPoint& p) {
    return p.ratio ? std::fabs(*p.ratio - 1) : INFINITY;
  };
  for (const CalibrationPoint& p : result.points) {
    auto it = std::find_if(verdicts.begin(), verdicts.end(),
                           [&](const MetricVerdict& v) { return v.metric == p.metric; });
    if (it == verdicts.end()) {
      verdicts.emplace_back();
      verdicts.back().metric = p.metric;
      it = verdicts.end() - 1;
    }
    ++it->points;
    if (p.ratio) {
      ++it->measured_points;
      it->min_ratio = std::min(it->min_ratio.value_or(*p.ratio), *p.ratio);
      it->max_ratio = std::max(it->max_ratio.value_or(*p.ratio), *p.ratio);
    }
    if (!it->worst || deviation(p) > deviation(*it->worst)) it->worst = &p;
  }
  for (MetricVerdict& v : verdicts)
    v.trusted =
        v.measured_points == v.points && deviation(*v.worst) * 100 <= result.tolerance_pct + 1e-9;
  return verdicts;
}

}  // namespace rprof
