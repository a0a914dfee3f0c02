// Whether the pmu source counts here, tried the way runs count: a kernel's counters are opened in
// rprof and attached to the measuring worker it forks (targets/kernel_worker.h), a program's are
// opened on it before its exec and inherited from then on (perf/process_counters.h). Each path
// counts perf::TASK-CLOCK over a little real work, so "counts" is only said of what counted:
// PAPI can open a software event in its own thread and still fail to attach (no PMU, see
// papi/papi_session.h), which is what `rprof doctor` once missed.
#ifndef RPROF_COUNTERS_COUNTING_PROBE_H_
#define RPROF_COUNTERS_COUNTING_PROBE_H_

#include <string>

namespace rprof {

struct CountingProbe {
  std::string backend;        // "PAPI" or "perf_event_open": what counts kernels here
  std::string why_not_papi;   // when backend is perf_event_open
  bool kernel = false;        // a session attached to a forked process counted its work
  std::string kernel_detail;  // what it counted, or why not
  bool program = false;       // counters opened before exec counted the program
  std::string program_detail;
  bool ok() const { return kernel && program; }
};

// Forks two short-lived children (one spins a few milliseconds, one execs /bin/true) and counts
// them. Tried once per process: the answer does not change while rprof runs.
const CountingProbe& ProbeCounting();

}  // namespace rprof

#endif  // RPROF_COUNTERS_COUNTING_PROBE_H_
