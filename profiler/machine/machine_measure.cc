#include "machine/machine_measure.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "core/text.h"
#include "machine/bandwidth.h"
#include "machine/clock.h"
#include "machine/compute_peak.h"
#include "machine/hierarchy.h"
#include "machine/huge_buffer.h"
#include "machine/isa.h"
#include "machine/latency.h"
#include "machine/level_sizes.h"
#include "machine/profile_trust.h"
#include "machine/system_load.h"
#include "machine/thread_team.h"

namespace rprof {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

// How long and how finely each mode measures.
struct Plan {
  double clock_rep_s;
  int clock_reps;
  double compute_rep_s;
  int compute_reps;
  int bw_steps_per_octave;
  double bw_rep_s;
  int bw_reps;
  bool bw_full_sweeps;      // every pattern over the whole sweep (else only on the plateaus)
  int bw_points_per_level;  // quick: points per plateau the other patterns run at
  int bw_dram_points;       // the largest working sets each pattern runs at on DRAM's plateau
  int lat_steps_per_octave;
  double lat_rep_s;
  int lat_reps;
  uint64_t sweep_cap;  // 0: none
};

Plan PlanFor(const std::string& mode, double scale) {
  Plan p;
  // Many short repetitions rather than a few long ones: the best repetition is the ceiling, and
  // on a shared machine a 2 ms repetition often escapes the other processes' time slices where a
  // 10 ms one never does.
  if (mode == "full") {
    // Issue 25's goal is 20 s on 2 quiet cores (it took 46 s, then 26 s). Fewer repetitions
    // (compute 12, bandwidth 8, latency 5): the ceiling is the best repetition, and on a quiet
    // machine the best of 8 short ones is within the spread of the best of 15; on a busy one, the
    // spread re-measurement stands in. Copy and triad are swept at every other load point
    // (BandwidthFor): the load sweep places the levels, the other patterns need their shape.
    // Repetitions as short as quick's (2 ms, latency 3): with 5 ms ones the Intel Xeon guest took
    // 29.9 s (its sysfs L3 of 480 MiB sends the sweeps to 2 GiB), with 2 ms ones 15.4 s, the same
    // ceilings (1 thread: fp64 AVX-512 FMA 104-114 GFLOP/s, L1 load 409-456, DRAM load 15.2-16.1
    // GB/s, over three profiles each). Full mode is the denser grid and the larger counts.
    p = {0.002, 50, 0.002, 12, 4, 0.002, 8, true, 0, 3, 4, 0.003, 5, 0};
  } else {
    // Quick: 5 s. Each ceiling is still the best of several 2 ms repetitions, taken in two
    // rounds (compute), and measured again when no other repetition confirms the best.
    p = {0.001, 20, 0.002, 8, 2, 0.002, 6, false, 3, 2, 2, 0.003, 3, 512 * kMiB};
  }
  p.clock_rep_s *= scale;
  p.compute_rep_s *= scale;
  p.bw_rep_s *= scale;
  p.lat_rep_s *= scale;
  return p;
}

class Measurer {
 public:
  Measurer(const MachineMeasureOptions& opts, MachineProfile* out) : opts_(opts), out_(out) {}
  bool Run(Error* err);

 private:
  bool Cancelled(Error* err) {
    if (opts_.cancel != nullptr && opts_.cancel->load()) {
      Fail(err, ErrorKind::kTargetFailed, "interrupted");
      return true;
    }
    return false;
  }
  void Progress(const std::string& what) {
    if (opts_.progress) opts_.progress(what, std::min(1.0, done_ / std::max(1.0, total_)));
  }
  bool Settle(Error* err);
  bool Clock(Error* err);
  bool Compute(Error* err);
  bool BandwidthFor(int threads, Error* err);
  // The <level>_load_scalar ceiling of a cache level the widest load sweep found.
  bool ScalarLoadCeiling(const DetectedLevel& level, int threads, Error* err);
  bool Latency(Error* err);
  void Levels();
  void Warnings(const CompetingLoad& load);
  std::vector<uint64_t> ReportedSizes(int threads) const;

