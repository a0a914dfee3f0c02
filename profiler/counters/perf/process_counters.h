// The pmu source for whole processes: events opened with perf_event_open on a child that waits
// before exec, enabled at its exec and inherited by every thread and process it starts — what
// `perf stat` counts. Event names are libpfm4 names (perf::TASK-CLOCK, RETIRED_INSTRUCTIONS,
// amd64_fam19h_zen3::…) or PAPI presets whose PAPI definition is a single native event.
//
// (PAPI's own PAPI_attach + PAPI_INHERIT is the obvious road, but PAPI 7.0 as Debian ships it
// answers PAPI_ENOEVNT to both on every event here, so rprof opens the events itself and keeps
// PAPI's names for them.)
#ifndef RPROF_COUNTERS_PERF_PROCESS_COUNTERS_H_
#define RPROF_COUNTERS_PERF_PROCESS_COUNTERS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/metric.h"

namespace rprof {

class ProcessCounters {
 public:
  // Opens `events` on process `pid` (which must not have exec'd yet), each counting from the
  // process's exec on. An event that cannot be opened fails the call (kEnvironment, naming it
  // and the reason) unless allow_missing; then it is reported absent with the reason.
  static std::unique_ptr<ProcessCounters> Open(pid_t pid, const std::vector<std::string>& events,
                                               bool allow_missing, Error* err);
  ~ProcessCounters();

  // Reads the totals (after the process has exited, or while it runs). Counts are scaled by
  // time_enabled / time_running when the kernel multiplexed them, with the coverage in the note.
  std::vector<Metric> Read() const;

  // The events that opened (the others are absent with their reason).
  std::vector<std::string> CountedNames() const;

 private:
  struct Event {
    std::string name;
    int fd = -1;
    std::string reason;  // why it is absent, when fd < 0
    std::string note;    // how it is counted when not as named (a preset's stand-in)
  };
  std::vector<Event> events_;
};

}  // namespace rprof

#endif  // RPROF_COUNTERS_PERF_PROCESS_COUNTERS_H_
