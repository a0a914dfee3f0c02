#include "counters/sim/line_counts.h"

#include <Zydis/Zydis.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/text.h"
#include "counters/sim/object_code.h"
#include "functions/hot_functions.h"
#include "functions/hot_lines.h"
#include "functions/sampled_time.h"

namespace rprof {

std::vector<LoopRange> FindLoops(const std::vector<uint64_t>& addresses,
                                 const std::function<std::span<const uint8_t>(uint64_t)>& code_at) {
  std::map<uint64_t, uint64_t> ends;  // target -> the furthest end of a jump back to it
  if (addresses.empty()) return {};
  const uint64_t lowest = *std::min_element(addresses.begin(), addresses.end());
  ZydisDecoder decoder;
  ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  for (uint64_t address : addresses) {
    std::span<const uint8_t> code = code_at(address);
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (code.empty() ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, code.data(), code.size(), &in, ops)))
      continue;
    if (in.meta.category != ZYDIS_CATEGORY_COND_BR && in.meta.category != ZYDIS_CATEGORY_UNCOND_BR)
      continue;
    ZyanU64 target = 0;
    if (in.operand_count_visible < 1 || ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
        !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &ops[0], address, &target)))
      continue;  // an indirect jump: no target to read
    if (target > address || target < lowest) continue;
    uint64_t& end = ends[target];
    end = std::max<uint64_t>(end, address + in.length);
  }
  std::vector<LoopRange> loops;
  for (const auto& [start, end] : ends) loops.push_back({start, end});
  return loops;
}

std::optional<size_t> InnermostLoop(const std::vector<LoopRange>& loops, uint64_t address) {
  std::optional<size_t> best;
  for (size_t i = 0; i < loops.size(); ++i) {
    const LoopRange& loop = loops[i];
    if (address < loop.start || address >= loop.end) continue;
    if (!best || loop.end - loop.start < loops[*best].end - loops[*best].start) best = i;
  }
  return best;
}