  const MachineMeasureOptions& opts_;
  MachineProfile* out_;
  Plan plan_{};
  std::unique_ptr<ThreadTeam> team_;
  // Every sweep's memory, kept from one sweep to the next (the latency sweep chases through
  // worker 0's): each page is mapped and zeroed once per measurement, not once per sweep.
  BandwidthBuffers buffers_;
  // The working set at which the 1-thread load sweep found DRAM's plateau established (0: it
  // did not): the latency sweep need not go further to read DRAM's latency.
  uint64_t bw_dram_end_ = 0;
  int n_ = 1;            // the all-threads count
  uint64_t max_ws_ = 0;  // sweep end
  bool reached_memory_ = true;
  // Sweeps stop at the first working set from this one on where the last three points agree
  // within kDramPlateauFlatness (DRAM's plateau is established): SweepEnded.
  uint64_t stop_from_ = 0;
  bool quick_capped_ = false;    // quick mode stopped the sweep before 4x the last-level cache
  double done_ = 0, total_ = 1;  // progress, in measurements
  std::map<int, std::vector<DetectedLevel>> bw_levels_;  // by thread count
  std::vector<DetectedLevel> lat_levels_;
  bool settled_quiet_ = false;  // Settle saw other processes use under kNoisyCompetingCpus
  int remeasured_ = 0;          // measurements repeated: their best was not confirmed
};

// CPU seconds this process used so far, all threads: unlike wall time, it hardly grows when
// other processes share the CPUs, so it says where the time goes even on a busy machine.
double ProcessCpuSeconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The last three points of a sweep within this factor of each other: a plateau.
constexpr double kDramPlateauFlatness = 1.10;

// True when the sweep so far (working sets ascending) has reached `stop_from` and its last three
// points make a plateau: DRAM's, since no cache holds a working set that large. The points past
// it would only cost time (the largest are the slowest to flush, warm and chase through).
bool SweepEnded(const std::vector<CurvePoint>& curve, uint64_t stop_from) {
  if (stop_from == 0 || curve.size() < 3 || curve.back().working_set_bytes < stop_from)
    return false;
  double lo = curve.back().value, hi = lo;
  for (size_t i = curve.size() - 3; i < curve.size(); ++i) {
    lo = std::min(lo, curve[i].value);
    hi = std::max(hi, curve[i].value);
  }
  return hi <= kDramPlateauFlatness * lo;
}

// Spread of a set of repetitions (higher is better), percent.
double SpreadOf(const std::vector<double>& rates) {
  return Summarize(rates, /*higher_is_better=*/true).spread_pct;
}

bool Measurer::Settle(Error* err) {
  if (opts_.settle_max_s <= 0) return true;
  const double start = NowSeconds();
  double first = -1, busy = 0;
  for (;;) {
    // A quarter second tells a quiet machine from one where a quarter CPU is busy (/proc/stat
    // counts in 10 ms ticks: 50 of them on 2 CPUs); the run's own activity is measured again
    // over the whole measurement (Warnings).
    CpuActivity before = ReadCpuActivity();
    for (int i = 0; i < 5; ++i) {
      if (Cancelled(err)) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    CompetingLoad c = Competition(before, ReadCpuActivity());
    if (!c.valid) return true;  // no /proc/stat: nothing to wait on
    busy = c.other_cpus;
    if (first < 0) first = busy;
    if (busy < kNoisyCompetingCpus) break;
    const double waited = NowSeconds() - start;
    if (waited >= opts_.settle_max_s) break;
    Progress(
        Format("waiting for other processes to quiet down: %.1f CPUs busy (%.0f of at most "
               "%.0f s)",
               busy, waited, opts_.settle_max_s));
  }
  settled_quiet_ = busy < kNoisyCompetingCpus;
  const double waited = NowSeconds() - start;
  if (first < kNoisyCompetingCpus) return true;
  if (settled_quiet_) {
    out_->warnings.push_back(
        Format("waited %.0f s for other processes to quiet down (%.1f CPUs "
               "busy at first) before measuring",
               waited, first));
  } else {
    out_->warnings.push_back(
        Format("other processes still used %.1f CPUs after waiting %.0f s "
               "for them to quiet down: measured under load — rerun on a "
               "quiet machine",
               busy, waited));
  }
  return true;
}

std::vector<uint64_t> Measurer::ReportedSizes(int threads) const {
  std::vector<uint64_t> sizes;
  for (const CacheLevel& c : DataCaches(out_->topology)) {
    sizes.push_back(AggregateCacheBytes(out_->topology, c.level, threads));
  }
  return sizes;
}

bool Measurer::Run(Error* err) {
  const double t_start = NowSeconds();
  if (opts_.mode != "quick" && opts_.mode != "full") {
    Fail(err, ErrorKind::kUsage, "mode must be quick or full, not '" + opts_.mode + "'");
    return false;
  }
  plan_ = PlanFor(opts_.mode, opts_.time_scale > 0 ? opts_.time_scale : 1.0);
  out_->mode = opts_.mode;
  out_->topology = ReadTopology();
  out_->fingerprint = Fingerprint(out_->topology);
  const Topology& topo = out_->topology;

  // Threads: one per physical core that the affinity mask allows, unless asked otherwise.
  const int usable = static_cast<int>(topo.cpu_order.size());
  if (usable < 1) {
    Fail(err, ErrorKind::kEnvironment, "no CPU to run on (empty affinity mask?)");
    return false;
  }
  int cores = std::max(1, std::min(usable, topo.physical_cores));
  n_ = opts_.threads == 0 ? cores : opts_.threads;
  if (n_ < 1 || n_ > usable) {
    Fail(err, ErrorKind::kUsage,
         Format("threads must be 1..%d (the CPUs this process may run on), not %d", usable,
                opts_.threads));
    return false;
  }
  out_->threads = n_;
  std::vector<int> cpus(topo.cpu_order.begin(), topo.cpu_order.begin() + n_);
  team_ = ThreadTeam::Start(cpus, err);
  if (!team_) return false;

  // Options are valid: wait for the machine to quiet down, then take the load as it starts.
  if (!Settle(err)) return false;
  out_->load_average_before = ReadLoadAverage();
  CpuActivity activity_before = ReadCpuActivity();

  // The 1-minute average lags: after Settle saw the machine quiet, a high one is the past.
  if (out_->load_average_before >= 0.5 && !settled_quiet_) {
    out_->warnings.push_back(
        Format("load average %.2f before measuring: other processes were running; ceilings may be "
               "low — rerun on a quiet machine",
               out_->load_average_before));
  }

  // Sweep range: 4x the last-level cache (all instances the N threads reach), at least 256 MiB
  // (a VM's CPUs may sit on more L3s than sysfs says), within a third of the available memory
  // (the 1-thread and N-thread buffers live together).
  std::vector<uint64_t> reported = ReportedSizes(n_);
  uint64_t llc = reported.empty() ? 0 : reported.back();
  uint64_t want = std::max<uint64_t>(256 * kMiB, 4 * llc);
  if (opts_.max_working_set_bytes > 0) want = opts_.max_working_set_bytes;
  max_ws_ = want;
  uint64_t avail = AvailableMemoryBytes();
  if (avail > 0 && max_ws_ > avail / 3) {
    max_ws_ = std::max<uint64_t>(4 * kMiB, avail / 3);
    out_->warnings.push_back(Format(
        "only %s of memory available: working sets capped at %s instead of %s (4x the "
        "last-level cache); the DRAM ceilings are measured there",
        FormatBytes(avail).c_str(), FormatBytes(max_ws_).c_str(), FormatBytes(want).c_str()));
  }
  // Quick mode's cap, but never short of 2x the reported last-level cache: a sweep that stops
  // sooner cannot tell its last plateau is DRAM (a VM that reports its host's 480 MiB L3 showed
  // none at 512 MiB: the cache it gets still served part of every chunk there).
  const uint64_t cap = std::max(plan_.sweep_cap, 2 * llc);
  if (opts_.max_working_set_bytes == 0 && plan_.sweep_cap > 0 && max_ws_ > cap) {
    out_->warnings.push_back(
        Format("quick mode: working sets capped at %s instead of %s (4x the reported last-level "
               "cache); --full sweeps the whole range",
               FormatBytes(cap).c_str(), FormatBytes(max_ws_).c_str()));
    max_ws_ = cap;
    quick_capped_ = true;
  }
  // The last plateau is DRAM when the sweep went well past the reported last-level cache.
  reached_memory_ = llc == 0 || max_ws_ >= 2 * llc;
  // Sweeps may stop once DRAM's plateau is established, past 4x the reported last-level cache
  // and 128 MiB (a VM whose CPUs sit on more L3 than sysfs says still shows it as a plateau
  // before that: the three points that end the sweep must be DRAM's).
  if (llc > 0) stop_from_ = std::max<uint64_t>(128 * kMiB, 4 * llc);
  uint64_t most_per_thread = 0;
  for (BandwidthPattern p : {BandwidthPattern::kLoad, BandwidthPattern::kCopy,
                             BandwidthPattern::kTriad, BandwidthPattern::kCopyNt})
    most_per_thread = std::max(most_per_thread, BandwidthBytesPerThread(p, 1, max_ws_));
  buffers_.set_growth_limit(std::max(most_per_thread, max_ws_));
  // One memory node (or none that sysfs knows of): every worker streams a slice of one buffer.
  buffers_.set_shared(topo.memory_nodes <= 1);

  // Rough measurement counts, for the progress fraction only.
  int isas = static_cast<int>(UsableIsas(topo.isa).size());
  int thread_counts = n_ > 1 ? 2 : 1;
  double octaves = std::log2(static_cast<double>(max_ws_) / (16.0 * kKiB));
  total_ = 2 + (opts_.measure_compute ? 2 * isas * 3 * thread_counts : 0) +
           (opts_.measure_bandwidth ? thread_counts * octaves * plan_.bw_steps_per_octave *
                                          (plan_.bw_full_sweeps ? 3.5 : 1.5)
                                    : 0) +
           (opts_.measure_latency ? octaves * plan_.lat_steps_per_octave : 0);

  double phase_start = t_start, phase_cpu = ProcessCpuSeconds();
  auto phase_done = [&](const std::string& name) {
    const double now = NowSeconds(), cpu = ProcessCpuSeconds();
    out_->phase_seconds.push_back({name, now - phase_start});
    out_->phase_cpu_seconds.push_back(cpu - phase_cpu);
    phase_start = now;
    phase_cpu = cpu;
  };
  phase_done("start and settle");
  if (!Clock(err)) return false;
  phase_done("clock");
  if (opts_.measure_compute && !Compute(err)) return false;
  phase_done("compute");
  if (opts_.measure_bandwidth) {
    if (!BandwidthFor(1, err)) return false;
    phase_done("bandwidth 1 thread");
    if (n_ > 1 && !BandwidthFor(n_, err)) return false;
    if (n_ > 1) phase_done(Format("bandwidth %d threads", n_));
  }
  if (opts_.measure_latency && !Latency(err)) return false;
  phase_done("latency");
  buffers_.Release();
  team_.reset();
  Levels();
  CompetingLoad competing = Competition(activity_before, ReadCpuActivity());
  Warnings(competing);
  out_->noisy_reasons = ProfileNoiseReasons(*out_, competing.valid ? competing.other_cpus : -1);
  out_->seconds = NowSeconds() - t_start;
  if (opts_.progress) opts_.progress("done", 1.0);
  return true;
}

bool Measurer::Clock(Error* err) {
  if (Cancelled(err)) return false;
  Progress("clock, 1 thread");
  ClockOptions co;
  co.seconds_per_rep = plan_.clock_rep_s;
  co.repetitions = plan_.clock_reps;
  ClockResult r;
  if (!MeasureScalarClock(*team_, co, &r, err)) return false;
  out_->clock_ghz_scalar = r.ghz.best;
  ++done_;
  if (Cancelled(err)) return false;
  Progress(Format("clock under vector load, %d threads", n_));
  Error why;
  if (MeasureVectorClock(*team_, out_->topology.isa, n_, co, &r, &why)) {
    out_->clock_ghz_vector = r.ghz.best;
  } else {
    out_->warnings.push_back("no vector-load clock: " + why.message);
  }
  ++done_;
  return true;
}

bool Measurer::Compute(Error* err) {
  const IsaFlags& flags = out_->topology.isa;
  struct Job {
    Precision precision;
    Isa isa;
    FlopOp op;
    int threads;
    std::string name;
    std::vector<double> rates;  // every repetition of every round, GFLOP/s
    uint64_t iterations = 0;    // as the first measurement calibrated them
  };
  std::vector<Job> jobs;
  std::vector<int> counts{1};
  if (n_ > 1) counts.push_back(n_);
  for (int threads : counts) {
    for (Precision precision : {Precision::kFp64, Precision::kFp32}) {
      for (Isa isa : UsableIsas(flags)) {
        for (FlopOp op : {FlopOp::kFma, FlopOp::kMulAdd, FlopOp::kAdd}) {
          if (op == FlopOp::kFma && !IsaFmaUsable(flags, isa)) continue;
          jobs.push_back(
              {precision,
               isa,
               op,
               threads,
               std::string(PrecisionName(precision)) + "_" + IsaName(isa) + "_" + FlopOpName(op),
               {}});
        }
      }
    }
  }
  auto measure = [&](Job& j, int repetitions) -> bool {
    if (Cancelled(err)) return false;
    Progress(Format("compute %s %s %s, %d thread%s", PrecisionName(j.precision), IsaName(j.isa),
                    FlopOpName(j.op), j.threads, j.threads > 1 ? "s" : ""));
    ComputePeakOptions o;
    o.isa = j.isa;
    o.precision = j.precision;
    o.op = j.op;
    o.threads = j.threads;
    o.seconds_per_rep = plan_.compute_rep_s;
    o.repetitions = repetitions;
    o.iterations = j.iterations;  // calibrated once, by the first round
    ComputePeakResult r;
    if (!MeasureComputePeak(*team_, flags, o, &r, err)) return false;
    j.iterations = r.iterations_per_thread;
    j.rates.insert(j.rates.end(), r.rates.begin(), r.rates.end());
    return true;
  };
  auto best = [](const Job& j) { return *std::max_element(j.rates.begin(), j.rates.end()); };

  // Two rounds over the whole grid, half the repetitions each: every ceiling's repetitions are
  // spread over seconds rather than milliseconds, so that a disturbance lasting a while (a busy
  // SMT sibling of this virtual CPU in the host, another process) does not decide it alone.
  const int half = std::max(1, plan_.compute_reps / 2);
  for (int round = 0; round < 2; ++round) {
    for (Job& j : jobs) {
      if (!measure(j, half)) return false;
      done_ += 0.5;
    }
  }
  // Register-only kernels on distinct cores scale with the thread count (less only by the
  // all-core clock). Far below that, another process held one of the CPUs for the whole
  // measurement: measure again, twice at most, after a pause.
  std::map<std::string, double> single;  // 1-thread best by name
  for (const Job& j : jobs) {
    if (j.threads == 1) single[j.name] = best(j);
  }
  for (Job& j : jobs) {
    if (j.threads == 1) continue;
    const double one = single[j.name];
    for (int retry = 0; retry < 2 && best(j) < 0.6 * j.threads * one; ++retry) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (!measure(j, half)) return false;
    }
    if (best(j) < 0.6 * j.threads * one) {
      out_->warnings.push_back(
          Format("%s on %d threads reached only %.1fx its 1-thread rate: a CPU was busy with "
                 "something else",
                 j.name.c_str(), j.threads, best(j) / one));
    }
  }
  // A large spread: something disturbed some repetitions. Measure once more after a pause, and
  // keep whichever set of repetitions varied less.
  for (Job& j : jobs) {
    if (BestConfirmed(Summarize(j.rates, /*higher_is_better=*/true))) continue;
    std::vector<double> first = std::move(j.rates);
    j.rates.clear();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!measure(j, 2 * half)) return false;
    if (SpreadOf(j.rates) >= SpreadOf(first)) j.rates = std::move(first);
    ++remeasured_;
  }
  for (const Job& j : jobs) {
    RepStats stats = Summarize(j.rates, /*higher_is_better=*/true);
    Ceiling c;
    c.kind = "compute";
    c.name = j.name;
    c.isa = IsaName(j.isa);
    c.precision = PrecisionName(j.precision);
    c.pattern = FlopOpName(j.op);
    c.threads = j.threads;
    c.value = stats.best;
    c.unit = "GFLOP/s";
    c.spread_pct = stats.spread_pct;
    c.repetitions = stats.repetitions;
    c.best_confirmed = BestConfirmed(stats);
    out_->ceilings.push_back(c);
  }
  return true;
}

