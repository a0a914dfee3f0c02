// What rprof's pmu source costs per repetition: one PAPI start + read + stop on software events,
// the measurement loop's own overhead around every timed repetition.
#include <benchmark/benchmark.h>
#include <papi.h>

#include <cstdio>

#include "counters/papi/papi_session.h"

namespace {

void BM_PapiStartReadStop(benchmark::State& state) {
  rprof::Error err;
  auto session = rprof::CreatePmuSession({"perf::TASK-CLOCK", "perf::PAGE-FAULTS"}, false, &err);
  if (!session) {
    state.SkipWithError(err.message.c_str());
    return;
  }
  rprof::Error why;
  for (auto _ : state) {
    if (!session->Start(&why) || !session->Stop(&why)) {
      state.SkipWithError(why.message.c_str());
      break;
    }
  }
}
BENCHMARK(BM_PapiStartReadStop);

// PAPI_read alone on a running event set: the cost a marker region pays at each end.
void BM_PapiRead(benchmark::State& state) {
  if (PAPI_is_initialized() == PAPI_NOT_INITED) PAPI_library_init(PAPI_VER_CURRENT);
  int set = PAPI_NULL;
  PAPI_create_eventset(&set);
  if (PAPI_add_named_event(set, "perf::TASK-CLOCK") != PAPI_OK ||
      PAPI_add_named_event(set, "perf::PAGE-FAULTS") != PAPI_OK || PAPI_start(set) != PAPI_OK) {
    state.SkipWithError("software events cannot be opened here");
    return;
  }
  long long values[2];
  for (auto _ : state) {
    PAPI_read(set, values);
    benchmark::DoNotOptimize(values);
  }
  PAPI_stop(set, values);
  PAPI_cleanup_eventset(set);
  PAPI_destroy_eventset(&set);
}
BENCHMARK(BM_PapiRead);

}  // namespace

BENCHMARK_MAIN();
