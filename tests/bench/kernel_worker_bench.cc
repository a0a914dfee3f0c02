// What running a kernel in a measuring worker (targets/kernel_worker.h) costs against running
// it in rprof's own process, as rprof did before issue 26: the built-in triad at an L1 size and
// a DRAM size, each measured in turns by both ways in one sitting, with the default software
// events counted around each repetition (the worker asks rprof over a pipe) or with no counters.
//
// Prints, per size and counters: the median over rounds of the measured seconds per call (what
// a run stores as time_s) both ways and their ratio, and the median wall time of one whole
// measurement (fork, setup, warm-up, repetitions, check) both ways.
//
//   build/tests/bench/bench_kernel_worker [ROUNDS]   (default 9)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/stats.h"
#include "counters/papi/papi_session.h"
#include "targets/kernel_catalog.h"
#include "targets/kernel_worker.h"
#include "targets/measure_loop.h"

namespace {

using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) { return rprof::Summarize(v).median; }

// The in-process way, as KernelTarget::Execute did it: setup, MeasureRepeated, check, teardown.
double InProcess(const rprof_kernel& k, const rprof_args& args,
                 const std::vector<rprof::CounterSession*>& counters,
                 const rprof::MeasureOptions& options) {
  rprof_error error{};
  void* state = k.setup(&args, &error);
  rprof::MeasureResult result;
  rprof::Error why;
  if (!state || !rprof::MeasureRepeated([&] { k.run(state); }, counters, options, &result, &why)) {
    std::fprintf(stderr, "in process: %s%s\n", error.message, why.message.c_str());
    std::exit(1);
  }
  k.check(state, &error);
  k.teardown(state);
  return Median(result.seconds_per_call);
}

double InWorker(const rprof::CatalogEntry& entry, const rprof_args& args,
                const std::vector<rprof::CounterSession*>& counters,
                const rprof::MeasureOptions& options) {
  rprof::WorkerOutcome outcome;
  rprof::Error err;
  if (!rprof::RunKernelInWorker(entry, args, counters, options, &outcome, &err) ||
      outcome.ended_abnormally || !outcome.has_results) {
    std::fprintf(stderr, "in a worker: %s\n", err.message.c_str());
    std::exit(1);
  }
  return Median(outcome.measured.seconds_per_call);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 9;
  const rprof::CatalogEntry* triad = rprof::BuiltinCatalog().Find("triad");
  if (!triad) return 1;
  rprof::MeasureOptions options;
  options.repetitions = 20;
  std::printf("%-6s %-8s %14s %14s %8s %12s %12s\n", "size", "counters", "in-process s", "worker s",
              "ratio", "wall in ms", "wall wk ms");
  // n = 1000: 3 arrays of 8 kB, in L1; n = 16 M: 384 MB, DRAM.
  for (long long n : {1000LL, 16LL << 20}) {
    rprof_args args{};
    args.values[0] = n;
    for (bool counted : {false, true}) {
      // A fresh session for each measurement: one attached to a worker counts that worker.
      auto sessions = [&](std::unique_ptr<rprof::CounterSession>* session) {
        std::vector<rprof::CounterSession*> counters;
        if (!counted) return counters;
        rprof::Error err;
        *session = rprof::CreatePmuSession(rprof::DefaultPmuEvents(), true, &err);
        if (*session) counters.push_back(session->get());
        return counters;
      };
      std::vector<double> in, worker, wall_in, wall_worker;
      for (int r = 0; r < rounds; ++r) {
        // Alternated, so that drift in the machine's load falls on both alike.
        std::unique_ptr<rprof::CounterSession> s1, s2;
        std::vector<rprof::CounterSession*> c1 = sessions(&s1), c2 = sessions(&s2);
        auto t0 = Clock::now();
        in.push_back(InProcess(*triad->kernel, args, c1, options));
        auto t1 = Clock::now();
        worker.push_back(InWorker(*triad, args, c2, options));
        auto t2 = Clock::now();
        wall_in.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        wall_worker.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
      }
      double a = Median(in), b = Median(worker);
      std::printf("%-6s %-8s %14.4e %14.4e %8.4f %12.1f %12.1f\n", n == 1000 ? "L1" : "DRAM",
                  counted ? "pmu" : "none", a, b, b / a, Median(wall_in), Median(wall_worker));
      // The spread of each way, to judge the ratio against the noise.
      std::vector<double> ratios;
      for (int r = 0; r < rounds; ++r) ratios.push_back(worker[r] / in[r]);
      std::sort(ratios.begin(), ratios.end());
      std::printf(
          "       per-round ratio min %.4f max %.4f; spread in-process %.1f %%, worker "
          "%.1f %%\n",
          ratios.front(), ratios.back(), rprof::SpreadPercent(in).value_or(NAN),
          rprof::SpreadPercent(worker).value_or(NAN));
    }
  }
  return 0;
}
