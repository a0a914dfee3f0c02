#include "counters/papi/papi_info.h"

#include <papi.h>

namespace rprof {

PapiInfo ReadPapiInfo() {
  PapiInfo out;
  out.built = true;
  // Safe beside the sessions' own call: a second PAPI_library_init returns the first result.
  int version = PAPI_library_init(PAPI_VER_CURRENT);
  if (version != PAPI_VER_CURRENT) {
    out.error = std::string("PAPI cannot start: ") + PAPI_strerror(version);
    return out;
  }
  out.started = true;
  int v = PAPI_get_opt(PAPI_LIB_VERSION, nullptr);
  out.version = std::to_string(PAPI_VERSION_MAJOR(v)) + "." +
                std::to_string(PAPI_VERSION_MINOR(v)) + "." +
                std::to_string(PAPI_VERSION_REVISION(v));
  for (int cid = 0; cid < PAPI_num_components(); ++cid) {
    const PAPI_component_info_t* info = PAPI_get_component_info(cid);
    if (!info) continue;
    out.components.push_back({info->name, info->disabled != 0, info->disabled_reason,
                              info->num_native_events, info->num_preset_events});
  }
  return out;
}

}  // namespace rprof
