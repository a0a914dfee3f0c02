#include "counters/sim_source.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/text.h"
#include "counters/pmu_diagnosis.h"
#include "counters/sim/callgrind_output.h"
#include "counters/sim/callgrind_runner.h"
#include "counters/sim/function_counts.h"
#include "counters/sim/line_counts.h"
#include "counters/sim/sim_counts.h"
#include "counters/sim/simtool_location.h"
#include "counters/sim_cache_sizes.h"
#include "functions/hot_functions.h"
#include "functions/replay_coverage.h"
#include "functions/sampled_time.h"
#include "machine/topology.h"

namespace rprof {

Availability SimAvailability() {
  if (FindExecutable("valgrind").empty())
    return {false, "valgrind not found",
            "install the Debian package valgrind (apt-get install valgrind)"};
  if (access(SimRunnerPath().c_str(), X_OK) != 0)
    return {false, "rprof-sim-runner not found next to rprof (" + SimRunnerPath() + ")",
            "rebuild rprof"};
  return {};
}

std::string SimRunnerPath() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = ".";
  if (n > 0) {
    self[n] = '\0';
    dir = self;
    dir = dir.substr(0, dir.rfind('/'));
  }
  return dir + "/rprof-sim-runner";
}

namespace {

// `nearest`: a measured size, which is only as exact as the sweep's steps, goes to the nearest
// power-of-two set count; a reported or given size, exact, is rounded down (never simulate more
// cache than the hardware or the user says there is).
std::string Geometry(const CacheLevel& c, int default_ways, bool nearest) {
  uint64_t line = c.line_bytes > 0 ? static_cast<uint64_t>(c.line_bytes) : 64;
  uint64_t ways = c.ways > 0 ? static_cast<uint64_t>(c.ways) : static_cast<uint64_t>(default_ways);
  uint64_t sets = c.size_bytes / (line * ways);
  if (sets == 0) return "";
  uint64_t pow2 = 1;
  while (pow2 * 2 <= sets) pow2 *= 2;
  if (nearest && static_cast<double>(sets) / static_cast<double>(pow2) > 1.5) pow2 *= 2;
  return std::to_string(pow2 * ways * line) + "," + std::to_string(ways) + "," +
         std::to_string(line);
}

}  // namespace

void SimGeometry(const CacheSizes& sizes, std::string* d1, std::string* ll) {
  std::vector<CacheLevel> caches = DataCaches(ReadTopology());
  d1->clear();
  ll->clear();
  if (caches.empty()) return;
  CacheLevel first = caches.front(), last = caches.back();
  if (sizes.l1d_bytes > 0) first.size_bytes = sizes.l1d_bytes;
  if (sizes.llc_bytes > 0) last.size_bytes = sizes.llc_bytes;
  // A measured size goes to the nearest set count; a reported or given one, down.
  if (first.level == 1) *d1 = Geometry(first, 8, sizes.l1d_bytes > 0 && !sizes.l1d_given);
  if (last.level > 1) *ll = Geometry(last, 16, sizes.llc_bytes > 0 && !sizes.llc_given);
}

std::vector<std::string> SimHierarchy(const CacheSizes& sizes) {
  std::vector<std::string> out;
  for (const SimCacheRecord& c : SimCacheGeometry(ReadTopology(), sizes))
    out.push_back(std::to_string(c.size_bytes) + "," + std::to_string(c.ways) + "," +
                  std::to_string(c.line_bytes) + "," + c.inclusion);
  return out;
}

std::string SimBackend(bool* simtool) {
  Error why;
  std::string path = SimtoolPath(&why);
  *simtool = !path.empty();
  return *simtool ? "rprofsim (" + path + ")" : "callgrind (fallback: " + why.message + ")";
}

std::string SimulatorName() { return SimtoolPath(nullptr).empty() ? "callgrind" : "rprofsim"; }

