// The pmu counter source on PAPI: PAPI presets or native (libpfm4) event names, in as many event
// sets as the counters need (see counters/pmu/event_schedule.h): events that do not fit together
// take turns, one pass per repetition, and are scaled with their coverage kept; uncore events get
// a socket-wide set of their own. Whether an event can be counted is decided by adding it to a
// real event set, never by the event table. Without PAPI, CreatePmuSession fails with the reason.
#ifndef RPROF_COUNTERS_PAPI_PAPI_SESSION_H_
#define RPROF_COUNTERS_PAPI_PAPI_SESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "counters/counter_session.h"

namespace rprof {

// Software events every Linux machine can count, hardware events that need a PMU: the set a
// run gets when the user names none. Missing ones are reported, never fatal.
const std::vector<std::string>& DefaultPmuEvents();

// Which library counts the pmu source's events: PAPI where its CPU component is active and it
// can count another process (every kernel is counted attached to its measuring worker), else
// rprof's own perf_event_open (perf/perf_event_session.h), with the reason. Decided once per
// process, by trying.
struct PmuBackend {
  bool papi = false;
  std::string why_not_papi;  // "PAPI's perf_event component is disabled (...)", ...
  const char* name() const { return papi ? "PAPI" : "perf_event_open"; }
};
PmuBackend ChoosePmuBackend();

// Creates a session counting `events` in the calling thread, on the backend ChoosePmuBackend
// picks; Attach moves it onto a measuring worker. An event that
// cannot be added fails the call (kEnvironment, naming the event, the reason and the way out)
// unless allow_missing, in which case it is kept as an absent metric with that reason. kUsage
// for a malformed list.
std::unique_ptr<CounterSession> CreatePmuSession(const std::vector<std::string>& events,
                                                 bool allow_missing, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_PAPI_PAPI_SESSION_H_