bool Measurer::BandwidthFor(int threads, Error* err) {
  const IsaFlags& flags = out_->topology.isa;
  const Isa isa = WidestIsa(flags);
  const uint64_t from = 16 * kKiB * static_cast<uint64_t>(threads);
  // The all-threads curve is swept at half the 1-thread density (quick: one point an octave,
  // full: two): the 1-thread sweep and the latency sweep already place the levels; this curve
  // only has to show each plateau (two points at least) for its ceilings.
  const int steps =
      threads > 1 ? std::max(1, plan_.bw_steps_per_octave / 2) : plan_.bw_steps_per_octave;
  std::vector<uint64_t> sizes = GeometricSizes(from, std::max(from, max_ws_), steps);
  BandwidthBuffers& buffers = buffers_;
  // Map the slices the sweep is expected to reach once, up front: no remapping (and page
  // faulting) inside the sweep. A sweep that goes further grows them.
  uint64_t expected_end = sizes.back();
  for (uint64_t ws : sizes)
    if (stop_from_ > 0 && ws >= stop_from_) {
      expected_end = ws;
      break;
    }
  uint64_t need = 0;
  for (BandwidthPattern p :
       {BandwidthPattern::kLoad, BandwidthPattern::kCopy, BandwidthPattern::kTriad}) {
    need = std::max(need, BandwidthBytesPerThread(p, threads, expected_end));
  }
  if (!buffers.Reserve(*team_, threads, need, err)) return false;

  // Results by (pattern, working set as requested).
  std::map<std::pair<BandwidthPattern, uint64_t>, BandwidthResult> results;
  auto options = [&](BandwidthPattern pattern, uint64_t ws, Isa with) {
    BandwidthOptions o;
    o.pattern = pattern;
    o.isa = with;
    o.threads = threads;
    o.working_set_bytes = ws;
    o.seconds_per_rep = plan_.bw_rep_s;
    o.repetitions = plan_.bw_reps;
    return o;
  };
  auto measure = [&](BandwidthPattern pattern, uint64_t ws, bool again = false) -> bool {
    if (results.count({pattern, ws}) && !again) return true;
    if (Cancelled(err)) return false;
    Progress(Format("bandwidth %s %s, %d thread%s", PatternName(pattern), FormatBytes(ws).c_str(),
                    threads, threads > 1 ? "s" : ""));
    BandwidthResult r;
    if (!MeasureBandwidth(*team_, &buffers, flags, options(pattern, ws, isa), &r, err))
      return false;
    if (again) {
      // Measured again for its spread: the steadier of the two stands, in the sweep too.
      BandwidthResult& old = results[{pattern, ws}];
      if (r.gbs.spread_pct >= old.gbs.spread_pct) return true;
      for (BandwidthPoint& p : out_->bandwidth)
        if (p.pattern == PatternName(pattern) && p.threads == threads &&
            p.working_set_bytes == old.working_set_bytes)
          p = {PatternName(pattern), threads, r.working_set_bytes, r.gbs.best, r.gbs.spread_pct};
      old = r;
      return true;
    }
    results[{pattern, ws}] = r;
    out_->bandwidth.push_back(
        {PatternName(pattern), threads, r.working_set_bytes, r.gbs.best, r.gbs.spread_pct});
    ++done_;
    return true;
  };

  // 1. The load sweep, and the levels on it.
  std::vector<CurvePoint> curve;
  for (uint64_t ws : sizes) {
    if (!measure(BandwidthPattern::kLoad, ws)) return false;
    curve.push_back({ws, results[{BandwidthPattern::kLoad, ws}].gbs.best});
    if (SweepEnded(curve, stop_from_)) {
      if (threads == 1) bw_dram_end_ = ws;
      break;
    }
  }
  sizes.resize(curve.size());  // the other patterns stay on the measured part
  HierarchyOptions ho;
  ho.higher_is_better = true;
  ho.reported_sizes = ReportedSizes(threads);
  ho.reached_memory = reached_memory_;
  std::vector<DetectedLevel> levels;
  if (!DetectHierarchy(curve, ho, &levels, err)) return false;
  bw_levels_[threads] = levels;

  // 2. The other patterns: everywhere (full) or on a few points of each plateau (quick).
  std::vector<BandwidthPattern> others{BandwidthPattern::kCopy, BandwidthPattern::kTriad};
  auto on_level = [&](const DetectedLevel& level) {
    std::vector<uint64_t> pts;
    for (uint64_t ws : sizes) {
      if (ws >= level.first_size && ws <= level.last_size) pts.push_back(ws);
    }
    if (level.name == "dram") {
      // DRAM: the three largest working sets, and none under twice the last-level cache the
      // threads reach (while one remains). At the start of the plateau some of the data still
      // comes from the caches (more so with several threads, whose caches add up, and in VMs
      // whose CPUs sit on different L3s), and the best point would be there.
      std::vector<uint64_t> reported = ReportedSizes(threads);
      const uint64_t beyond = reported.empty() ? 0 : 2 * reported.back();
      std::vector<uint64_t> far;
      for (uint64_t ws : pts)
        if (ws >= beyond) far.push_back(ws);
      if (!far.empty()) pts = far;
      const size_t k = static_cast<size_t>(plan_.bw_dram_points);
      if (pts.size() > k) return std::vector<uint64_t>(pts.end() - static_cast<long>(k), pts.end());
      return pts;
    }
    if (plan_.bw_full_sweeps || static_cast<int>(pts.size()) <= plan_.bw_points_per_level) {
      return pts;
    }
    // Quick: the points around the best load point.
    size_t at = std::find(pts.begin(), pts.end(), level.best_size) - pts.begin();
    if (at >= pts.size()) at = pts.size() / 2;
    size_t k = static_cast<size_t>(plan_.bw_points_per_level);
    size_t first = at >= k / 2 ? at - k / 2 : 0;
    first = std::min(first, pts.size() - k);
    return std::vector<uint64_t>(pts.begin() + static_cast<long>(first),
                                 pts.begin() + static_cast<long>(first + k));
  };
  if (plan_.bw_full_sweeps) {
    // Every other load point (and the last): the curve's shape at half the density; the
    // plateaus' own points are measured below whatever this skipped.
    for (BandwidthPattern p : others) {
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (i % 2 == 1 && i + 1 != sizes.size()) continue;
        if (!measure(p, sizes[i])) return false;
      }
    }
  }
  for (const DetectedLevel& level : levels) {
    std::vector<BandwidthPattern> patterns{BandwidthPattern::kLoad, BandwidthPattern::kCopy,
                                           BandwidthPattern::kTriad};
    if (level.name == "dram") patterns.push_back(BandwidthPattern::kCopyNt);
    for (BandwidthPattern p : patterns) {
      const BandwidthResult* best = nullptr;
      uint64_t best_ws = 0;
      for (uint64_t ws : on_level(level)) {
        if (!measure(p, ws)) return false;
        const BandwidthResult& r = results[{p, ws}];
        if (best == nullptr || r.gbs.best > best->gbs.best) best = &r, best_ws = ws;
      }
      if (best == nullptr) continue;
      if (!BestConfirmed(best->gbs)) {
        if (!measure(p, best_ws, /*again=*/true)) return false;
        ++remeasured_;
      }
      // Copy and triad through a cache may stream faster with the narrower vectors: 32-byte
      // vectors beat 64-byte ones through L2 on the Intel Xeon guest (triad 133 against 122
      // GB/s, as likwid-bench's stream_avx against stream_avx512). Measured with AVX2 too at the
      // ceiling's point, where AVX-512 is the widest; the faster stands, with its ISA.
      Isa ceiling_isa = isa;
      BandwidthResult narrower;
      if (isa == Isa::kAvx512 && level.name != "dram" &&
          (p == BandwidthPattern::kCopy || p == BandwidthPattern::kTriad)) {
        if (Cancelled(err)) return false;
        if (!MeasureBandwidth(*team_, &buffers, flags, options(p, best_ws, Isa::kAvx2), &narrower,
                              err))
          return false;
        if (narrower.gbs.best > best->gbs.best) best = &narrower, ceiling_isa = Isa::kAvx2;
      }
      Ceiling c;
      c.kind = "bandwidth";
      c.name = level.name + "_" + PatternName(p);
      c.level = level.name;
      c.isa = IsaName(ceiling_isa);
      c.precision = "fp64";
      c.pattern = PatternName(p);
      c.threads = threads;
      c.working_set_bytes = best->working_set_bytes;
      c.value = best->gbs.best;
      c.unit = "GB/s";
      c.spread_pct = best->gbs.spread_pct;
      c.repetitions = best->gbs.repetitions;
      c.best_confirmed = BestConfirmed(best->gbs);
      // Both conventions from the one measurement: the same kernel moved this many more bytes
      // per element beyond L1 (core-L1 traffic is the instructions' own bytes).
      c.bytes_per_element = PatternBytesPerElement(p);
      c.traffic_bytes_per_element =
          c.bytes_per_element + (level.name == "l1" ? 0 : PatternWriteAllocateBytesPerElement(p));
      out_->ceilings.push_back(c);
    }
    if (level.name != "dram" && !ScalarLoadCeiling(level, threads, err)) return false;
  }
  return true;
}

