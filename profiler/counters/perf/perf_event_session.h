// The pmu counter session on perf_event_open itself, counting the calling thread around each
// repetition: what the pmu source counts with where PAPI cannot. PAPI 7.0 disables its whole CPU
// component when libpfm4 does not know the CPU's PMU model (Debian 12's libpfm4 4.13 on AMD
// Zen 5: "libpfm4 no default PMU found"), and with it the software events every Linux kernel
// counts; the kernel still counts them, and the generic hardware events (perf::CYCLES,
// perf::INSTRUCTIONS) where a PMU exists. Event names as for PAPI (perf_event_encoding.h).
#ifndef RPROF_COUNTERS_PERF_PERF_EVENT_SESSION_H_
#define RPROF_COUNTERS_PERF_PERF_EVENT_SESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "counters/counter_session.h"

namespace rprof {

// As CreatePmuSession (papi/papi_session.h): an event that cannot be opened fails the call
// (kEnvironment) unless allow_missing, in which case it is an absent metric with its reason.
std::unique_ptr<CounterSession> CreatePerfEventSession(const std::vector<std::string>& events,
                                                       bool allow_missing, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_PERF_PERF_EVENT_SESSION_H_
