#include "functions/hot_functions.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <numeric>

#include "core/text.h"

namespace rprof {

std::vector<size_t> SelectHotFunctions(const std::vector<FunctionCandidate>& candidates,
                                       const HotFunctionRule& rule) {
  std::vector<size_t> chosen;
  if (rule.top <= 0 || candidates.empty()) return chosen;
  bool sampled = std::any_of(candidates.begin(), candidates.end(),
                             [](const FunctionCandidate& c) { return c.time_share.has_value(); });
  double total_instructions = 0;
  for (const FunctionCandidate& c : candidates) total_instructions += c.instructions;
  // The time share, or the instruction share standing for it.
  auto weight = [&](const FunctionCandidate& c) {
    if (sampled) return c.time_share.value_or(0.0);
    return total_instructions > 0 ? c.instructions / total_instructions : 0.0;
  };
  std::vector<size_t> by_time(candidates.size());
  std::iota(by_time.begin(), by_time.end(), size_t{0});
  // Ties broken by name: the same counts choose the same functions every time.
  auto heavier = [&](auto key) {
    return [&, key](size_t a, size_t b) {
      double x = key(candidates[a]), y = key(candidates[b]);
      return x != y ? x > y : candidates[a].name < candidates[b].name;
    };
  };
  std::stable_sort(by_time.begin(), by_time.end(), heavier(weight));
  std::vector<size_t> by_flops = by_time;
  std::stable_sort(by_flops.begin(), by_flops.end(),
                   heavier([](const FunctionCandidate& c) { return c.flops; }));

  std::vector<bool> taken(candidates.size(), false);
  auto take = [&](size_t i) {
    if (!taken[i]) taken[i] = true, chosen.push_back(i);
  };
  size_t top = static_cast<size_t>(rule.top);
  for (size_t k = 0; k < by_time.size(); ++k) {
    double w = weight(candidates[by_time[k]]);
    if (w <= 0) break;
    if (k < top || w > rule.min_share) take(by_time[k]);
  }
  for (size_t k = 0; k < by_flops.size() && k < top; ++k)
    if (candidates[by_flops[k]].flops > 0) take(by_flops[k]);
  // Where time chose, the replay's heaviest work too: a function can do much of it and draw no
  // sample (a short run's few samples; rep movsb, one instruction to the CPU, one per byte
  // moved to valgrind: glibc's memcpy on an Intel guest, 49 % of a replay's instructions, 0 of
  // its 16 samples).
  if (sampled && total_instructions > 0) {
    std::vector<size_t> by_instructions = by_time;
    std::stable_sort(by_instructions.begin(), by_instructions.end(),
                     heavier([](const FunctionCandidate& c) { return c.instructions; }));
    for (size_t k = 0; k < by_instructions.size() && k < top; ++k)
      if (candidates[by_instructions[k]].instructions / total_instructions > rule.min_share)
        take(by_instructions[k]);
  }
  // Heaviest first, whichever list chose them.
  std::stable_sort(chosen.begin(), chosen.end(), heavier(weight));
  return chosen;
}

std::vector<std::string> FunctionRegionsHeaviestFirst(const std::vector<Metric>& metrics) {
  std::map<std::string, FunctionCandidate> by_region;
  for (const Metric& m : metrics) {
    if (!IsFunctionRegion(m.region)) continue;
    FunctionCandidate& c = by_region[m.region];
    c.name = m.region;
    if (m.name == "time_share" && m.source == Source::kClock && m.value) c.time_share = *m.value;
    if (m.name == "instructions" && m.source == Source::kSim && m.value) c.instructions = *m.value;
  }
  std::vector<FunctionCandidate> candidates;
  for (auto& [region, c] : by_region) candidates.push_back(std::move(c));
  bool sampled = std::any_of(candidates.begin(), candidates.end(),
                             [](const FunctionCandidate& c) { return c.time_share.has_value(); });
  // Sampled time where the run has it; a function no sample fell in weighs 0 of it, then its
  // instructions order it among the others like it.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const FunctionCandidate& a, const FunctionCandidate& b) {
                     double x = sampled ? a.time_share.value_or(0) : a.instructions;
                     double y = sampled ? b.time_share.value_or(0) : b.instructions;
                     if (x != y) return x > y;
                     if (a.instructions != b.instructions) return a.instructions > b.instructions;
                     return a.name < b.name;
                   });
  std::vector<std::string> order;
  for (FunctionCandidate& c : candidates) order.push_back(std::move(c.name));
  return order;
}

std::string FunctionRegion(std::string_view function) {
  return std::string(kFunctionRegionPrefix) + std::string(function);
}

bool IsFunctionRegion(std::string_view region) {
  return region.size() > kFunctionRegionPrefix.size() &&
         region.substr(0, kFunctionRegionPrefix.size()) == kFunctionRegionPrefix;
}

std::string_view FunctionOfRegion(std::string_view region) {
  return IsFunctionRegion(region) ? region.substr(kFunctionRegionPrefix.size()) : region;
}

std::string UniqueFunctionName(const std::string& name, std::string_view object,
                               std::vector<std::string>* used) {
  std::string unique = name;
  if (std::find(used->begin(), used->end(), unique) != used->end())
    unique += " (" + std::string(BaseName(object)) + ")";
  used->push_back(unique);
  return unique;
}

bool IsSymbolName(std::string_view symbol) {
  if (symbol.empty() || symbol == "???") return false;
  // callgrind's stand-in for code without a symbol: "0x" and hex digits only.
  if (symbol.size() > 2 && symbol[0] == '0' && symbol[1] == 'x' &&
      symbol.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string_view::npos)
    return false;
  return true;
}

std::string FunctionDisplayName(std::string_view symbol, std::string_view object, uint64_t start,
                                bool* named) {
  *named = IsSymbolName(symbol);
  if (*named) return std::string(symbol);
  size_t slash = object.rfind('/');
  std::string_view module = slash == std::string_view::npos ? object : object.substr(slash + 1);
  if (module.empty() || module == "???") module = "unknown-module";
  char address[32];
  std::snprintf(address, sizeof address, "+0x%" PRIx64, start);
  return std::string(module) + address;
}

}  // namespace rprof
