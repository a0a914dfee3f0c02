// Why hardware events cannot be counted here, found by trying: opens a hardware instructions
// counter with perf_event_open and turns the errno into a cause and a way out. Shared by the
// pmu source's error messages and `rprof doctor`.
#ifndef RPROF_COUNTERS_PMU_DIAGNOSIS_H_
#define RPROF_COUNTERS_PMU_DIAGNOSIS_H_

#include <string>

namespace rprof {

struct PmuDiagnosis {
  bool hardware_counters = false;  // a hardware event opened and counted
  bool virtual_machine = false;    // cpuid's hypervisor bit
  int paranoid = -1;               // /proc/sys/kernel/perf_event_paranoid, -1 if unreadable
  std::string cause;               // empty when hardware_counters
  std::string remedy;
};

// Probes once per process (the answer does not change while rprof runs).
const PmuDiagnosis& DiagnosePmu();

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_DIAGNOSIS_H_
