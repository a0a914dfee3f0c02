#include "functions/sampled_time.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/text.h"
#include "functions/hot_lines.h"

namespace rprof {

namespace {

// The binomial standard error of `own` of `total` samples, relative to the share; infinite for
// none.
double ShareError(uint64_t own, uint64_t total) {
  if (own == 0 || total == 0) return INFINITY;
  double p = static_cast<double>(own) / static_cast<double>(total);
  return std::sqrt((1 - p) / (p * static_cast<double>(total)));
}

// The run-level off_cpu_share, once per `out`, where the program was mostly off the CPU
// (kMostlyOffCpu): the functions' times are CPU time, and their rates hold while they ran;
// said once for the run, not per function.
void AddOffCpuShare(const FunctionSamples& samples, double native_time_s,
                    std::vector<Metric>* out) {
  if (FindMetric(*out, "off_cpu_share", Source::kClock) || !(native_time_s > 0) ||
      samples.total == 0)
    return;
  double threads = static_cast<double>(std::max<uint64_t>(1, samples.threads));
  uint64_t executions = std::max<uint64_t>(1, samples.executions);
  double cpu_s =
      static_cast<double>(samples.total) * samples.period_s / static_cast<double>(executions);
  double wall_s = native_time_s;
  std::string from = "sampled";
  // The run's own clock where it is in `out` (the time profile alone): CPU time from rusage,
  // kernel time included whatever perf_event_paranoid allows.
  const Metric* cpu = FindMetric(*out, "cpu_time_s", Source::kClock);
  const Metric* wall = FindMetric(*out, "time_s", Source::kClock);
  if (cpu && cpu->value && wall && wall->value && *wall->value > 0) {
    cpu_s = *cpu->value;
    wall_s = *wall->value;
    from = "measured";
  }
  double utilized = cpu_s / wall_s;
  if (utilized >= kMostlyOffCpu * threads) return;
  double off = std::clamp(1 - utilized / threads, 0.0, 1.0);
  out->push_back(
      {"off_cpu_share", off, "1", Source::kClock, "",
       Format("mostly off the CPU: %.2f CPUs utilized (%s CPU time %.3g s / wall time %.3g s "
              "per execution) with %.0f thread%s sampled, off the CPU %.0f %% of the time "
              "(asleep, waiting for I/O, a lock or a child, or for a CPU on a loaded machine); "
              "each function's time is "
              "the CPU time it had, so its rate is while it ran, and the run's wall time is "
              "mostly waiting, which no roof measures",
              utilized, from.c_str(), cpu_s, wall_s, threads, threads == 1 ? "" : "s", 100 * off)});
}

}  // namespace

void AddSampledTime(const FunctionSamples& samples, uint64_t own, double native_time_s,
                    const std::string& region, std::vector<Metric>* out) {
  AddOffCpuShare(samples, native_time_s, out);
  double n = static_cast<double>(samples.total);
  double p = static_cast<double>(own) / n;
  uint64_t executions = std::max<uint64_t>(1, samples.executions);
  double cpu_s = static_cast<double>(own) * samples.period_s / static_cast<double>(executions);
  std::string note = Format(
      "%llu cpu-clock samples x %.3g ms over %llu execution%s: the CPU time it had per "
      "execution, each thread's counted (two threads in it at once count twice), not a share "
      "of the wall time; ±%.2g %% (1/√samples); %llu of the run's %llu samples (±%.2g %% of "
      "that share, binomial standard error of the share)",
      static_cast<unsigned long long>(own), samples.period_s * 1e3,
      static_cast<unsigned long long>(executions), executions == 1 ? "" : "s",
      own > 0 ? 100 / std::sqrt(static_cast<double>(own)) : 0.0,
      static_cast<unsigned long long>(own), static_cast<unsigned long long>(samples.total),
      own > 0 ? 100 * ShareError(own, samples.total) : 0.0);
  if (samples.lost > 0)
    note += Format("; %llu samples lost (the ring buffer was full): times may be short",
                   static_cast<unsigned long long>(samples.lost));
  note += samples.user_only
              ? "; user CPU time only (perf_event_paranoid kept kernel code unsampled)"
              : "; its time in kernel code (system calls, page faults) is [kernel]'s";
  if (own == 0) {
    out->push_back({"time_s", std::nullopt, "s", Source::kClock, region,
                    "no cpu-clock sample fell in this function (" + note + ")"});
    return;
  }
  // A handful of samples is no time: one sample of a 1 ms kernel put numpy's sgemm at 132 % of
  // its roof. The share is kept (it is what was seen), the time and so the rate are not.
  if (own < kFewestSamplesForRate) {
    out->push_back({"time_s", std::nullopt, "s", Source::kClock, region,
                    Format("%llu samples: too few for a rate (under %llu): ",
                           static_cast<unsigned long long>(own),
                           static_cast<unsigned long long>(kFewestSamplesForRate)) +
                        note + "; a longer execution, or -r N executions, gives more"});
    out->push_back({"time_share", p, "1", Source::kClock, region, note});
    return;
  }
  out->push_back({"time_s", cpu_s, "s", Source::kClock, region, note});
  out->push_back({"time_share", p, "1", Source::kClock, region, note});
}

std::vector<SampledLine> SampledLinesOf(const FunctionSamples& samples,
                                        const std::string& function) {
  std::vector<SampledLine> lines;
  for (auto it = samples.by_line.lower_bound({function, "", 0});
       it != samples.by_line.end() && std::get<0>(it->first) == function; ++it)
    lines.push_back({std::get<1>(it->first), std::get<2>(it->first), it->second});
  return lines;
}

std::string WhyNoSampledLines(const FunctionSamples& samples, const std::string& function) {
  auto why = samples.line_why_not.find(function);
  return why == samples.line_why_not.end() ? "" : why->second;
}

std::string LineSamplesNote(uint64_t own, uint64_t total) {
  return Format(
      "%llu of the run's %llu cpu-clock samples fell on this line (a share of the run's CPU "
      "time, as its function's time_share)",
      static_cast<unsigned long long>(own), static_cast<unsigned long long>(total));
}

void AddSampledLines(const FunctionSamples& samples, const std::string& function,
                     const std::string& shown_as, std::vector<Metric>* out) {
  const std::vector<SampledLine> sampled = SampledLinesOf(samples, function);
  const std::string function_region = FunctionRegion(shown_as);
  if (sampled.empty()) {
    std::string why = WhyNoSampledLines(samples, function);
    out->push_back(
        {"hot_lines", std::nullopt, "count", Source::kClock, function_region,
         "no sample of it has a source line: " + (why.empty() ? "no line information" : why)});
    return;
  }
  std::vector<LineCandidate> candidates;
  for (const SampledLine& line : sampled)
    candidates.push_back({line.file, line.line, 0, 0,
                          static_cast<double>(line.samples) / static_cast<double>(samples.total)});
  HotLineRule rule;
  std::vector<size_t> chosen = SelectHotLines(candidates, rule);
  for (size_t c : chosen)
    out->push_back({"time_share", candidates[c].time_share, "1", Source::kClock,
                    LineRegion(shown_as, sampled[c].file, sampled[c].line),
                    LineSamplesNote(sampled[c].samples, samples.total)});
  out->push_back(
      {"hot_lines", static_cast<double>(chosen.size()), "count", Source::kClock, function_region,
       Format("its hottest lines: the %d heaviest by sampled time, of %zu lines sampled; each "
              "under region ln:%s@FILE:LINE; no FLOPs or bytes per line: no source here counts "
              "them (--counters sim does)",
              rule.top, sampled.size(), function.c_str())});
}

bool HasShareOfItsOwn(uint64_t own, uint64_t total) {
  return ShareError(own, total) <= kMostRelativeError;
}

bool HasLineShares(uint64_t own, uint64_t total) {
  return HasShareOfItsOwn(own, total) && own >= kFewestSamplesForLines;
}

bool IsSampledFunction(const std::string& name) { return !name.empty() && name.front() != '['; }

uint64_t SamplesOf(const FunctionSamples& samples, std::string_view object,
                   const std::string& name) {
  const auto& counts = samples.by_module_function;
  const auto& by_name = samples.by_function;
  if (counts.empty()) {
    auto it = by_name.find(name);
    return it == by_name.end() ? 0 : it->second;
  }
  auto it = counts.find({std::string(BaseName(object)), name});
  return it == counts.end() ? 0 : it->second;
}

void AddSampledFunctions(const FunctionSamples& samples, double native_time_s,
                         const HotFunctionRule& rule, std::vector<Metric>* out) {
  if (samples.total == 0 || !(native_time_s > 0)) return;
  AddOffCpuShare(samples, native_time_s, out);
  // Each (module, function) the sampler kept, else each function by name.
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& [key, count] : samples.by_module_function) keys.push_back(key);
  if (keys.empty())
    for (const auto& [name, count] : samples.by_function) keys.push_back({"", name});
  std::vector<FunctionCandidate> candidates;
  std::vector<uint64_t> own;
  std::vector<std::string> modules;
  for (const auto& [module, name] : keys) {
    uint64_t count = SamplesOf(samples, module, name);
    // Too few samples for a time: seen, not hot (nothing else about it is known here).
    if (!IsSampledFunction(name) || !HasShareOfItsOwn(count, samples.total)) continue;
    FunctionCandidate c;
    c.name = name;
    c.time_share = static_cast<double>(count) / static_cast<double>(samples.total);
    candidates.push_back(std::move(c));
    own.push_back(count);
    modules.push_back(module);
  }
  std::vector<std::string> used;
  for (size_t i : SelectHotFunctions(candidates, rule)) {
    std::string name = UniqueFunctionName(candidates[i].name, modules[i], &used);
    std::string region = FunctionRegion(name);
    size_t first = out->size();
    AddSampledTime(samples, own[i], native_time_s, region, out);
    for (size_t k = first; k < out->size(); ++k)
      (*out)[k].note += std::string("; ") + kTimeProfileOnly;
    AddSampledLines(samples, candidates[i].name, name, out);
  }
}

}  // namespace rprof