bool Measurer::ScalarLoadCeiling(const DetectedLevel& level, int threads, Error* err) {
  // The roof of scalar code (placement holds code measured scalar against it): a cache port
  // that loads two 64-byte vectors a cycle loads two 8-byte scalars, so in L1 scalar code sees
  // an eighth of the AVX-512 load roof; beyond L1 the lines' refill rate limits both widths, the
  // scalar loads' cap still below it on most cores: measured at every cache level, not assumed.
  // At the working set where the widest load was best on this level's plateau: one point,
  // which keeps --quick's added time small.
  // Not at DRAM: there each line's 64 bytes cross from memory whatever the load width, and a
  // scalar loop issues loads far faster than lines arrive, so the widths meet at one roof.
  // Not in the sweep points (out_->bandwidth), which are the widest kernels' curves.
  Progress(Format("bandwidth scalar load %s, %d thread%s", FormatBytes(level.best_size).c_str(),
                  threads, threads > 1 ? "s" : ""));
  BandwidthOptions o;
  o.pattern = BandwidthPattern::kLoad;
  o.isa = Isa::kScalar;
  o.threads = threads;
  o.working_set_bytes = level.best_size;
  o.seconds_per_rep = plan_.bw_rep_s;
  o.repetitions = plan_.bw_reps;
  const IsaFlags& flags = out_->topology.isa;
  BandwidthResult r;
  if (Cancelled(err) || !MeasureBandwidth(*team_, &buffers_, flags, o, &r, err)) return false;
  if (!BestConfirmed(r.gbs)) {
    // As for the other ceilings: once more, the steadier of the two stands.
    BandwidthResult again;
    if (!MeasureBandwidth(*team_, &buffers_, flags, o, &again, err)) return false;
    if (again.gbs.spread_pct < r.gbs.spread_pct) r = again;
    ++remeasured_;
  }
  ++done_;
  Ceiling c;
  c.kind = "bandwidth";
  c.name = level.name + "_" + PatternName(o.pattern) + "_" + IsaName(o.isa);
  c.level = level.name;
  c.isa = IsaName(o.isa);
  c.precision = "fp64";
  c.pattern = PatternName(o.pattern);
  c.threads = threads;
  c.working_set_bytes = r.working_set_bytes;
  c.value = r.gbs.best;
  c.unit = "GB/s";
  c.spread_pct = r.gbs.spread_pct;
  c.repetitions = r.gbs.repetitions;
  c.best_confirmed = BestConfirmed(r.gbs);
  c.bytes_per_element = PatternBytesPerElement(o.pattern);  // loads: no write-allocate bytes
  c.traffic_bytes_per_element = c.bytes_per_element;
  out_->ceilings.push_back(c);
  return true;
}

