#include "counters/sim_source.h"

#include <unistd.h>

#include <algorithm>

#include <climits>
#include <cstdio>

#include "counters/sim/callgrind_output.h"
#include "counters/sim/callgrind_runner.h"
#include "counters/sim/sim_counts.h"
#include "counters/sim/simtool_location.h"
#include "counters/pmu_diagnosis.h"
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
// power-of-two set count; a reported size, exact, is rounded down (never simulate more cache than
// the hardware says it has).
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
  if (first.level == 1) *d1 = Geometry(first, 8, sizes.l1d_bytes > 0);
  if (last.level > 1) *ll = Geometry(last, 16, sizes.llc_bytes > 0);
}

namespace {

// The inclusion policy of level `level` (2, 3, ...) on this CPU (cache_sim.h's CS_*).
std::string LevelPolicy(const Topology& t, int level) {
  if (level < 3) return "non-inclusive";
  if (t.vendor == "AuthenticAMD" || t.vendor == "HygonGenuine") return "victim";
  if (t.vendor != "GenuineIntel" || t.family != 6) return "non-inclusive";
  // Intel parts whose L3 does not include L2: Skylake-SP and later servers, Ice Lake client
  // and later clients; every earlier model's L3 is inclusive.
  static const int kNonInclusive[] = {85,  106, 108, 143, 207, 173, 174, 175, 125, 126, 140,
                                      141, 167, 151, 154, 183, 186, 191, 170, 172, 189, 197, 198};
  for (int m : kNonInclusive)
    if (t.model == m) return "non-inclusive";
  return "inclusive";
}

}  // namespace

std::vector<std::string> SimHierarchy(const CacheSizes& sizes) {
  Topology topology = ReadTopology();
  std::vector<CacheLevel> caches = DataCaches(topology);
  std::vector<std::string> out;
  for (size_t i = 0; i < caches.size() && i < 4; ++i) {
    CacheLevel c = caches[i];
    bool measured = false;
    if (i == 0 && sizes.l1d_bytes > 0) c.size_bytes = sizes.l1d_bytes, measured = true;
    if (i + 1 == caches.size() && i > 0 && sizes.llc_bytes > 0)
      c.size_bytes = sizes.llc_bytes, measured = true;
    else if (i == 1 && c.level == 2 && sizes.l2_bytes > 0)
      c.size_bytes = sizes.l2_bytes, measured = true;
    uint64_t line = c.line_bytes > 0 ? static_cast<uint64_t>(c.line_bytes) : 64;
    uint64_t ways = c.ways > 0 ? static_cast<uint64_t>(c.ways) : (i == 0 ? 8 : 16);
    double exact = static_cast<double>(c.size_bytes) / static_cast<double>(line * ways);
    uint64_t sets = measured ? static_cast<uint64_t>(exact + 0.5) : static_cast<uint64_t>(exact);
    if (sets == 0) sets = 1;
    std::string policy = i == 0 ? "non-inclusive" : LevelPolicy(topology, c.level);
    out.push_back(std::to_string(sets * ways * line) + "," + std::to_string(ways) + "," +
                  std::to_string(line) + "," + policy);
  }
  return out;
}

std::string SimBackend(bool* simtool) {
  std::string why;
  std::string path = SimtoolPath(&why);
  *simtool = !path.empty();
  return *simtool ? "rprofsim (" + path + ")" : "callgrind (fallback: " + why + ")";
}

std::string SimulatorName() {
  std::string why;
  return SimtoolPath(&why).empty() ? "callgrind" : "rprofsim";
}

bool ShouldRunSim(SimMode mode, double expected_s, double budget_s, const std::string& what_fits,
                  std::string* why) {
  if (mode == SimMode::kNever) return false;
  if (Availability sim = SimAvailability(); !sim.available) {
    *why = sim.Text();
    return false;
  }
  if (mode == SimMode::kAlways) return true;
  if (DiagnosePmu().hardware_counters) {
    *why = "this machine counts in hardware (pmu); --counters sim adds the simulation";
    return false;
  }
  if (expected_s > budget_s) {
    auto seconds = [](double s) {
      char text[32];
      std::snprintf(text, sizeof text, s < 1 ? "%.2g" : s < 10 ? "%.1f" : "%.0f", s);
      return std::string(text);
    };
    *why = "sim skipped: about " + seconds(expected_s) +
           " s expected under valgrind, over --sim-budget " + seconds(budget_s) + " s; ";
    *why += what_fits.empty() ? "--counters sim runs it anyway, or use a smaller size"
                              : what_fits + " (--counters sim runs it anyway)";
    return false;
  }
  return true;
}

