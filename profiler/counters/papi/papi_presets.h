// PAPI's preset events (PAPI_TOT_INS, PAPI_DP_OPS, ...) as PAPI defines them for this CPU: for
// `rprof events`. Whether one can be counted here is still decided by adding it to an event set.
#ifndef RPROF_COUNTERS_PAPI_PAPI_PRESETS_H_
#define RPROF_COUNTERS_PAPI_PAPI_PRESETS_H_

#include <string>
#include <vector>

namespace rprof {

struct PapiPreset {
  std::string name;
  std::string description;
  bool defined = false;  // PAPI maps it to native events on this CPU
};

// Every PAPI preset, in PAPI's order. False with *why when PAPI is missing (rprof built without
// it) or cannot start.
bool ListPapiPresets(std::vector<PapiPreset>* out, std::string* why);

}  // namespace rprof

#endif  // RPROF_COUNTERS_PAPI_PAPI_PRESETS_H_
