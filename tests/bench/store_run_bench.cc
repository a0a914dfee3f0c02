// The cost of storing one run with 20 metrics and 10 samples in one transaction, on a real
// SQLite file in WAL mode: what each `rprof run` pays at the end.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "store/run_store.h"

namespace {

void BM_StoreRun(benchmark::State& state) {
  char dir[] = "/tmp/rprof-bench-XXXXXX";
  if (!mkdtemp(dir)) {
    state.SkipWithError("mkdtemp failed");
    return;
  }
  std::string path = std::string(dir) + "/bench.db";
  auto store = std::make_unique<rprof::RunStore>();
  rprof::Error err;
  if (!store->Open({path, false}, &err)) {
    state.SkipWithError(err.message.c_str());
    return;
  }
  rprof::RunRecord run;
  run.machine = {"benchfingerprint", "bench cpu", 2, "L1d 32K", "6.1", "bench"};
  run.target_kind = "builtin";
  run.target = "triad";
  run.params = {{"n", "1000000"}};
  run.sources = {"clock", "model", "pmu"};
  run.samples.assign(10, 1e-3);
  for (int i = 0; i < 20; ++i)
    run.metrics.push_back(
        {"metric_" + std::to_string(i), 1.0 * i, "count", rprof::Source::kPmu, "", ""});
  run.started_at = run.ended_at = rprof::UtcNow();
  run.rprof_version = "bench";
  for (auto _ : state) {
    if (!store->Insert(&run, &err)) {
      state.SkipWithError(err.message.c_str());
      break;
    }
  }
  store.reset();  // close before removing, so SQLite does not recreate its WAL files
  unlink(path.c_str());
  unlink((path + "-wal").c_str());
  unlink((path + "-shm").c_str());
  rmdir(dir);
}
BENCHMARK(BM_StoreRun)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
