#include "functions/hot_lines.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "functions/hot_functions.h"

namespace rprof {

namespace {

// A line's "time": its sampled share where any candidate has one, else its share of the
// instructions.
std::vector<double> Times(const std::vector<LineCandidate>& candidates) {
  bool sampled = std::any_of(candidates.begin(), candidates.end(),
                             [](const LineCandidate& c) { return c.time_share.has_value(); });
  double total_instructions = 0;
  for (const LineCandidate& c : candidates) total_instructions += c.instructions;
  std::vector<double> times;
  for (const LineCandidate& c : candidates)
    times.push_back(sampled                  ? c.time_share.value_or(0.0)
                    : total_instructions > 0 ? c.instructions / total_instructions
                                             : 0.0);
  return times;
}

// Time, then FLOPs, then the place in the source: a total order, so equal counts always choose
// and order the same lines.
auto Hotter(const std::vector<LineCandidate>& candidates, const std::vector<double>& times) {
  return [&](size_t a, size_t b) {
    const LineCandidate &x = candidates[a], &y = candidates[b];
    if (times[a] != times[b]) return times[a] > times[b];
    if (x.flops != y.flops) return x.flops > y.flops;
    if (x.file != y.file) return x.file < y.file;
    return x.line < y.line;
  };
}

}  // namespace

std::vector<size_t> OrderHotLines(const std::vector<LineCandidate>& candidates) {
  std::vector<double> times = Times(candidates);
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), Hotter(candidates, times));
  return order;
}

std::vector<size_t> SelectHotLines(const std::vector<LineCandidate>& candidates,
                                   const HotLineRule& rule) {
  std::vector<size_t> chosen;
  if (rule.top <= 0 || candidates.empty()) return chosen;
  std::vector<double> times = Times(candidates);
  std::vector<size_t> by_time = OrderHotLines(candidates);
  std::vector<size_t> by_flops = by_time;
  std::stable_sort(by_flops.begin(), by_flops.end(),
                   [&](size_t a, size_t b) { return candidates[a].flops > candidates[b].flops; });
  std::vector<bool> taken(candidates.size(), false);
  auto take = [&](size_t i) {
    if (!taken[i]) taken[i] = true, chosen.push_back(i);
  };
  const size_t top = static_cast<size_t>(rule.top);
  for (size_t k = 0; k < by_time.size() && k < top; ++k)
    if (times[by_time[k]] > 0) take(by_time[k]);
  for (size_t k = 0; k < by_flops.size() && k < top; ++k)
    if (candidates[by_flops[k]].flops > 0) take(by_flops[k]);
  std::sort(chosen.begin(), chosen.end(), Hotter(candidates, times));
  return chosen;
}

std::string LineRegion(std::string_view function, std::string_view file, uint32_t line) {
  return std::string(kLineRegionPrefix) + std::string(function) + "@" + std::string(file) + ":" +
         std::to_string(line);
}

bool IsLineRegion(std::string_view region) {
  return region.size() > kLineRegionPrefix.size() &&
         region.substr(0, kLineRegionPrefix.size()) == kLineRegionPrefix;
}

bool IsHotCodeRegion(std::string_view region) {
  return IsFunctionRegion(region) || IsLineRegion(region);
}

std::optional<SourceLine> LineOfRegion(std::string_view region, std::string_view function) {
  std::string prefix = std::string(kLineRegionPrefix) + std::string(function) + "@";
  if (region.size() <= prefix.size() || region.substr(0, prefix.size()) != prefix)
    return std::nullopt;
  std::string_view rest = region.substr(prefix.size());
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size())
    return std::nullopt;
  SourceLine out;
  std::string_view number = rest.substr(colon + 1);
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), out.line);
  if (ec != std::errc() || end != number.data() + number.size() || out.line == 0)
    return std::nullopt;
  out.file = std::string(rest.substr(0, colon));
  return out;
}

}  // namespace rprof