bool ShouldRunSim(SimMode mode, double expected_s, double budget_s, const std::string& what_fits,
                  Error* err) {
  if (mode == SimMode::kNever) return false;
  if (Availability sim = SimAvailability(); !sim.available)
    return Fail(err, ErrorKind::kEnvironment, sim.Text());
  if (mode == SimMode::kAlways) return true;
  if (DiagnosePmu().hardware_counters)
    return Fail(err, ErrorKind::kEnvironment,
                "this machine counts in hardware (pmu); --counters sim adds the simulation");
  if (expected_s > budget_s) {
    auto seconds = [](double s) {
      char text[32];
      std::snprintf(text, sizeof text, s < 1 ? "%.2g" : s < 10 ? "%.1f" : "%.0f", s);
      return std::string(text);
    };
    return Fail(err, ErrorKind::kEnvironment,
                "sim skipped: about " + seconds(expected_s) +
                    " s expected under valgrind, over --sim-budget " + seconds(budget_s) + " s; " +
                    (what_fits.empty() ? "--counters sim runs it anyway, or use a smaller size"
                                       : what_fits + " (--counters sim runs it anyway)"));
  }
  return true;
}

namespace {

// `analyzer` keeps what it decoded: a run's parts (whole run, regions, threads' shares) decode
// each instruction once.
bool Analyze(SimAnalyzer* analyzer, const std::vector<std::string>& files, SimCounts* counts,
             Error* err) {
  CallgrindOutput output;
  return ReadCallgrindOutputFiles(files, &output, err) && analyzer->Analyze(output, counts, err);
}

constexpr std::string_view kRegionTrigger = "Client Request: rprof-region:";

// The hot functions of the whole run's `output` (rprofsim with --rprofsim-functions=yes, or
// callgrind): each chosen one's metrics as a region's (FunctionRegion), plus where its code is
// (line_first / line_last, their note the file; the instructions' note the object and how it
// was named). Without sampling, instructions stand for time in choosing them (said).
// Natively hot functions the replay never ran (functions/replay_coverage.h) are said on
// `region` ("" for the whole run).
bool AddFunctionMetrics(SimAnalyzer* analyzer, const CallgrindOutput& output, int top,
                        const FunctionSamples* samples, double native_time_s,
                        const std::string& region_of_output, std::vector<Metric>* out, Error* err) {
  bool sampled = samples != nullptr && samples->total > 0 && native_time_s > 0;
  auto samples_of = [&](const FunctionSlice& slice) {
    return SamplesOf(*samples, slice.object, slice.name);
  };
  std::vector<FunctionSlice> slices = SplitByFunction(output);
  std::vector<SimCounts> counts(slices.size());
  std::vector<FunctionCandidate> candidates(slices.size());
  for (size_t i = 0; i < slices.size(); ++i) {
    if (!analyzer->Analyze(slices[i].output, &counts[i], err)) return false;
    candidates[i] = {slices[i].name, static_cast<double>(counts[i].instructions),
                     static_cast<double>(counts[i].flops()), std::nullopt};
    if (sampled)
      candidates[i].time_share =
          static_cast<double>(samples_of(slices[i])) / static_cast<double>(samples->total);
  }
  if (sampled) {
    std::vector<std::string> replayed;
    for (const FunctionSlice& slice : slices) replayed.push_back(slice.name);
    std::vector<MissedFunction> missed = NativelyHotNotReplayed(*samples, replayed);
    if (!missed.empty()) out->push_back(ReplayMissingMetric(missed, region_of_output));
  }
  HotFunctionRule rule;
  rule.top = top;
  std::vector<std::string> used;
  int ir = output.EventIndex("Ir");
  double total = ir < 0 ? 0 : static_cast<double>(output.self_totals[static_cast<size_t>(ir)]);
  for (size_t i : SelectHotFunctions(candidates, rule)) {
    const FunctionSlice& slice = slices[i];
    std::string name = UniqueFunctionName(slice.name, slice.object, &used);
    std::string region = FunctionRegion(name);
    std::string where =
        (slice.named ? "function " + slice.name + " in " : "code without a symbol in ") +
        slice.object +
        (slice.named ? " (its symbol)"
                     : ": named by its module and start address (its unwind-table entry)") +
        Format("; %.3g %% of the run's executed instructions",
               total > 0 ? 100.0 * static_cast<double>(counts[i].instructions) / total : 0.0) +
        "; inlined code is counted in the function it was inlined into" +
        (sampled ? "" : "; chosen by its share of the instructions (no time was sampled)");
    AddSimMetrics(counts[i], region, /*split=*/true, out, where);
    if (sampled) AddSampledTime(*samples, samples_of(slice), native_time_s, region, out);
    if (slice.first_line > 0) {
      out->push_back({"line_first", static_cast<double>(slice.first_line), "line", Source::kSim,
                      region, slice.file});
      out->push_back({"line_last", static_cast<double>(slice.last_line), "line", Source::kSim,
                      region, slice.file});
    }
    if (!AddHotLineMetrics(analyzer, output, slice, name, slice.name, sampled ? samples : nullptr,
                           out, err))
      return false;
  }
  return true;
}

// Whether `path` is a file whose first bytes are "#!".
bool IsScript(const std::string& path) {
  char magic[2] = {};
  FILE* f = path.empty() ? nullptr : std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  size_t n = std::fread(magic, 1, sizeof magic, f);
  std::fclose(f);
  return n == 2 && magic[0] == '#' && magic[1] == '!';
}

// A thread whose share of a region's FLOPs (of its instructions, when it has none) is at least
// this fraction of the busiest thread's did the region's work: it counts for the region's roof.
// Below it: a thread that only waited (a spinning OpenMP worker, the main thread joining a
// pool). Relative to the busiest, not to the whole: 64 threads sharing evenly all count.
constexpr double kWorkingShare = 0.1;

std::string Percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100 * fraction);
  return text;
}

