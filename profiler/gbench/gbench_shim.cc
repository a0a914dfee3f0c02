// librprof-gbench-shim.so: preloaded (LD_PRELOAD) into a Google Benchmark binary that rprof runs
// with one benchmark instance selected. It interposes the two exported member functions of
// benchmark::State between which Google Benchmark times a benchmark's loop (1.7.1:
// _ZN9benchmark5State16StartKeepRunningEv, _ZN9benchmark5State17FinishKeepRunningEv), calls the
// library's own through dlsym(RTLD_NEXT), and brackets exactly the timed loop with the rprof
// marker region named in RPROF_GBENCH_REGION (rprof/marker.h): natively the marker backend
// counts it (time, PAPI events), under the sim source the marker library dumps callgrind's counts
// at its ends. It also sums the iterations every run of the loop made (Google Benchmark runs the
// loop several times while it picks an iteration count, and once per thread and repetition) and
// writes them at exit to RPROF_GBENCH_OUT, so rprof divides the region's totals by exactly the
// iterations that were counted:
//
//   rprof-gbench <TAB> 1
//   loops <TAB> <runs of the timed loop>
//   iterations <TAB> <their iterations, summed>
//
// What it cannot do: a binary that links libbenchmark statically calls its own copy of these
// functions, never this one; no file is then written and rprof says the timed-loop counts are
// absent, with that reason. It reads the iteration count from State's first three fields, laid
// out alike from 1.5 to 1.9 (Iterations below); a library that moves them would need another
// shim.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "rprof/marker.h"

// Not <benchmark/benchmark.h>: its header runs benchmark::internal::InitializeStreams() from a
// static initializer, a symbol only libbenchmark has, and the shim is preloaded into every
// process rprof starts while a benchmark is measured (valgrind's launcher, the shell it may
// use), which would then fail to load. The two member functions are declared here with the
// same names, hence the same mangled symbols.
namespace benchmark {
class State {
 public:
  void StartKeepRunning();
  void FinishKeepRunning();
};
}  // namespace benchmark

namespace {

using MemberFunction = void (*)(benchmark::State*);

std::atomic<long long> loops{0};
std::atomic<long long> total_iterations{0};

const char* RegionName() {
  static const char* name = std::getenv("RPROF_GBENCH_REGION");
  return name;
}

MemberFunction Next(const char* symbol) {
  // The library's own definition, found after this object in the lookup order.
  return reinterpret_cast<MemberFunction>(dlsym(RTLD_NEXT, symbol));
}

// At exit, once: what the loops ran. Nothing when no loop ran through this shim.
__attribute__((destructor)) void WriteIterations() {
  const char* path = std::getenv("RPROF_GBENCH_OUT");
  if (path == nullptr || *path == '\0' || loops.load() == 0) return;
  char text[128];
  int length = std::snprintf(text, sizeof text, "rprof-gbench\t1\nloops\t%lld\niterations\t%lld\n",
                             loops.load(), total_iterations.load());
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!write(fd, text, static_cast<size_t>(length));
  close(fd);
}

// State::iterations() of Google Benchmark 1.5 to 1.9 (benchmark.h: "items we expect on the
// first cache line"): IterationCount (int64_t) total_iterations_, batch_leftover_, then
// max_iterations, first in the object; iterations() = max_iterations - total_iterations_ +
// batch_leftover_ once the loop has started.
int64_t Iterations(const benchmark::State* state) {
  int64_t fields[3];
  std::memcpy(fields, state, sizeof fields);
  return fields[2] - fields[0] + fields[1];
}

}  // namespace

namespace benchmark {

// The loop starts when the library's StartKeepRunning returns (it resumes the timer last).
void State::StartKeepRunning() {
  static const MemberFunction next = Next("_ZN9benchmark5State16StartKeepRunningEv");
  next(this);
  if (const char* name = RegionName()) rprof_region_begin(name);
}

// The loop has ended when FinishKeepRunning is called (it pauses the timer first).
void State::FinishKeepRunning() {
  static const MemberFunction next = Next("_ZN9benchmark5State17FinishKeepRunningEv");
  if (const char* name = RegionName()) rprof_region_end(name);
  next(this);
  // After the library's own: total_iterations_ is then 0 and iterations() counts them all, for
  // range-for loops (which count in their iterator) as for KeepRunning().
  loops.fetch_add(1);
  total_iterations.fetch_add(static_cast<long long>(Iterations(this)));
}

}  // namespace benchmark
