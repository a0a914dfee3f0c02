#include "counters/sim/function_counts.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "functions/function_names.h"
#include "functions/hot_functions.h"

namespace rprof {

std::vector<FunctionSlice> SplitByFunction(const CallgrindOutput& output) {
  std::vector<FunctionSlice> slices;
  bool any_named =
      std::any_of(output.site_sources.begin(), output.site_sources.end(),
                  [](const SiteSource& s) { return s.function != SiteSource::kUnnamed; });
  if (!any_named) return slices;
  const int ir = output.EventIndex("Ir");
  FunctionNames names;

  // The key of a site's function: (object, its name) as FunctionNames decides it, the name
  // standing for its start; code in no function FunctionNames knows (no symbol, no unwind
  // entry) is one slice per object, (object, ""), named by the lowest address executed in it.
  using Key = std::pair<uint32_t, std::string>;
  std::map<Key, size_t> index;
  // Per slice: executions per (file, line), to find its source file and lines.
  std::vector<std::map<uint32_t, uint64_t>> file_weight;
  std::vector<std::map<uint32_t, std::pair<uint32_t, uint32_t>>> file_lines;
  std::vector<uint64_t> lowest;
  for (size_t i = 0; i < output.sites.size(); ++i) {
    const InstructionSite& site = output.sites[i];
    const SiteSource& source = output.site_sources[i];
    const std::string& object = output.objects[site.object];
    // A view of the output's own string: `cond ? "" : string` would be a temporary string.
    std::string_view valgrinds = source.function == SiteSource::kUnnamed
                                     ? std::string_view()
                                     : std::string_view(output.functions[source.function]);
    const FunctionName& name = names.Name(object, site.address, valgrinds);
    bool lump = name.source == NameSource::kAddress;
    auto [it, inserted] = index.emplace(Key{site.object, lump ? "" : name.name}, slices.size());
    if (inserted) {
      FunctionSlice slice;
      slice.object = object;
      slice.name = lump ? "" : name.name;  // the lump is named below, by its lowest address
      slice.named = name.named;
      slice.output = CallgrindOutput::PartOf(output);
      slices.push_back(std::move(slice));
      file_weight.emplace_back();
      file_lines.emplace_back();
      lowest.push_back(site.address);
    }
    size_t s = it->second;
    FunctionSlice& slice = slices[s];
    slice.output.AddSite(output, i);
    slice.site_sources.push_back(source);
    lowest[s] = std::min(lowest[s], site.address);
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
    if (slice.name.empty())
      slice.name = FunctionDisplayName("", slice.object, lowest[s], &slice.named);
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