// rprofsim keeps each thread's share of a region in a file of its own: the threads that did the
// region's work (metric `threads`, source sim, which chooses the region's roof), every share in
// its note, and on `flops` the share of threads that never entered the region.
bool AddThreadShares(SimAnalyzer* analyzer, const std::string& region,
                     const std::vector<std::string>& files, const SimCounts& whole,
                     std::vector<Metric>* out, Error* err) {
  struct Share {
    std::string thread;
    bool entered = true;
    SimCounts counts;
  };
  std::vector<Share> shares;
  for (const std::string& file : files) {
    CallgrindOutput output;
    Share share;
    if (!ReadCallgrindOutputFiles({file}, &output, err) ||
        !analyzer->Analyze(output, &share.counts, err))
      return false;
    if (output.region_threads.size() != 1) return true;  // not rprofsim's per-thread files
    const std::string& text = output.region_threads.front();
    share.thread = text.substr(0, text.find(' '));
    share.entered = text.find("did not enter") == std::string::npos;
    shares.push_back(std::move(share));
  }
  bool by_flops = whole.flops() > 0;
  auto work = [&](const SimCounts& c) {
    return static_cast<double>(by_flops ? c.flops() : c.instructions);
  };
  double total = work(whole), busiest = 0;
  for (const Share& share : shares) busiest = std::max(busiest, work(share.counts));
  int working = 0;
  double outside = 0;  // the share of threads that never entered the region
  std::string listed;
  for (const Share& share : shares) {
    double fraction = total > 0 ? work(share.counts) / total : 0;
    if (busiest > 0 && work(share.counts) >= kWorkingShare * busiest) ++working;
    if (!share.entered) outside += fraction;
    listed += (listed.empty() ? "" : ", ") + std::string("thread ") + share.thread + " " +
              Percent(fraction) + (share.entered ? "" : " (never entered the region)");
  }
  if (shares.empty()) return true;
  std::string note = "threads that did the region's work (each at least " + Percent(kWorkingShare) +
                     " of the busiest one's " + (by_flops ? "FLOPs" : "instructions") +
                     "; every thread counted while the region was open in any): " + listed;
  out->push_back(
      {"threads", static_cast<double>(std::max(1, working)), "count", Source::kSim, region, note});
  if (outside > 0)
    for (Metric& m : *out)
      if (m.region == region && m.source == Source::kSim && m.name == "flops")
        m.note += (m.note.empty() ? "" : "; ") + Percent(outside) +
                  " ran on threads that never entered the region (counted: the region was open)";
  return true;
}

}  // namespace

