// pfm_events.h for builds without libpfm4: every question is answered "unknown", with the reason.
#include "counters/pmu/pfm_events.h"

namespace rprof {
namespace {
constexpr const char* kNoPfm =
    "rprof was built without libpfm4; install libpfm4-dev and reconfigure with -Dpapi=enabled";
}  // namespace

bool InitPfm(Error* err) { return Fail(err, ErrorKind::kEnvironment, kNoPfm); }

std::string PfmVersion() { return ""; }

std::vector<PfmPmu> ListPmus() { return {}; }

bool ListPmuEvents(const std::string&, std::vector<PfmEvent>* events, Error* err) {
  events->clear();
  return Fail(err, ErrorKind::kEnvironment, kNoPfm);
}

bool EventExistsInTable(const std::string&, Error* err) {
  return Fail(err, ErrorKind::kEnvironment, kNoPfm);
}

std::string HostCorePmuName(Error* err) {
  Fail(err, ErrorKind::kEnvironment, kNoPfm);
  return "";
}

std::string CorePmuNameFrom(const std::string&, const std::string&, Error* err) {
  Fail(err, ErrorKind::kEnvironment, kNoPfm);
  return "";
}

bool LibpfmFindsEvent(const std::string&) { return false; }

std::string CpuidCorePmuName() { return ""; }

}  // namespace rprof