std::vector<LineSlice> SplitByLine(const CallgrindOutput& whole, const FunctionSlice& slice,
                                   SourceLines* source_lines, const std::vector<LoopRange>& loops,
                                   uint64_t* unlined) {
  *unlined = 0;
  const CallgrindOutput& from = slice.output;
  const int ir = from.EventIndex("Ir");
  using Place = std::pair<std::string, uint32_t>;  // (file, line)
  // Each line's instructions, per innermost loop (-1: in none), and its inlined code's origins.
  struct Line {
    Place place;
    uint64_t instructions = 0;
    std::map<int, uint64_t> by_loop;
    std::map<std::string, uint64_t> inlined;
  };
  std::vector<Line> lines;
  std::map<Place, size_t> line_index;
  constexpr size_t kNoLine = SIZE_MAX;
  std::vector<size_t> site_line(from.sites.size(), kNoLine);
  for (size_t i = 0; i < from.sites.size() && i < slice.site_sources.size(); ++i) {
    const uint64_t cost = from.Cost(i, ir);
    const InstructionSite& site = from.sites[i];
    Place place;
    std::string inlined;
    std::optional<CodeLine> code;
    if (source_lines != nullptr && site.object < from.objects.size())
      code = source_lines->Find(from.objects[site.object], site.address);
    if (code) {
      place = {std::move(code->file), code->line};
      if (code->inlined_line > 0)
        inlined =
            std::string(BaseName(code->inlined_file)) + ":" + std::to_string(code->inlined_line);
    } else {
      const SiteSource& source = slice.site_sources[i];
      if (source.file == SiteSource::kUnnamed || source.line == 0 ||
          source.file >= whole.files.size()) {
        *unlined += cost;
        continue;
      }
      place = {whole.files[source.file], source.line};
    }
    auto [it, inserted] = line_index.emplace(place, lines.size());
    if (inserted) lines.push_back({std::move(place), 0, {}, {}});
    Line& line = lines[it->second];
    line.instructions += cost;
    std::optional<size_t> loop = InnermostLoop(loops, site.address);
    line.by_loop[loop ? static_cast<int>(*loop) : -1] += cost;
    if (!inlined.empty()) line.inlined[inlined] += cost;
    site_line[i] = it->second;
  }
  // Each line's group: the loop most of its instructions ran in (on a tie no loop, else the
  // first), or its own.
  std::map<int, std::vector<size_t>> loop_lines;
  std::vector<std::vector<size_t>> groups;
  for (size_t l = 0; l < lines.size(); ++l) {
    int loop = -1;
    uint64_t most = 0;
    for (const auto& [id, cost] : lines[l].by_loop)
      if (cost > most) loop = id, most = cost;
    if (loop < 0)
      groups.push_back({l});
    else
      loop_lines[loop].push_back(l);
  }
  // A group's place: the file of its heaviest line, from its first to its last line there.
  struct Range {
    std::string file;
    uint32_t first = UINT32_MAX, last = 0;
  };
  auto range_of = [&](const std::vector<size_t>& group) {
    size_t heaviest = group.front();
    for (size_t l : group)
      if (lines[l].instructions > lines[heaviest].instructions) heaviest = l;
    Range range{lines[heaviest].place.first};
    for (size_t l : group) {
      if (lines[l].place.first != range.file) continue;
      range.first = std::min(range.first, lines[l].place.second);
      range.last = std::max(range.last, lines[l].place.second);
    }
    return range;
  };
  // A "loop" over more lines than kMostLoopLines is no loop a user reads as one (an
  // interpreter's dispatch, jumping back from every case of its switch): its lines stay alone.
  for (auto& [loop, members] : loop_lines) {
    Range range = range_of(members);
    if (range.last - range.first < kMostLoopLines)
      groups.push_back(std::move(members));
    else
      for (size_t l : members) groups.push_back({l});
  }
  // Two groups at one place (a vector loop and its remainder loop on one line, a line alone
  // where a loop starts) are one.
  std::map<Place, size_t> slice_index;  // (file, first line) -> out[i]
  std::vector<LineSlice> out;
  std::vector<size_t> line_slice(lines.size(), 0);
  for (const std::vector<size_t>& group : groups) {
    const auto [file, first, last] = range_of(group);
    auto [it, inserted] = slice_index.emplace(Place{file, first}, out.size());
    if (inserted) {
      LineSlice entry;
      entry.file = file;
      entry.line = first;
      entry.output = CallgrindOutput::PartOf(from);
      out.push_back(std::move(entry));
    }
    LineSlice& entry = out[it->second];
    entry.last_line = std::max(entry.last_line, last);
    for (size_t l : group) {
      entry.lines.push_back(lines[l].place);
      line_slice[l] = it->second;
    }
  }
  // The sites in their order (sorted, as SimAnalyzer takes them), each to its line's entry.
  for (size_t i = 0; i < site_line.size(); ++i)
    if (site_line[i] != kNoLine) out[line_slice[site_line[i]]].output.AddSite(from, i);
  std::vector<std::map<std::string, uint64_t>> inlined(out.size());
  for (size_t l = 0; l < lines.size(); ++l)
    for (const auto& [origin, cost] : lines[l].inlined) inlined[line_slice[l]][origin] += cost;
  for (size_t k = 0; k < out.size(); ++k) {
    LineSlice& entry = out[k];
    // Each entry is complete: its totals are its cost lines' sums.
    entry.output.totals = entry.output.self_totals;
    std::sort(entry.lines.begin(), entry.lines.end());
    uint64_t most = 0;
    for (const auto& [origin, cost] : inlined[k])
      if (entry.inlined_from.empty() || cost > most) entry.inlined_from = origin, most = cost;
  }
  std::sort(out.begin(), out.end(), [](const LineSlice& a, const LineSlice& b) {
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
  return out;
}

bool AddHotLineMetrics(SimAnalyzer* analyzer, const CallgrindOutput& whole,
                       const FunctionSlice& slice, const std::string& function,
                       const std::string& sampled_name, const FunctionSamples* samples,
                       std::vector<Metric>* out, Error* err) {
  const std::string function_region = FunctionRegion(function);
  uint64_t unlined = 0;
  // The function's loops, from its executed code (the same object file SimAnalyzer decodes).
  std::vector<LoopRange> loops;
  ObjectCode code;
  // An object that cannot be read has no loops to find: its lines are reported without them.
  if (code.Open(slice.object, nullptr)) {
    std::vector<uint64_t> addresses;
    for (const InstructionSite& site : slice.output.sites) addresses.push_back(site.address);
    loops = FindLoops(addresses, [&](uint64_t address) { return code.CodeAt(address); });
  }
  SourceLines source_lines;
  std::vector<LineSlice> lines = SplitByLine(whole, slice, &source_lines, loops, &unlined);
  if (lines.empty()) {
    out->push_back({"hot_lines", std::nullopt, "count", Source::kSim, function_region,
                    "no line information: valgrind found no DWARF line table for " + slice.object +
                        " (stripped, or built without -g); the function's own counts stand"});
    return true;
  }
  std::vector<SimCounts> counts(lines.size());
  uint64_t function_instructions = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!analyzer->Analyze(lines[i].output, &counts[i], err)) return false;
    function_instructions += counts[i].instructions;
  }
  function_instructions += unlined;

  // The sampled lines of this function, matched to the sim's entries by file and line (a loop's
  // entry has several), else by file name and line: where the sim's line is valgrind's, valgrind
  // and libdw join a file to its directory differently (relative to the build directory, or
  // not), the file's own name and the line are what both say alike.
  std::vector<LineCandidate> candidates;
  std::vector<uint64_t> line_samples;  // per candidate, when sampled
  std::vector<bool> from_sim;
  for (size_t i = 0; i < lines.size(); ++i) {
    candidates.push_back({lines[i].file, lines[i].line, static_cast<double>(counts[i].flops()),
                          static_cast<double>(counts[i].instructions), std::nullopt});
    from_sim.push_back(true);
  }
  const bool sampled = samples != nullptr && samples->total > 0;
  std::string sampled_why_not;
  if (sampled) {
    line_samples.assign(candidates.size(), 0);
    sampled_why_not = WhyNoSampledLines(*samples, sampled_name);
    const std::vector<SampledLine> sampled_lines = SampledLinesOf(*samples, sampled_name);
    for (const auto& [file, line, count] : sampled_lines) {
      size_t match = candidates.size();
      for (size_t c = 0; c < lines.size() && match != c; ++c) {
        for (const auto& [sim_file, sim_line] : lines[c].lines) {
          if (sim_line != line) continue;
          if (sim_file == file) {
            match = c;
            break;
          }
          if (match == candidates.size() && BaseName(sim_file) == BaseName(file)) match = c;
        }
      }
      if (match == candidates.size()) {  // sampled, never executed under valgrind
        candidates.push_back({file, line, 0, 0, std::nullopt});
        from_sim.push_back(false);
        line_samples.push_back(0);
      }
      line_samples[match] += count;
    }
    // Without any line in the samples (no line table in the sampled module) no line has a
    // time: the selection then goes by FLOPs and instructions, as without sampling.
    if (!sampled_lines.empty())
      for (size_t c = 0; c < candidates.size(); ++c)
        candidates[c].time_share =
            static_cast<double>(line_samples[c]) / static_cast<double>(samples->total);
  }

  HotLineRule rule;
  std::vector<size_t> chosen = SelectHotLines(candidates, rule);
  for (size_t c : chosen) {
    const LineCandidate& line = candidates[c];
    std::string region = LineRegion(function, line.file, line.line);
    if (from_sim[c]) {
      const LineSlice& slice_line = lines[c];
      const bool range = slice_line.last_line > slice_line.line;
      std::string where =
          (range
               ? Format("the loop on lines %u-%u of %s in %s (its lines' time and counts as one)",
                        slice_line.line, slice_line.last_line, line.file.c_str(), function.c_str())
               : Format("line %u of %s in %s", line.line, line.file.c_str(), function.c_str())) +
          Format(": %.3g %% of the function's executed instructions",
                 function_instructions > 0
                     ? 100.0 * line.instructions / static_cast<double>(function_instructions)
                     : 0.0);
      if (!slice_line.inlined_from.empty())
        where += "; with code inlined from " + slice_line.inlined_from +
                 ", counted on its caller's line";
      AddSimMetrics(counts[c], region, /*split=*/false, out, where);
      if (range)
        out->push_back({"line_last", static_cast<double>(slice_line.last_line), "line",
                        Source::kSim, region, slice_line.file});
    }
    if (!sampled) continue;
    if (!line.time_share) {
      out->push_back({"time_share", std::nullopt, "1", Source::kClock, region,
                      "the samples of " + function + " have no line: " +
                          (sampled_why_not.empty() ? "no line information" : sampled_why_not)});
      continue;
    }
    uint64_t own = line_samples[c];
    std::string note = LineSamplesNote(own, samples->total);
    if (!from_sim[c]) note += "; the replay under valgrind never executed it: no sim counts";
    if (own == 0)
      out->push_back({"time_share", std::nullopt, "1", Source::kClock, region,
                      "no cpu-clock sample fell on this line (" + note + ")"});
    else
      out->push_back({"time_share", *line.time_share, "1", Source::kClock, region, note});
  }
  const bool timed = !candidates.empty() && candidates.front().time_share.has_value();
  size_t loops_shown = 0;
  for (const LineSlice& line : lines) loops_shown += line.last_line > line.line ? 1 : 0;
  std::string note = Format(
      "its hottest lines: the %d heaviest by %s and the %d heaviest by FLOPs (sim), of %zu "
      "lines executed (a loop's lines as one, its first to last line: %zu such); each under "
      "region ln:%s@FILE:LINE (a loop's first line); inlined code on its caller's line",
      rule.top, timed ? "sampled time" : "executed instructions (no line's time was sampled)",
      rule.top, lines.size(), loops_shown, function.c_str());
  if (unlined > 0)
    note +=
        Format("; %.3g %% of its executed instructions had no line (no debug line entry)",
               100.0 * static_cast<double>(unlined) / static_cast<double>(function_instructions));
  if (sampled && !timed && !sampled_why_not.empty()) note += "; no line time: " + sampled_why_not;
  out->push_back({"hot_lines", static_cast<double>(chosen.size()), "count", Source::kSim,
                  function_region, note});
  return true;
}

}  // namespace rprof
