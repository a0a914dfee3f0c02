#include "counters/papi/papi_presets.h"

#include <papi.h>

#include <cstring>

namespace rprof {

namespace {

// Presets and the perf generic events that count exactly the same thing. Not PAPI_L1_DCM and
// the like: perf's cache events count loads only, or another level, so a stand-in would be a
// different number under the preset's name.
struct StandIn {
  const char* preset;
  const char* generic;
};
constexpr StandIn kStandIns[] = {
    {"PAPI_TOT_INS", "perf::INSTRUCTIONS"}, {"PAPI_TOT_CYC", "perf::CYCLES"},
    {"PAPI_REF_CYC", "perf::REF-CYCLES"},   {"PAPI_BR_INS", "perf::BRANCH-INSTRUCTIONS"},
    {"PAPI_BR_MSP", "perf::BRANCH-MISSES"},
};

bool PapiDefinesHere(const std::string& name) {
  if (PAPI_is_initialized() == PAPI_NOT_INITED &&
      PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
    return false;
  int code = 0;
  PAPI_event_info_t info;
  return PAPI_event_name_to_code(name.c_str(), &code) == PAPI_OK &&
         PAPI_get_event_info(code, &info) == PAPI_OK && info.count > 0;
}

}  // namespace

std::string PresetStandIn(const std::string& name, std::string* note) {
  for (const StandIn& s : kStandIns) {
    if (name != s.preset) continue;
    if (PapiDefinesHere(name)) return "";
    // Said alike whether the stand-in then counts or fails ("Event does not exist; its
    // stand-in perf::CYCLES ...": "counted as" read as counted).
    *note =
        std::string("its stand-in ") + s.generic + " (PAPI defines no " + name + " for this CPU)";
    return s.generic;
  }
  return "";
}

bool ListPapiPresets(std::vector<PapiPreset>* out, Error* why) {
  // Safe beside papi_session.cc's own call: a second PAPI_library_init returns the first result.
  int version = PAPI_library_init(PAPI_VER_CURRENT);
  if (version != PAPI_VER_CURRENT) {
    return Fail(why, ErrorKind::kEnvironment,
                std::string("PAPI cannot start: ") + PAPI_strerror(version));
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
