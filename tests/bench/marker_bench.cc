// What an empty marker region (begin + end, nothing inside) costs a program, in the three
// situations it meets:
//   off        RPROF_MARKER_OUT unset: the program runs outside rprof (target: a few ns)
//   time       under rprof, no events: two clock reads per pair
//   sw_events  under rprof with perf::TASK-CLOCK,perf::PAGE-FAULTS: plus one PAPI_read at begin
//              and one at end (target: <= 1 us per pair)
// The library reads its environment once per process, at the first marker call, so each
// situation runs in its own forked child that sets the environment first; each prints its own
// table. clock_gettime alone is timed for scale (PAPI_read alone: bench_papi_overhead).
//
//     build/tests/bench/bench_marker [--benchmark_min_time=1]
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "rprof/marker.h"

namespace {

void BM_EmptyRegion(benchmark::State& state) {
  for (auto _ : state) {
    rprof_region_begin("empty");
    rprof_region_end("empty");
  }
}

// Two names, one inside the other: the lookup of two regions per iteration.
void BM_NestedRegions(benchmark::State& state) {
  for (auto _ : state) {
    rprof_region_begin("outer");
    rprof_region_begin("inner");
    rprof_region_end("inner");
    rprof_region_end("outer");
  }
}

void BM_ClockGettime(benchmark::State& state) {
  timespec now;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    benchmark::DoNotOptimize(now);
  }
}

struct Mode {
  const char* name;
  bool active;
  const char* events;
};

// In a fresh child: the environment first, then the benchmarks of this mode.
int RunMode(const Mode& mode, const std::string& out_path) {
  if (mode.active)
    setenv("RPROF_MARKER_OUT", out_path.c_str(), 1);
  else
    unsetenv("RPROF_MARKER_OUT");
  setenv("RPROF_MARKER_EVENTS", mode.events, 1);
  if (rprof_markers_active() != (mode.active ? 1 : 0)) {
    std::fprintf(stderr, "bench_marker: markers %s in mode %s\n",
                 mode.active ? "inactive" : "active", mode.name);
    return 1;
  }
  std::string prefix = std::string("marker_") + mode.name;
  benchmark::RegisterBenchmark((prefix + "/empty_region").c_str(), BM_EmptyRegion);
  benchmark::RegisterBenchmark((prefix + "/nested_regions").c_str(), BM_NestedRegions);
  if (mode.active)
    benchmark::RegisterBenchmark((prefix + "/empty_region").c_str(), BM_EmptyRegion)->Threads(2);
  if (!mode.active) benchmark::RegisterBenchmark("clock_gettime_monotonic", BM_ClockGettime);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  char dir[] = "/tmp/rprof_marker_bench_XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    std::perror("bench_marker: mkdtemp");
    return 1;
  }
  const Mode modes[] = {{"off", false, ""},
                        {"time", true, ""},
                        {"sw_events", true, "perf::TASK-CLOCK,perf::PAGE-FAULTS"}};
  int failures = 0;
  for (const Mode& mode : modes) {
    std::string out_path = std::string(dir) + "/" + mode.name + ".txt";
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) std::exit(RunMode(mode, out_path));
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
    // Whether the events were really counted: the event lines the child wrote at its exit.
    std::ifstream results(out_path);
    for (std::string line; std::getline(results, line);)
      if (line.rfind("event\t", 0) == 0) std::printf("  (%s) %s\n", mode.name, line.c_str());
    std::remove(out_path.c_str());
  }
  rmdir(dir);
  return failures == 0 ? 0 : 1;
}