namespace {

// Canonical metrics (source sim) of one collected part: the whole run (region "") or a region.
void AddSimMetrics(const SimCounts& counts, const std::string& region, std::vector<Metric>* out) {
  // Each metric's note: what it is here, then every caveat of the analysis that qualifies it.
  auto add = [&](const std::string& name, std::optional<double> value, const char* unit,
                 std::string note) {
    for (const SimCounts::Note& n : counts.notes)
      if (std::find(n.metrics.begin(), n.metrics.end(), name) != n.metrics.end())
        note += (note.empty() ? "" : "; ") + n.text;
    out->push_back({name, value, unit, Source::kSim, region, std::move(note)});
  };
  auto opt = [](const std::optional<uint64_t>& v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  std::string flop_note = DescribeFpMix(counts);
  add("instructions", static_cast<double>(counts.instructions), "count", "");
  add("flops", static_cast<double>(counts.flops()), "FLOP", flop_note);
  add("flops_dp", static_cast<double>(counts.flops_dp), "FLOP", "");
  add("flops_sp", static_cast<double>(counts.flops_sp), "FLOP", "");
  const char* widths[] = {"scalar", "128", "256", "512"};
  for (int w = 0; w < kVectorWidthCount; ++w) {
    if (counts.flops_dp > 0)
      add(std::string("flops_dp_") + widths[w], static_cast<double>(counts.flops_dp_by_width[w]),
          "FLOP", "");
    if (counts.flops_sp > 0)
      add(std::string("flops_sp_") + widths[w], static_cast<double>(counts.flops_sp_by_width[w]),
          "FLOP", "");
  }
  add("bytes_l1", static_cast<double>(counts.bytes_l1()), "B", "");
  add("l1d_misses", opt(counts.l1d_misses), "count", "");
  add("llc_misses", opt(counts.llc_misses), "count", "");
  add("bytes_l2", opt(counts.bytes_l2), "B", "");
  if (!counts.cache.levels.empty()) {  // rprofsim: levels callgrind does not simulate
    if (counts.cache.levels.size() > 2) add("l2_misses", opt(counts.l2_misses), "count", "");
    add("bytes_l3", opt(counts.bytes_l3), "B", "");
  }
  add("bytes_dram", opt(counts.bytes_dram), "B", "");
}

bool Analyze(const std::vector<std::string>& files, SimCounts* counts, std::string* why) {
  CallgrindOutput output;
  return ReadCallgrindOutputFiles(files, &output, why) && ComputeSimCounts(output, counts, why);
}

constexpr std::string_view kRegionTrigger = "Client Request: rprof-region:";

// Whether `path` is a file whose first bytes are "#!".
bool IsScript(const std::string& path) {
  char magic[2] = {};
  FILE* f = path.empty() ? nullptr : std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  size_t n = std::fread(magic, 1, sizeof magic, f);
  std::fclose(f);
  return n == 2 && magic[0] == '#' && magic[1] == '!';
}

}  // namespace

bool RunSim(const SimRequest& request, SimResult* result, Error* err) {
  CallgrindOptions options;
  std::string why;
  options.simtool = SimtoolPath(&why);
  if (!request.prefetch.empty() && request.prefetch != "none" && options.simtool.empty())
    return Fail(err, ErrorKind::kEnvironment,
                "sim: --sim-prefetch " + request.prefetch +
                    " needs rprofsim, rprof's valgrind tool (callgrind has no prefetch model): " +
                    why);
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
  // A script (pyenv's python3, ./run.sh) is its interpreter's process: valgrind must follow the
  // exec the kernel makes for it, and the exec'd program's counts replace the wrapper's (same
  // pid, same output file). The program's own children are then followed too: their outputs
  // are kept apart, never added to the run's.
  if (IsScript(request.argv.empty() ? "" : FindExecutable(request.argv[0])))
    options.extra_valgrind_args.push_back("--trace-children=yes");
  if (request.per_region) {
    // The marker library must be active (its results file is not needed: /dev/null) and tell
    // valgrind where regions begin and end.
    options.env = {{"RPROF_MARKER_SIM", "1"}, {"RPROF_MARKER_OUT", "/dev/null"},
                   {"RPROF_MARKER_EVENTS", ""}};
  }
  options.timeout_s = request.timeout_s;
  CallgrindRun run;
  bool ran = RunUnderCallgrind(request.argv, options, &run, &why);
  auto cleanup = [&] {
    std::string ignored;
    RemoveCallgrindRun(run, &ignored);
  };
  if (!ran) {
    cleanup();
    return Fail(err, ErrorKind::kEnvironment, "sim: " + why);
  }
  result->wall_s = run.wall_s;
  result->exit_code = run.exited ? run.exit_code : 128 + run.term_signal;
  result->log_tail = run.log_tail;

  SimCounts counts;
  if (!Analyze(run.output_files, &counts, &why)) {
    cleanup();
    return Fail(err, ErrorKind::kEnvironment, "sim: valgrind output: " + why);
  }
  result->fp_mix = DescribeFpMix(counts);
  AddSimMetrics(counts, "", &result->metrics);

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
        if (it == regions.end()) regions.push_back({name, {file}});
        else it->second.push_back(file);
        break;
      }
    }
    for (const auto& [name, files] : regions) {
      SimCounts region_counts;
      if (!Analyze(files, &region_counts, &why)) {
        cleanup();
        return Fail(err, ErrorKind::kEnvironment,
                    "sim: callgrind output of region " + name + ": " + why);
      }
      AddSimMetrics(region_counts, name, &result->metrics);
    }
  }
  cleanup();
  return true;
}

}  // namespace rprof
