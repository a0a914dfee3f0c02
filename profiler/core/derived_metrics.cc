#include "core/derived_metrics.h"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/embedded_file.h"
#include "core/text.h"

namespace rprof {

extern const EmbeddedFile kDerivedMetricFiles[];
extern const int kDerivedMetricFiles_count;

namespace {}  // namespace

std::optional<DerivedMetricDef> ParseMetricLine(std::string_view line, Error* err) {
  size_t open = line.find('['), close = line.find(']'), eq = line.find('=');
  if (open == std::string_view::npos || close == std::string_view::npos ||
      eq == std::string_view::npos || !(open < close && close < eq)) {
    Fail(err, ErrorKind::kUsage, "expected `name [unit] = formula`");
    return std::nullopt;
  }
  std::string name(Trim(line.substr(0, open)));
  std::string unit(Trim(line.substr(open + 1, close - open - 1)));
  if (name.empty() || unit.empty()) {
    Fail(err, ErrorKind::kUsage, "a metric needs a name and a unit");
    return std::nullopt;
  }
  Error why;
  auto formula = Formula::Parse(Trim(line.substr(eq + 1)), &why);
  if (!formula) {
    Fail(err, ErrorKind::kUsage, "formula of " + name + ": " + why.message);
    return std::nullopt;
  }
  return DerivedMetricDef{std::move(name), std::move(unit), std::move(*formula)};
}

const std::vector<DerivedMetricDef>& DerivedMetricDefs() {
  static const std::vector<DerivedMetricDef> defs = [] {
    std::vector<DerivedMetricDef> parsed;
    for (int f = 0; f < kDerivedMetricFiles_count; ++f) {
      std::istringstream in(kDerivedMetricFiles[f].text);
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        std::string_view text = Trim(line);
        if (text.empty() || text.front() == '#') continue;
        Error err;
        auto def = ParseMetricLine(text, &err);
        // The file is compiled in and tested: a bad line is a build defect, so stop loudly.
        if (!def) {
          std::fprintf(stderr, "rprof: internal error: %s:%d: %s\n", kDerivedMetricFiles[f].name,
                       number, err.message.c_str());
          std::abort();
        }
        parsed.push_back(std::move(*def));
      }
    }
    return parsed;
  }();
  return defs;
}

void AddDerivedMetrics(std::vector<Metric>* metrics) {
  // Every metric by (name, source, region), looked up in constant time: a program may mark 10^5
  // regions, and a scan of all metrics per lookup made this quadratic (minutes at 20,000).
  auto key = [](std::string_view name, Source source, std::string_view region) {
    std::string k(name);
    k.push_back('\0');
    k += std::to_string(static_cast<int>(source));
    k.push_back('\0');
    k.append(region);
    return k;
  };
  std::unordered_map<std::string, const Metric*> index;
  for (const Metric& m : *metrics) index.emplace(key(m.name, m.source, m.region), &m);
  auto find = [&](std::string_view name, Source source, std::string_view region) -> const Metric* {
    auto at = index.find(key(name, source, region));
    return at == index.end() ? nullptr : at->second;
  };
  // (region, source) pairs holding values; the clock's own (CPU time / wall time) included.
  std::set<std::pair<std::string, Source>> groups;
  for (const Metric& m : *metrics)
    if (m.source != Source::kClock || m.name != "time_s") groups.insert({m.region, m.source});

  std::vector<Metric> added;
  for (const auto& [region, source] : groups) {
    const Metric* time = find("time_s", Source::kClock, region);
    auto lookup = [&, src = source, reg = region](std::string_view name) -> std::optional<double> {
      if (name == "time_s") return time ? time->value : std::nullopt;
      const Metric* m = find(name, src, reg);
      return m ? m->value : std::nullopt;
    };
    for (const DerivedMetricDef& def : DerivedMetricDefs()) {
      if (find(def.name, source, region)) continue;  // measured directly
      // A derived metric whose inputs are absent is simply not added: its reason is not kept.
      auto value = def.formula.Evaluate(lookup, nullptr);
      if (value) added.push_back(Metric{def.name, value, def.unit, source, region, ""});
    }
  }
  metrics->insert(metrics->end(), added.begin(), added.end());
}

}  // namespace rprof
