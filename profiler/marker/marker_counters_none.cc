// The counter backend of a build without PAPI: regions are timed, every event is missing.
#include "marker/marker_counters.h"

namespace rprof::marker {

namespace {

class NoCounters : public CounterBackend {
 public:
  std::vector<EventStatus> Open(const std::vector<std::string>& names) override {
    std::vector<EventStatus> out;
    for (const std::string& name : names)
      out.push_back({name, false,
                     "librprof-marker was built without PAPI; rebuild rprof with -Dpapi=enabled "
                     "(Debian: libpapi-dev)"});
    return out;
  }

  std::unique_ptr<ThreadCounters> StartThread(Error* err) override {
    Fail(err, ErrorKind::kEnvironment, "no counters in this build");
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<CounterBackend> CreateCounterBackend() { return std::make_unique<NoCounters>(); }

}  // namespace rprof::marker
