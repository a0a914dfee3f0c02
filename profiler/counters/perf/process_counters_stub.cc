// Built when PAPI (and with it the pmu source) is not found: whole-process counting explains
// itself instead of disappearing.
#include "counters/perf/process_counters.h"

namespace rprof {

std::unique_ptr<ProcessCounters> ProcessCounters::Open(pid_t,
                                                       const std::vector<std::string>& events,
                                                       bool allow_missing, Error* err) {
  auto counters = std::unique_ptr<ProcessCounters>(new ProcessCounters());
  for (const std::string& name : events) {
    std::string reason =
        "this rprof was built without PAPI and libpfm4; install libpapi-dev "
        "and libpfm4-dev and rebuild (scripts/bootstrap)";
    if (!allow_missing) {
      Fail(err, ErrorKind::kEnvironment, "cannot open event " + name + ": " + reason);
      return nullptr;
    }
    counters->events_.push_back({name, -1, reason});
  }
  return counters;
}

ProcessCounters::~ProcessCounters() = default;

std::vector<Metric> ProcessCounters::Read() const {
  std::vector<Metric> out;
  for (const Event& e : events_)
    out.push_back({e.name, std::nullopt, "count", Source::kPmu, "", e.reason});
  return out;
}

std::vector<std::string> ProcessCounters::CountedNames() const { return {}; }

}  // namespace rprof