bool Measurer::Latency(Error* err) {
  std::vector<uint64_t> sizes =
      GeometricSizes(16 * kKiB, std::max(16 * kKiB, max_ws_), plan_.lat_steps_per_octave);
  // Mapped up front for where the sweep is expected to end (it grows if the sweep goes on).
  uint64_t expected_end = sizes.back();
  for (uint64_t ws : sizes)
    if (stop_from_ > 0 && ws >= stop_from_) {
      expected_end = ws;
      break;
    }
  if (bw_dram_end_ > 0) expected_end = std::min(expected_end, bw_dram_end_);
  HugeBuffer& buffer = *buffers_.buffer(0);
  int line = 64;
  for (const CacheLevel& c : DataCaches(out_->topology)) line = std::max(line, c.line_bytes);
  // Worker 0's bandwidth buffer (first touched there), grown to the largest working set
  // expected, so that every size runs on the same huge pages.
  bool mapped = true;
  team_->Run(1, [&](int) {
    if (buffer.data() == nullptr) mapped = buffer.Allocate(expected_end, max_ws_, err);
    if (mapped) mapped = buffer.Ensure(expected_end, err);
  });
  if (!mapped) return false;
  std::vector<CurvePoint> curve;
  PointerCycle cycle(LatencyOptions().seed);  // grown from each working set to the next
  for (uint64_t ws : sizes) {
    if (Cancelled(err)) return false;
    Progress(Format("latency %s", FormatBytes(ws).c_str()));
    LatencyOptions o;
    o.working_set_bytes = ws;
    o.line_bytes = line;
    o.seconds_per_rep = plan_.lat_rep_s;
    o.repetitions = plan_.lat_reps;
    LatencyResult r;
    if (!MeasureLatency(*team_, &buffer, o, &r, err, &cycle)) return false;
    if (r.repeated) ++remeasured_;
    out_->latency.push_back({r.working_set_bytes, r.ns.best, r.ns.spread_pct});
    curve.push_back({r.working_set_bytes, r.ns.best});
    ++done_;
    if (SweepEnded(curve, stop_from_)) break;
    // Where the load sweep saw DRAM's bandwidth plateau, the chase is in DRAM too: further
    // points only fill fewer of the last cache's lines (its share shrinks as 1/size) and cost
    // the most (a shuffle of every line of a working set twice as large).
    if (bw_dram_end_ > 0 && ws >= bw_dram_end_) break;
  }
  HierarchyOptions ho;
  ho.higher_is_better = false;
  ho.reported_sizes = ReportedSizes(1);
  ho.reached_memory = reached_memory_;
  return DetectHierarchy(curve, ho, &lat_levels_, err);
}

