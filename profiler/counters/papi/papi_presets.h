// PAPI's preset events (PAPI_TOT_INS, PAPI_DP_OPS, ...) as PAPI defines them for this CPU: for
// `rprof events`. Whether one can be counted here is still decided by adding it to an event set.
#ifndef RPROF_COUNTERS_PAPI_PAPI_PRESETS_H_
#define RPROF_COUNTERS_PAPI_PAPI_PRESETS_H_

#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

struct PapiPreset {
  std::string name;
  std::string description;
  bool defined = false;  // PAPI maps it to native events on this CPU
};

// Every PAPI preset, in PAPI's order. False with *why (kEnvironment; may be null) when PAPI is
// missing (rprof built without it) or cannot start.
[[nodiscard]] bool ListPapiPresets(std::vector<PapiPreset>* out, Error* why);

// The event rprof counts for `name` where PAPI defines no such preset for this CPU (PAPI 7.0 has
// none at all for some CPUs it drives, e.g. Sapphire Rapids read as `icl`): the perf generic
// event the kernel counts the same thing by, as libpfm4 names it ("perf::INSTRUCTIONS" for
// PAPI_TOT_INS), with *note saying so. "" when `name` is not a preset, PAPI defines it here, or
// no generic event counts the same thing (then adding it fails with PAPI's own reason).
std::string PresetStandIn(const std::string& name, std::string* note);

}  // namespace rprof

#endif  // RPROF_COUNTERS_PAPI_PAPI_PRESETS_H_
