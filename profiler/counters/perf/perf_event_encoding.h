// An event name rprof accepts, as the perf_event_attr the kernel counts it by: perf software
// events (perf::TASK-CLOCK, ...), libpfm4 native names and PAPI presets defined as one native
// event. Shared by whole-process counting (process_counters.h) and the calling thread's session
// (perf_event_session.h), so both name and explain an event alike.
#ifndef RPROF_COUNTERS_PERF_PERF_EVENT_ENCODING_H_
#define RPROF_COUNTERS_PERF_PERF_EVENT_ENCODING_H_

#include <linux/perf_event.h>
#include <sys/types.h>

#include <string>

#include "core/error.h"

namespace rprof {

// Fills the type and config of *attr (the rest is the caller's). *note says how the event is
// counted when not as named (a preset PAPI lacks here, counted by its generic stand-in:
// papi/papi_presets.h), else stays as it was. False with *err (environment) when the name cannot be
// encoded here (unknown, a preset PAPI derives from several events, no PMU).
[[nodiscard]] bool EncodePerfEvent(const std::string& name, perf_event_attr* attr,
                                   std::string* note, Error* err);

// Why perf_event_open failed for `attr` with `errno_value`: no PMU, or the system's reason.
std::string WhyNotOpened(const perf_event_attr& attr, int errno_value);

// How an event counts: the calling thread, enabled around each repetition; or a process that
// has not exec'd yet, from its exec on, with every thread and child it starts (perf stat's).
enum class PerfTarget { kThread, kProcessFromExec };

// `name` encoded and opened on `pid` (0: the calling thread) as `target` says, user space only,
// with the times enabled and running for multiplexed counts. The fd, or -1 with *err (environment);
// *attr is what was opened (to open it again elsewhere); *note as EncodePerfEvent's.
[[nodiscard]] int OpenPerfEvent(const std::string& name, pid_t pid, PerfTarget target,
                                perf_event_attr* attr, std::string* note, Error* err);

}  // namespace rprof

#endif  // RPROF_COUNTERS_PERF_PERF_EVENT_ENCODING_H_