void Measurer::Levels() {
  const std::vector<DetectedLevel>& bw = bw_levels_[1];
  std::vector<std::string> names;
  auto add_name = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const DetectedLevel& d : bw) add_name(d.name);
  for (const DetectedLevel& d : lat_levels_) add_name(d.name);
  // l1 < l2 < ... < dram
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    auto rank = [](const std::string& s) { return s == "dram" ? 1000 : std::atoi(s.c_str() + 1); };
    return rank(a) < rank(b);
  });
  auto find = [](const std::vector<DetectedLevel>& v, const std::string& name) {
    for (const DetectedLevel& d : v) {
      if (d.name == name) return &d;
    }
    return static_cast<const DetectedLevel*>(nullptr);
  };
  std::vector<CacheLevel> caches = DataCaches(out_->topology);
  for (const std::string& name : names) {
    LevelSummary s;
    s.level = name;
    const DetectedLevel* lat = find(lat_levels_, name);
    const DetectedLevel* b = find(bw, name);
    if (name != "dram") {
      int level = std::atoi(name.c_str() + 1);
      for (const CacheLevel& c : caches) {
        if (c.level == level) s.reported_size = c.size_bytes;
      }
      s.effective_size = lat != nullptr ? lat->effective_size : b->effective_size;
    }
    if (lat != nullptr) s.latency_ns = lat->median;
    if (b != nullptr) s.bandwidth_size = b->effective_size;
    for (const Ceiling& c : out_->ceilings) {
      if (c.kind == "bandwidth" && c.threads == 1 && c.level == name && c.pattern == "load" &&
          !IsScalarBandwidthCeiling(c)) {
        s.bandwidth_gbs = c.value;
      }
    }
    out_->levels.push_back(s);
  }
  DropDramLikeLevels(out_);
  NoteLevelContradictions(out_);
}

