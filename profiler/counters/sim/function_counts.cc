#include "counters/sim/function_counts.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "functions/hot_functions.h"
#include "functions/unwind_ranges.h"

namespace rprof {

std::vector<FunctionSlice> SplitByFunction(const CallgrindOutput& output) {
  std::vector<FunctionSlice> slices;
  bool any_named =
      std::any_of(output.site_sources.begin(), output.site_sources.end(),
                  [](const SiteSource& s) { return s.function != SiteSource::kUnnamed; });
  if (!any_named) return slices;
  const int ir = output.EventIndex("Ir");
  UnwindRanges unwind;

  // The key of a site's function: (object, function index) for a symbol; (object, kUnnamed,
  // unwind entry start or the object alone) for code without one.
  using Key = std::tuple<uint32_t, uint32_t, uint64_t>;
  std::map<Key, size_t> index;
  // Per slice: executions per (file, line), to find its source file and lines.
  std::vector<std::map<uint32_t, uint64_t>> file_weight;
  std::vector<std::map<uint32_t, std::pair<uint32_t, uint32_t>>> file_lines;
  std::vector<uint64_t> lowest;
  for (size_t i = 0; i < output.sites.size(); ++i) {
    const InstructionSite& site = output.sites[i];
    const SiteSource& source = output.site_sources[i];
    const std::string& object = output.objects[site.object];
    std::string symbol =
        source.function == SiteSource::kUnnamed ? "" : output.functions[source.function];
    Key key{site.object, source.function, 0};
    if (!IsSymbolName(symbol)) {
      std::optional<uint64_t> start = unwind.FunctionStart(object, site.address);
      key = Key{site.object, SiteSource::kUnnamed, start ? *start + 1 : 0};
    }
    auto [it, inserted] = index.emplace(key, slices.size());
    if (inserted) {
      FunctionSlice slice;
      slice.object = object;
      slice.name = symbol;  // named below, once its lowest address is known
      slice.output = CallgrindOutput::PartOf(output);
      slices.push_back(std::move(slice));
      file_weight.emplace_back();
      file_lines.emplace_back();
      lowest.push_back(std::get<2>(key) != 0 ? std::get<2>(key) - 1 : site.address);
    }
    size_t s = it->second;
    FunctionSlice& slice = slices[s];
    slice.output.AddSite(output, i);
    slice.site_sources.push_back(source);
    if (std::get<2>(key) == 0) lowest[s] = std::min(lowest[s], site.address);
    if (source.file != SiteSource::kUnnamed && source.line > 0) {
      file_weight[s][source.file] += ir >= 0 ? output.Cost(i, ir) : 1;
      auto [range, first] =
          file_lines[s].emplace(source.file, std::make_pair(source.line, source.line));
      if (!first) {
        range->second.first = std::min(range->second.first, source.line);
        range->second.second = std::max(range->second.second, source.line);
      }
    }
  }
  for (size_t s = 0; s < slices.size(); ++s) {
    FunctionSlice& slice = slices[s];
    // Each slice is complete: its totals are its cost lines' sums.
    slice.output.totals = slice.output.self_totals;
    slice.name = FunctionDisplayName(slice.name, slice.object, lowest[s], &slice.named);
    auto top = std::max_element(file_weight[s].begin(), file_weight[s].end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    if (top != file_weight[s].end()) {
      slice.file = output.files[top->first];
      std::tie(slice.first_line, slice.last_line) = file_lines[s][top->first];
    }
  }
  return slices;
}

}  // namespace rprof
