// rprof built without PAPI: no presets, and the way to get them.
#include "counters/papi/papi_presets.h"

namespace rprof {

bool ListPapiPresets(std::vector<PapiPreset>*, Error* why) {
  return Fail(why, ErrorKind::kEnvironment,
              "this rprof was built without PAPI; install libpapi-dev and rebuild "
              "(scripts/bootstrap)");
}

// Without PAPI no name is a preset rprof can count: nothing stands in.
std::string PresetStandIn(const std::string&, std::string*) { return ""; }

}  // namespace rprof