void Measurer::Warnings(const CompetingLoad& load) {
  if (load.valid && load.other_cpus >= 0.1) {
    out_->warnings.push_back(Format(
        "other processes used %.1f CPU-seconds during the %.0f s measurement (%.0f %% of one "
        "CPU): ceilings may be low — rerun on a quiet machine",
        load.other_cpu_seconds, load.wall_seconds, 100 * load.other_cpus));
  }
  if (load.valid && load.steal_seconds >= 0.05 * load.wall_seconds) {
    out_->warnings.push_back(
        Format("the hypervisor gave %.1f CPU-seconds of this VM's time to other guests (steal): "
               "ceilings may be low",
               load.steal_seconds));
  }
  if (remeasured_ > 0) {
    out_->warnings.push_back(
        Format("%d measurement%s had no repetition within %.0f %% of the best and %s "
               "measured again (the steadier kept)",
               remeasured_, remeasured_ > 1 ? "s" : "", kConfirmedBestPct,
               remeasured_ > 1 ? "were" : "was"));
  }
  for (const std::string& contradiction : ProfileContradictions(*out_))
    out_->warnings.push_back(contradiction);
  int noisy = 0;
  const Ceiling* worst = nullptr;
  for (const Ceiling& c : out_->ceilings) {
    if (c.spread_pct > 10) {
      ++noisy;
      if (worst == nullptr || c.spread_pct > worst->spread_pct) worst = &c;
    }
  }
  if (worst != nullptr) {
    out_->warnings.push_back(
        Format("%d of %zu ceilings varied more than 10 %% between repetitions (worst: %s, %d "
               "thread%s, %.0f %%): something else was running, or the clock changed",
               noisy, out_->ceilings.size(), worst->name.c_str(), worst->threads,
               worst->threads > 1 ? "s" : "", worst->spread_pct));
  }
  // A bandwidth curve without a DRAM level gives no dram ceilings: say why they are missing.
  for (const auto& [threads, levels] : bw_levels_) {
    if (levels.empty() || levels.back().name == "dram") continue;
    std::vector<uint64_t> reported = ReportedSizes(threads);
    out_->warnings.push_back(
        Format("no DRAM level on the %d-thread bandwidth curve: up to %s, where the sweep ends, it "
               "shows no plateau after the caches (sysfs reports %s of last-level cache); no dram "
               "ceilings for %d thread%s%s",
               threads, FormatBytes(max_ws_).c_str(),
               reported.empty() ? "nothing" : FormatBytes(reported.back()).c_str(), threads,
               threads > 1 ? "s" : "", quick_capped_ ? " — --full sweeps further" : ""));
  }
  // Where sysfs and the measurement disagree.
  for (const CacheLevel& c : DataCaches(out_->topology)) {
    std::string name = Format("l%d", c.level);
    const LevelSummary* s = nullptr;
    for (const LevelSummary& l : out_->levels) {
      if (l.level == name) s = &l;
    }
    if (s == nullptr) {
      if (!out_->levels.empty()) {
        out_->warnings.push_back(Format(
            "sysfs reports an %s of %s, but neither the bandwidth nor the latency curve shows "
            "a plateau for it",
            Upper(name).c_str(), FormatBytes(c.size_bytes).c_str()));
      }
      continue;
    }
    // More than 3x off: the sweep's grid (2 or 4 points an octave) and a knee's first points
    // account for less.
    if (s->effective_size > 0 &&
        (3 * s->effective_size < c.size_bytes || s->effective_size > 3 * c.size_bytes)) {
      out_->warnings.push_back(Format(
          "sysfs reports %s of %s, but the measured plateau ends at %s: ceilings are read on "
          "the measured plateau",
          Upper(name).c_str(), FormatBytes(c.size_bytes).c_str(),
          FormatBytes(s->effective_size).c_str()));
    }
  }
}

}  // namespace

double SizeResolution(const std::string& mode) {
  Plan p = PlanFor(mode, 1.0);
  return std::pow(2.0, 1.0 / std::min(p.bw_steps_per_octave, p.lat_steps_per_octave));
}

bool MeasureMachine(const MachineMeasureOptions& opts, MachineProfile* out, Error* err) {
  *out = MachineProfile();
  Measurer m(opts, out);
  return m.Run(err);
}

}  // namespace rprof
