// What a program using the marker API hands back to rprof: the file named by RPROF_MARKER_OUT,
// one block per process that exited normally (format: rprof/marker.h, versions 1 to 4), parsed and
// merged over processes by region name, then turned into per-region metrics.
#ifndef RPROF_TARGETS_MARKER_RESULTS_H_
#define RPROF_TARGETS_MARKER_RESULTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/metric.h"

namespace rprof {

// One event named in RPROF_MARKER_EVENTS.
struct MarkerEvent {
  std::string name;
  bool counted = true;  // counted in every process that reported it
  std::string reason;   // when not: why, with the process ("process 123: Event does not exist")
};

struct MarkerRegion {
  std::string name;
  uint64_t calls = 0;  // completed begin/end pairs, over threads and processes
  double seconds = 0;  // wall time inside the region, summed over threads and processes
  // The region's wall time: the most any one thread (of any process) spent inside it. nullopt
  // when a process wrote version 1 of the format, which does not say.
  std::optional<double> thread_max_seconds;
  std::optional<uint64_t> threads;  // threads (over processes) that completed a call
  // The model work of one pass, from rprof_region_declare; the first process's when several
  // declared different values (a problem says so).
  std::optional<double> flops_per_call;
  std::optional<double> bytes_per_call;
  // From rprof_region_declare_fp64/fp32 (format version 3): "fp64", "fp32"; "" not declared.
  std::string precision;
  // One per MarkerResults::events, in that order: the total over calls, threads and processes,
  // or nullopt when some of the region's calls were not counted; count_notes says why.
  std::vector<std::optional<double>> counts;
  std::vector<std::string> count_notes;
  // From the span records (format version 4), summed over processes: the CPU time of the whole
  // process while the region was open in one of its threads, and that of the threads that
  // entered it (in their calls, and waiting for each other while it was open). nullopt when a
  // process wrote none (no counters ran, or an older library).
  std::optional<double> open_cpu_seconds;
  std::optional<double> inside_cpu_seconds;
};

struct MarkerResults {
  std::vector<long> pids;             // the processes that reported, in file order
  std::vector<MarkerEvent> events;    // by name, in order of first appearance
  std::vector<MarkerRegion> regions;  // by name, in order of first appearance
  std::vector<std::string> problems;  // "<region>: <what happened> (process <pid>)"
};

// Parses the whole file (empty text: no process reported; true with empty results) and merges
// its blocks into *out. False with *err "line N: <what is wrong>" (target failed: the profiled
// program wrote the file) on malformed or unknown input, including a format version other than
// 1 to 4.
[[nodiscard]] bool ParseMarkerResults(const std::string& text, MarkerResults* out, Error* err);

// Per region (Metric::region = its name): time_s (the region's wall time, thread_max_seconds;
// `seconds` when that is unknown, with a note), thread_time_s (`seconds`), threads when known
// and calls (source clock), every event under its own name (source pmu; absent with the reason
// when not counted), and when declared flops and bytes_dram (source model: declared per call x
// calls), and with a declared precision flops_dp and flops_sp (model: all the declared FLOPs in
// that precision). With span records, cpu_elsewhere_s (clock): the CPU time the process's other
// threads spent while the region was open, work its per-thread counters did not count.
std::vector<Metric> MarkerMetrics(const MarkerResults& results);

}  // namespace rprof

#endif  // RPROF_TARGETS_MARKER_RESULTS_H_
