// Built when PAPI is not found: the pmu source explains itself instead of disappearing.
#include "counters/papi/papi_session.h"

namespace rprof {

PmuBackend ChoosePmuBackend() { return {false, "this rprof was built without PAPI"}; }

const std::vector<std::string>& DefaultPmuEvents() {
  static const std::vector<std::string> none;
  return none;
}

std::unique_ptr<CounterSession> CreatePmuSession(const std::vector<std::string>& events, bool,
                                                 Error* err) {
  if (events.empty()) return nullptr;
  Fail(err, ErrorKind::kEnvironment,
       "event " + events.front() +
           ": this rprof was built without PAPI; install libpapi-dev and rebuild "
           "(scripts/bootstrap)");
  return nullptr;
}

}  // namespace rprof
