#include "counters/papi/papi_presets.h"

#include <papi.h>

namespace rprof {

bool ListPapiPresets(std::vector<PapiPreset>* out, std::string* why) {
  // Safe beside papi_session.cc's own call: a second PAPI_library_init returns the first result.
  int version = PAPI_library_init(PAPI_VER_CURRENT);
  if (version != PAPI_VER_CURRENT) {
    *why = std::string("PAPI cannot start: ") + PAPI_strerror(version);
    return false;
  }
  int code = PAPI_PRESET_MASK;
  if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK) return true;
  do {
    PAPI_event_info_t info;
    if (PAPI_get_event_info(code, &info) != PAPI_OK) continue;
    out->push_back({info.symbol, info.long_descr, info.count > 0});
  } while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
  return true;
}

}  // namespace rprof