std::string ReplayFailure(const SimResult& result) {
  std::string what;
  if (!result.valgrind_error.empty())
    what = "valgrind failed: " + result.valgrind_error;
  else if (result.term_signal != 0)
    what = "the replay under valgrind was killed by signal " + std::to_string(result.term_signal) +
           " (" + strsignal(result.term_signal) + ")";
  else if (result.exit_code != 0)
    what = "the replay under valgrind exited with status " + std::to_string(result.exit_code);
  if (what.empty()) return "";
  what += ", so its counts are not the program's and none are kept";
  // The program's last words, else valgrind's (a crash report, its own message).
  std::string tail = result.output_tail;
  std::string from = "its standard error";
  if (tail.empty() && !result.log_tail.empty()) {
    tail = result.log_tail;
    from = "valgrind's log";
    if (tail.size() > kOutputTailBytes) tail.erase(0, tail.size() - kOutputTailBytes);
  }
  // One line in the run's note: the lines joined with " | ".
  std::string joined;
  for (size_t start = 0; start < tail.size();) {
    size_t end = tail.find('\n', start);
    std::string line = tail.substr(start, end == std::string::npos ? end : end - start);
    size_t first = line.find_first_not_of(" \t\r"), last = line.find_last_not_of(" \t\r");
    if (first != std::string::npos)
      joined += (joined.empty() ? "" : " | ") + line.substr(first, last - first + 1);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return what + (joined.empty() ? "; it wrote nothing" : "; " + from + " ends: " + joined);
}

bool RunSim(const SimRequest& request, SimResult* result, Error* err) {
  CallgrindOptions options;
  Error no_simtool;
  options.simtool = SimtoolPath(&no_simtool);
  if (!request.prefetch.empty() && request.prefetch != "none" && options.simtool.empty())
    return Fail(err, ErrorKind::kEnvironment,
                "sim: --sim-prefetch " + request.prefetch +
                    " needs rprofsim, rprof's valgrind tool (callgrind has no prefetch model): " +
                    no_simtool.message);
  if (!options.simtool.empty() && !request.levels.empty()) {
    for (const std::string& level : request.levels)
      options.extra_valgrind_args.push_back("--cache=" + level);
    if (!request.prefetch.empty())
      options.extra_valgrind_args.push_back("--sim-prefetch=" + request.prefetch);
  } else if (!options.simtool.empty()) {
    // No hierarchy known (no sysfs): rprofsim's own default geometry, said in the notes.
  } else {
    if (!request.d1.empty()) options.extra_valgrind_args.push_back("--D1=" + request.d1);
    if (!request.ll.empty()) options.extra_valgrind_args.push_back("--LL=" + request.ll);
    // Dirty LL evictions are DRAM writes: without them every store's line is counted coming in
    // but never going out, and a streaming store kernel reads 3/4 of its DRAM traffic (found by
    // rprof calibrate --counters sim on triad).
    options.extra_valgrind_args.push_back("--simulate-wb=yes");
  }
  if (request.collect_from_start) options.extra_valgrind_args.push_back("--collect-atstart=yes");
  // Each instruction's function and line, looked up when its block is translated (callgrind
  // writes them always).
  if (request.functions > 0 && !options.simtool.empty())
    options.extra_valgrind_args.push_back("--rprofsim-functions=yes");
  // A script (pyenv's python3, ./run.sh) is its interpreter's process: valgrind must follow the
  // exec the kernel makes for it, and the exec'd program's counts replace the wrapper's (same
  // pid, same output file). The program's own children are then followed too: their outputs
  // are kept apart, never added to the run's.
  if (IsScript(request.argv.empty() ? "" : FindExecutable(request.argv[0])))
    options.extra_valgrind_args.push_back("--trace-children=yes");
  if (request.per_region) {
    // The marker library must be active (its results file is not needed: /dev/null) and tell
    // valgrind where regions begin and end.
    options.env = {
        {"RPROF_MARKER_SIM", "1"}, {"RPROF_MARKER_OUT", "/dev/null"}, {"RPROF_MARKER_EVENTS", ""}};
  }
  options.timeout_s = request.timeout_s;
  options.discard_output = request.discard_output;
  CallgrindRun run;
  Error why;
  bool ran = RunUnderCallgrind(request.argv, options, &run, &why);
  // What is left behind when a file cannot be removed changes nothing of the run's outcome.
  auto cleanup = [&] { (void)RemoveCallgrindRun(run, nullptr); };
  if (!ran) {
    cleanup();
    return Fail(err, ErrorKind::kEnvironment, "sim: " + why.message);
  }
  result->wall_s = run.wall_s;
  result->exit_code = run.exited ? run.exit_code : 128 + run.term_signal;
  result->term_signal = run.exited ? 0 : run.term_signal;
  result->log_tail = run.log_tail;
  result->valgrind_error = run.valgrind_error;
  result->output_tail = run.output_tail;
  // A replay that failed gives no counts: what it counted is not the program's work.
  if (std::string failure = ReplayFailure(*result); !failure.empty()) {
    cleanup();
    return Fail(err, ErrorKind::kEnvironment, "sim: " + failure);
  }

  SimAnalyzer analyzer;
  SimCounts counts;
  CallgrindOutput whole;
  if (!ReadCallgrindOutputFiles(run.output_files, &whole, &why) ||
      !analyzer.Analyze(whole, &counts, &why)) {
    cleanup();
    return Fail(err, ErrorKind::kEnvironment, "sim: valgrind output: " + why.message);
  }
  result->fp_mix = DescribeFpMix(counts);
  AddSimMetrics(counts, "", /*split=*/true, &result->metrics);
  if (request.functions > 0 && request.functions_region.empty() &&
      !AddFunctionMetrics(&analyzer, whole, request.functions, request.samples,
                          request.native_time_s, "", &result->metrics, &why)) {
    cleanup();
    return Fail(err, ErrorKind::kEnvironment, "sim: valgrind output, by function: " + why.message);
  }

  if (request.per_region && (!options.simtool.empty() || run.output_files.size() > 1)) {
    // Group the files by the region they are of (callgrind: whose end dumped them).
    std::vector<std::pair<std::string, std::vector<std::string>>> regions;
    for (const std::string& file : run.region_output_files) {
      CallgrindOutput part;
      if (!ReadCallgrindOutputFiles({file}, &part, &why)) continue;
      for (const std::string& trigger : part.triggers) {
        if (trigger.rfind(kRegionTrigger, 0) != 0) continue;
        std::string name = trigger.substr(kRegionTrigger.size());
        auto it = std::find_if(regions.begin(), regions.end(),
                               [&](const auto& r) { return r.first == name; });
        if (it == regions.end())
          regions.push_back({name, {file}});
        else
          it->second.push_back(file);
        break;
      }
    }
    for (const auto& [name, files] : regions) {
      SimCounts region_counts;
      if (!Analyze(&analyzer, files, &region_counts, &why)) {
        cleanup();
        return Fail(err, ErrorKind::kEnvironment,
                    "sim: callgrind output of region " + name + ": " + why.message);
      }
      AddSimMetrics(region_counts, name, /*split=*/true, &result->metrics);
      // The hot functions of this region alone (a benchmark's timed loop): its own output split
      // by function, as the whole run's is.
      if (request.functions > 0 && name == request.functions_region) {
        CallgrindOutput region_output;
        if (!ReadCallgrindOutputFiles(files, &region_output, &why) ||
            !AddFunctionMetrics(&analyzer, region_output, request.functions, request.samples,
                                request.native_time_s, name, &result->metrics, &why)) {
          cleanup();
          return Fail(err, ErrorKind::kEnvironment,
                      "sim: valgrind output of region " + name + ", by function: " + why.message);
        }
      }
      if (options.simtool.empty())
        for (Metric& m : result->metrics)
          if (m.region == name && m.name == "flops")
            m.note += std::string(m.note.empty() ? "" : "; ") +
                      "callgrind (the fallback) counts every thread between region boundaries "
                      "but keeps no thread's share: the threads that did the work are not known, "
                      "the region's roof is that of the threads that entered it";
      if (!options.simtool.empty() &&
          !AddThreadShares(&analyzer, name, files, region_counts, &result->metrics, &why)) {
        cleanup();
        return Fail(err, ErrorKind::kEnvironment,
                    "sim: rprofsim output of region " + name + ": " + why.message);
      }
    }
  }
  cleanup();
  return true;
}

std::string SimIsaLimit(const Topology& topology) {
  if (!topology.isa.avx512f) return "";
  return "this CPU has AVX-512, which valgrind 3.19 cannot execute: sim refuses programs built "
         "with -march=native or -mavx512f, and libraries that choose their code at run time "
         "(OpenBLAS, glibc, NumPy) run AVX2 code under sim where they run AVX-512 natively";
}

}  // namespace rprof
