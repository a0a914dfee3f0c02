// The unit of a counter event's value, the same wherever the event is counted (in-process PAPI
// sessions, whole-process perf counters, marker regions): the clock events count nanoseconds,
// every other event counts occurrences.
#ifndef RPROF_COUNTERS_EVENT_UNIT_H_
#define RPROF_COUNTERS_EVENT_UNIT_H_

#include <string>
#include <string_view>

namespace rprof {

inline std::string EventUnit(std::string_view event) {
  bool clock = event.find("TASK-CLOCK") != std::string_view::npos ||
               event.find("CPU-CLOCK") != std::string_view::npos;
  return clock ? "ns" : "count";
}

}  // namespace rprof

#endif  // RPROF_COUNTERS_EVENT_UNIT_H_
