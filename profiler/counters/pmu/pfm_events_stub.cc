// pfm_events.h for builds without libpfm4: every question is answered "unknown", with the reason.
#include "counters/pmu/pfm_events.h"

namespace rprof {
namespace {
constexpr const char* kNoPfm =
    "rprof was built without libpfm4; install libpfm4-dev and reconfigure with -Dpapi=enabled";
}  // namespace

bool InitPfm(std::string* err) {
  if (err) *err = kNoPfm;
  return false;
}

std::string PfmVersion() { return ""; }

std::vector<PfmPmu> ListPmus() { return {}; }

bool ListPmuEvents(const std::string&, std::vector<PfmEvent>* events, std::string* err) {
  events->clear();
  if (err) *err = kNoPfm;
  return false;
}

bool EventExistsInTable(const std::string&, std::string* why) {
  if (why) *why = kNoPfm;
  return false;
}

std::string HostCorePmuName(std::string* why) {
  if (why) *why = kNoPfm;
  return "";
}

std::string CorePmuNameFrom(const std::string&, const std::string&, std::string* why) {
  if (why) *why = kNoPfm;
  return "";
}

bool LibpfmFindsEvent(const std::string&) { return false; }

std::string CpuidCorePmuName() { return ""; }

}  // namespace rprof
