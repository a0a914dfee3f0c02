// PAPI's own view of this machine, for `rprof doctor`: its version and its components (perf_event,
// perf_event_uncore, ...), enabled or disabled with PAPI's reason.
#ifndef RPROF_COUNTERS_PAPI_PAPI_INFO_H_
#define RPROF_COUNTERS_PAPI_PAPI_INFO_H_

#include <string>
#include <vector>

namespace rprof {

struct PapiComponent {
  std::string name;
  bool disabled = false;
  std::string disabled_reason;
  int native_events = 0;
  int preset_events = 0;
};

struct PapiInfo {
  bool built = false;    // this rprof was built with PAPI
  bool started = false;  // PAPI_library_init succeeded
  std::string error;     // why not, when built but not started
  std::string version;   // "7.0.1"
  std::vector<PapiComponent> components;
};

PapiInfo ReadPapiInfo();

}  // namespace rprof

#endif  // RPROF_COUNTERS_PAPI_PAPI_INFO_H_
