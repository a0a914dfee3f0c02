// A machine profile: what the machine is (Topology) and what it can do, measured — the ceilings
// every run is placed against, the latency ladder, and the hierarchy as measured next to what
// sysfs reports. Plain data: machine_measure.h fills it, the store keeps it, the CLI prints it.
#ifndef RPROF_MACHINE_MACHINE_PROFILE_H_
#define RPROF_MACHINE_MACHINE_PROFILE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/run.h"
#include "machine/topology.h"

namespace rprof {

// One roof: a compute rate or a bandwidth, at a thread count.
struct Ceiling {
  std::string kind;  // "compute" | "bandwidth"
  // compute: "<precision>_<isa>_<pattern>", e.g. "fp64_avx2_fma", "fp32_sse_add";
  // bandwidth: "<level>_<pattern>", e.g. "l1_load", "dram_triad", "dram_copy_nt", measured
  // with the widest vector ISA (copy and triad through a cache: AVX2 where it beat AVX-512
  // there); the scalar load ceilings (IsScalarBandwidthCeiling) are
  // "<level>_load_scalar", e.g. "l1_load_scalar". Unique together with `threads`.
  std::string name;
  std::string level;  // "" for compute; "l1", "l2", "l3", ..., "dram" for bandwidth
  // "scalar", "sse", "avx2", "avx512": the kernel's instructions (bandwidth: the widest usable
  // vector ISA, AVX2 for a cache's copy or triad that it streamed faster than AVX-512, or
  // "scalar" for the 8-byte load ceilings).
  std::string isa;
  std::string precision;  // "fp64", "fp32" (bandwidth kernels stream fp64 arrays)
  // compute: "fma" (2 FLOPs per lane), "mul_add" (independent multiplies and adds, no FMA),
  //          "add";
  // bandwidth: "load", "copy", "triad" (a = b + s*c), "copy_nt" (non-temporal stores).
  std::string pattern;
  int threads = 1;  // pinned threads, one per core while there are cores
  // bandwidth: the working set (all arrays of all threads) at which `value` was measured;
  // compute: 0.
  uint64_t working_set_bytes = 0;
  // The best repetition: GFLOP/s = FLOPs of all threads / time of the slowest thread; GB/s =
  // 1e9 bytes/s the kernels load and store (compulsory bytes: write-allocate traffic not
  // counted, as in STREAM and likwid-bench). For a bandwidth level: the best point on the
  // level's plateau. CeilingValue() gives it in either convention.
  double value = 0;
  std::string unit;       // "GFLOP/s" | "GB/s"
  double spread_pct = 0;  // (max - min) / max over the repetitions, percent
  int repetitions = 0;
  // Set by the measurement (not stored): another repetition came within kConfirmedBestPct of
  // the best (machine/thread_team.h), so the ceiling stands however far the others spread.
  // False when unknown (a profile read back): its spread alone then says whether it is noise.
  bool best_confirmed = false;
  // Bandwidth: bytes per element of the pattern in each convention, which turn `value` into the
  // other convention by exact arithmetic (the same kernel, the same time). bytes_per_element:
  // compulsory, what the instructions load and store (load 8, copy 16, triad 24, copy_nt 16).
  // traffic_bytes_per_element: the actual traffic between the level and the one closer to the
  // core, write-allocate included (the read for ownership of each stored line: copy 24, triad
  // 32), non-temporal stores as such (copy_nt 16); at L1, traffic is the instructions' own
  // bytes (= compulsory). 0 (compute ceilings; hand-made ones): not known, `value` stands for
  // both.
  int bytes_per_element = 0;
  int traffic_bytes_per_element = 0;
};

// How bytes are counted. kCompulsory: each input read once, each output written once (a kernel
// model's bytes; STREAM's and likwid-bench's GB/s). kTraffic: what actually moves between two
// levels, write-allocate and write-backs included (sim's cache simulation, PMU counters).
enum class ByteConvention { kCompulsory, kTraffic };

inline const char* ConventionName(ByteConvention convention) {
  return convention == ByteConvention::kTraffic ? "traffic" : "compulsory";
}

// The ceiling's value in `convention`: GB/s of actual traffic = compulsory GB/s x
// traffic_bytes_per_element / bytes_per_element; compute ceilings (and ceilings whose factors
// are not known) are the same in both.
inline double CeilingValue(const Ceiling& c, ByteConvention convention) {
  if (convention == ByteConvention::kCompulsory || c.bytes_per_element <= 0 ||
      c.traffic_bytes_per_element <= 0)
    return c.value;
  return c.value * c.traffic_bytes_per_element / c.bytes_per_element;
}

// A bandwidth ceiling measured with scalar (8-byte) loads: the roof of scalar code at its level,
// below the widest vector's where the cache ports load two full vectors a cycle. What asks for
// a level's roof without knowing the code (BandwidthRoof, the plots, the levels table) takes the
// widest ceilings and skips these. The widest bandwidth ISA is never scalar on x86-64 (SSE2 is
// the baseline), so the ISA alone tells them apart, in profiles stored before them too.
inline bool IsScalarBandwidthCeiling(const Ceiling& c) {
  return c.kind == "bandwidth" && c.isa == "scalar";
}

// One point of the latency ladder.
struct LatencyPoint {
  uint64_t working_set_bytes = 0;
  double ns = 0;          // per dependent load, best repetition
  double spread_pct = 0;  // over the repetitions
};

// One point of a bandwidth sweep (the curve the bandwidth ceilings were read from).
struct BandwidthPoint {
  std::string pattern;  // "load", "copy", "triad", "copy_nt"
  int threads = 1;
  uint64_t working_set_bytes = 0;
  double gbs = 0;
  double spread_pct = 0;
};

// One rung of the hierarchy, the table the curriculum asks students to fill in.
struct LevelSummary {
  std::string level;           // "l1", "l2", "l3", ..., "dram"
  uint64_t reported_size = 0;  // sysfs, one instance; 0 for DRAM or when sysfs does not say
  // Measured: the largest working set still on the level's latency plateau (the bandwidth
  // plateau where latency did not find the level); 0 for DRAM.
  uint64_t effective_size = 0;
  double latency_ns = 0;     // median of the latency plateau; 0 when latency did not find it
  double bandwidth_gbs = 0;  // 1-thread load ceiling of the level; 0 when not found
  // Across the profiles of this machine (ReconcileLevelSizes, profile_trust.h): how many
  // profiles in a row, this one included, measured this effective size within the sweeps'
  // resolution. 1: this profile alone; 0: not known (stored before rprof counted, or DRAM).
  int size_agreement = 0;
  // What is not a plain fact about this level, in words: a size kept from the previous profile,
  // a size that contradicts it, a latency not above the level before. "" when nothing.
  std::string note;
  // The size this level is given (DecideLevelSizes, level_sizes.h): the reported prior, or a
  // measured plateau end when the measurement is sound and repeated; what sim simulates by
  // default. 0 for DRAM, and for profiles stored before rprof decided sizes.
  uint64_t size_bytes = 0;
  std::string size_rule;    // which rule decided size_bytes (level_sizes.h's kRule*); "": none
  std::string size_reason;  // why that rule, in words
  // The 1-thread bandwidth sweep's plateau end for this level (0: that sweep did not find it).
  // Read by DecideLevelSizes while the profile is measured; not stored.
  uint64_t bandwidth_size = 0;
};

struct MachineProfile {
  Topology topology;
  std::string fingerprint;      // Fingerprint(topology)
  double clock_ghz_scalar = 0;  // one core busy (imul chain), GHz
  double clock_ghz_vector = 0;  // all measuring threads running the widest FMA, GHz
  int threads = 1;              // N of the all-threads ceilings
  std::vector<Ceiling> ceilings;
  std::vector<LatencyPoint> latency;
  std::vector<BandwidthPoint> bandwidth;  // the sweeps behind the bandwidth ceilings
  std::vector<LevelSummary> levels;
  std::string mode;                // "quick" | "full"
  double load_average_before = 0;  // 1-minute load average before measuring
  double seconds = 0;              // how long the measurement took
  // Where those seconds went, phase by phase ("settle", "clock", "compute", "bandwidth 1
  // thread", "bandwidth 2 threads", "latency"), in order; `machine measure` prints them. Not
  // stored.
  std::vector<std::pair<std::string, double>> phase_seconds;
  std::vector<double> phase_cpu_seconds;  // CPU seconds of this process in each of those phases
  // Anything that makes the numbers less trustworthy or differ from sysfs: competing load,
  // large spreads, a capped working set, sysfs sizes the measurement contradicts.
  std::vector<std::string> warnings;
  // Why this profile is noisy, one reason each (ProfileNoiseReasons, profile_trust.h: measured
  // under load, large spreads, a latency not growing with level, a mul+add ceiling above FMA, a
  // level size that contradicts the machine's earlier profiles). Empty: nothing rprof can see
  // makes it untrustworthy. Runs placed against a noisy profile carry a `noisy_profile` note.
  std::vector<std::string> noisy_reasons;
  bool noisy() const { return !noisy_reasons.empty(); }
};

// A profile as it was kept (store/profile_store.h reads and writes it): its id, the machine it
// was measured on and when. A domain type, so that reports read profiles without the store.
struct StoredProfile {
  int64_t id = 0;
  MachineRecord machine;
  std::string created_at;
  std::string isa;
  double nominal_ghz = 0;
  MachineProfile profile;  // topology is not restored beyond what MachineRecord keeps
};

}  // namespace rprof

#endif  // RPROF_MACHINE_MACHINE_PROFILE_H_
