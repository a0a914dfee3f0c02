// Runs for tests of the store and of the run JSON: one with every field set, awkward values
// included, and small ones for lists.
#ifndef RPROF_TESTS_UNIT_TEST_RUNS_H_
#define RPROF_TESTS_UNIT_TEST_RUNS_H_

#include <optional>
#include <string>
#include <utility>

#include "core/run.h"

namespace rprof::testing_support {

inline MachineRecord TestMachine(const std::string& fingerprint = "fp-0001") {
  return {fingerprint, "Test CPU @ 3.0GHz", 8, "L1d 32K, L2 1M, L3 32M", "6.1.0-test", "testhost"};
}

// A run with every field set, including the awkward ones: a NULL metric with its reason, a
// region, text that needs escaping.
inline RunRecord FullRun() {
  RunRecord run;
  run.machine = TestMachine();
  run.target_kind = "executable";
  run.target = "/opt/bench/stencil";
  run.params = {{"n", "1000"}, {"label", "a \"quoted\" name"}};
  run.command = {"/opt/bench/stencil", "--size", "1 000", "back\\slash"};
  run.cwd = "/home/user/work dir";
  run.precision = "fp32";
  run.status = RunStatus::kCrashed;
  run.exit_code = 139;
  run.signal = 11;
  run.note = "killed by SIGSEGV";
  run.sources = {"clock", "pmu", "model"};
  run.samples = {0.001, 0.0012345678901234567, 1e-9};
  run.calls_per_rep = 7;
  run.metrics = {
      {"time_s", 0.0012345678901234567, "s", Source::kClock, "", "median of 3 repetitions"},
      {"flops", 2000, "FLOP", Source::kModel, "", "2*n"},
      {"PAPI_TOT_INS", std::nullopt, "count", Source::kPmu, "", "no hardware PMU here"},
      {"perf::TASK-CLOCK", 123456.5, "ns", Source::kPmu, "", ""},
      {"PAPI_L2_TCM", 4096, "count", Source::kPmu, "",
       "multiplexed: counted 50 % of the time (pass 2 of 2), scaled", 0.5},
      {"flops", 1000, "FLOP", Source::kModel, "inner loop", ""},
  };
  run.trust = {
      {"multiplexed", "PAPI_L2_TCM counted 50 % of the time, scaled"},
      {"hypervisor", "a virtual machine: counts include what the hypervisor lets through"}};
  run.tags = {{"lab", "00"}, {"who", "ci"}};  // in key order, as Load returns them
  run.started_at = "2026-11-29T23:40:00.123Z";
  run.ended_at = "2026-11-29T23:40:01.456Z";
  run.rprof_version = "0.1.0";
  return run;
}

inline RunRecord SmallRun(const std::string& target, RunStatus status,
                          const std::string& started_at, KeyValues tags) {
  RunRecord run;
  run.machine = TestMachine();
  run.target_kind = "builtin";
  run.target = target;
  run.params = {{"n", "10"}};
  run.precision = "fp64";
  run.status = status;
  run.sources = {"clock", "model"};
  run.samples = {0.5};
  run.metrics = {{"time_s", 0.5, "s", Source::kClock, "", ""}};
  run.tags = std::move(tags);
  run.started_at = started_at;
  run.ended_at = started_at;
  run.rprof_version = "0.1.0";
  return run;
}

}  // namespace rprof::testing_support

#endif  // RPROF_TESTS_UNIT_TEST_RUNS_H_
