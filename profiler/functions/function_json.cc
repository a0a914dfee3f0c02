#include "functions/function_json.h"

#include <algorithm>

#include "functions/hot_functions.h"

namespace rprof {

void WriteFunctionSource(const std::vector<const Metric*>& metrics, JsonWriter* w) {
  const Metric* first = nullptr;
  const Metric* last = nullptr;
  for (const Metric* m : metrics) {
    if (m->name == "line_first" && m->value) first = m;
    if (m->name == "line_last" && m->value) last = m;
  }
  if (!first || !last) return;
  w->Key("source").BeginObject();
  w->Key("file").String(first->note);
  w->Key("lines").BeginArray().Number(*first->value).Number(*last->value).EndArray();
  w->EndObject();
}

namespace {

std::optional<double> ValueOf(const std::vector<const Metric*>& metrics, std::string_view name,
                              Source source) {
  for (const Metric* m : metrics)
    if (m->name == name && m->source == source) return m->value;
  return std::nullopt;
}

constexpr const char* kLevels[] = {"l1", "l2", "l3", "dram"};

}  // namespace

std::vector<FunctionLine> FunctionLines(
    std::string_view function, const std::map<std::string, std::vector<const Metric*>>& by_region) {
  std::string prefix = std::string(kLineRegionPrefix) + std::string(function) + "@";
  std::vector<FunctionLine> lines;
  for (auto it = by_region.lower_bound(prefix);
       it != by_region.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    std::optional<SourceLine> where = LineOfRegion(it->first, function);
    if (!where) continue;
    // A longer function's ("f@GLIBC" beside "f") whose own reading of the name works.
    bool longer = false;
    std::string longer_prefix = std::string(kFunctionRegionPrefix) + std::string(function) + "@";
    for (auto f = by_region.lower_bound(longer_prefix);
         !longer && f != by_region.end() &&
         f->first.compare(0, longer_prefix.size(), longer_prefix) == 0;
         ++f)
      longer = LineOfRegion(it->first, f->first.substr(kFunctionRegionPrefix.size())).has_value();
    if (longer) continue;
    uint32_t last = where->line;
    if (std::optional<double> value = ValueOf(it->second, "line_last", Source::kSim))
      last = std::max(last, static_cast<uint32_t>(*value));
    lines.push_back({it->first, std::move(*where), last, it->second});
  }
  std::vector<LineCandidate> candidates;
  for (const FunctionLine& line : lines)
    candidates.push_back({line.where.file, line.where.line,
                          ValueOf(line.metrics, "flops", Source::kSim).value_or(0),
                          ValueOf(line.metrics, "instructions", Source::kSim).value_or(0),
                          ValueOf(line.metrics, "time_share", Source::kClock)});
  std::vector<FunctionLine> ordered;
  for (size_t i : OrderHotLines(candidates)) ordered.push_back(std::move(lines[i]));
  return ordered;
}

std::string LinePlace(const FunctionLine& line) {
  const std::string& file = line.where.file;
  size_t slash = file.rfind('/');
  std::string place = (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" +
                      std::to_string(line.where.line);
  if (line.last_line > line.where.line) {
    place += '-';
    place += std::to_string(line.last_line);
  }
  return place;
}

std::optional<double> BytesPerFlop(const std::vector<const Metric*>& metrics,
                                   std::string_view level) {
  std::optional<double> flops = ValueOf(metrics, "flops", Source::kSim);
  std::optional<double> bytes = ValueOf(metrics, "bytes_" + std::string(level), Source::kSim);
  if (!flops || !bytes || *flops <= 0) return std::nullopt;
  return *bytes / *flops;
}

void WriteLineHead(const FunctionLine& line, JsonWriter* w) {
  w->Key("file").String(line.where.file);
  w->Key("line").Int(line.where.line);
  if (line.last_line > line.where.line) w->Key("last_line").Int(line.last_line);
  w->Key("bytes_per_flop").BeginObject();
  for (const char* level : kLevels)
    if (std::optional<double> value = BytesPerFlop(line.metrics, level))
      w->Key(level).BeginObject().Key(SourceName(Source::kSim)).Number(*value).EndObject();
  w->EndObject();
}

std::string NoLinesReason(const std::vector<const Metric*>& function_metrics) {
  for (const Metric* m : function_metrics)
    if (m->name == "hot_lines" && !m->value) return m->note;
  return "";
}

}  // namespace rprof
