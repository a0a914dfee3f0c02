// Built when PAPI is not found: PapiInfo says so (built = false).
#include "counters/papi/papi_info.h"

namespace rprof {

PapiInfo ReadPapiInfo() { return PapiInfo(); }

}  // namespace rprof
