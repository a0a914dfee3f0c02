#include "counters/sim/line_counts.h"

#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "core/text.h"
#include "functions/hot_functions.h"
#include "functions/hot_lines.h"
#include "functions/sampled_time.h"

namespace rprof {

std::vector<LineSlice> SplitByLine(const CallgrindOutput& whole, const FunctionSlice& slice,
                                   uint64_t* unlined) {
  std::vector<LineSlice> lines;
  *unlined = 0;
  const CallgrindOutput& from = slice.output;
  const int ir = from.EventIndex("Ir");
  std::map<std::pair<uint32_t, uint32_t>, size_t> index;  // (file, line) -> lines[i]
  for (size_t i = 0; i < from.sites.size() && i < slice.site_sources.size(); ++i) {
    const SiteSource& source = slice.site_sources[i];
    if (source.file == SiteSource::kUnnamed || source.line == 0 ||
        source.file >= whole.files.size()) {
      *unlined += from.Cost(i, ir);
      continue;
    }
    auto [it, inserted] = index.emplace(std::make_pair(source.file, source.line), lines.size());
    if (inserted) {
      LineSlice line;
      line.file = whole.files[source.file];
      line.line = source.line;
      line.output = CallgrindOutput::PartOf(from);
      lines.push_back(std::move(line));
    }
    lines[it->second].output.AddSite(from, i);
  }
  // Each line is complete: its totals are its cost lines' sums.
  for (LineSlice& line : lines) line.output.totals = line.output.self_totals;
  return lines;
}

namespace {

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool AddHotLineMetrics(SimAnalyzer* analyzer, const CallgrindOutput& whole,
                       const FunctionSlice& slice, const std::string& function,
                       const std::string& sampled_name, const FunctionSamples* samples,
                       std::vector<Metric>* out, std::string* why) {
  const std::string function_region = FunctionRegion(function);
  uint64_t unlined = 0;
  std::vector<LineSlice> lines = SplitByLine(whole, slice, &unlined);
  if (lines.empty()) {
    out->push_back({"hot_lines", std::nullopt, "count", Source::kSim, function_region,
                    "no line information: valgrind found no DWARF line table for " + slice.object +
                        " (stripped, or built without -g); the function's own counts stand"});
    return true;
  }
  std::vector<SimCounts> counts(lines.size());
  uint64_t function_instructions = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!analyzer->Analyze(lines[i].output, &counts[i], why)) return false;
    function_instructions += counts[i].instructions;
  }
  function_instructions += unlined;

  // The sampled lines of this function, matched to the sim's by file name and line: valgrind
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
      for (size_t c = 0; c < lines.size(); ++c) {
        if (candidates[c].line != line) continue;
        if (candidates[c].file == file) {
          match = c;
          break;
        }
        if (match == candidates.size() && BaseName(candidates[c].file) == BaseName(file)) match = c;
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
      std::string where =
          Format("line %u of %s in %s: %.3g %% of the function's executed instructions", line.line,
                 line.file.c_str(), function.c_str(),
                 function_instructions > 0
                     ? 100.0 * line.instructions / static_cast<double>(function_instructions)
                     : 0.0);
      AddSimMetrics(counts[c], region, /*split=*/false, out, where);
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
  std::string note = Format(
      "its hottest lines: the %d heaviest by %s and the %d heaviest by FLOPs (sim), of %zu "
      "lines executed; each under region ln:%s@FILE:LINE",
      rule.top, timed ? "sampled time" : "executed instructions (no line's time was sampled)",
      rule.top, lines.size(), function.c_str());
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
