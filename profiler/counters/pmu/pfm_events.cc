#include "counters/pmu/pfm_events.h"

#include <perfmon/pfmlib.h>

#include <cstring>
#include <filesystem>
#include <mutex>

#include "core/spelling.h"

namespace rprof {
namespace {

struct PfmState {
  bool ok = false;
  std::string err;
};

const PfmState& State() {
  static PfmState state;
  static std::once_flag once;
  std::call_once(once, [] {
    int rc = pfm_initialize();
    if (rc != PFM_SUCCESS) {
      state.err = std::string("libpfm4 failed to initialise: ") + pfm_strerror(rc);
      return;
    }
    state.ok = true;
  });
  return state;
}

PfmPmu::Type TypeOf(pfm_pmu_type_t type) {
  switch (type) {
    case PFM_PMU_TYPE_CORE:
      return PfmPmu::Type::kCore;
    case PFM_PMU_TYPE_UNCORE:
      return PfmPmu::Type::kUncore;
    case PFM_PMU_TYPE_OS_GENERIC:
      return PfmPmu::Type::kOsGeneric;
    default:
      return PfmPmu::Type::kUnknown;
  }
}

// Looks a PMU up by name among all PMUs libpfm4 knows; fills *info.
bool FindPmu(const std::string& name, pfm_pmu_info_t* info) {
  for (int p = 0; p < PFM_PMU_MAX; ++p) {
    std::memset(info, 0, sizeof(*info));
    info->size = sizeof(*info);
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), info) != PFM_SUCCESS) continue;
    if (info->name && name == info->name) return true;
  }
  return false;
}

std::vector<std::string> PmuNames() {
  std::vector<std::string> names;
  for (const auto& pmu : ListPmus()) names.push_back(pmu.name);
  return names;
}

// Reads one event of a PMU's table; the attributes come from the PMU layer (PFM_OS_NONE), which
// answers for PMUs that are not on this machine as well.
PfmEvent ReadEvent(int idx) {
  PfmEvent event;
  pfm_event_info_t info;
  std::memset(&info, 0, sizeof(info));
  info.size = sizeof(info);
  if (pfm_get_event_info(idx, PFM_OS_NONE, &info) != PFM_SUCCESS) return event;
  event.name = info.name ? info.name : "";
  event.description = info.desc ? info.desc : "";
  for (int a = 0; a < info.nattrs; ++a) {
    pfm_event_attr_info_t attr;
    std::memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &attr) != PFM_SUCCESS || !attr.name) continue;
    if (attr.type == PFM_ATTR_UMASK) {
      event.umasks.push_back({attr.name, attr.desc ? attr.desc : "", attr.is_dfl != 0});
    } else if (attr.type == PFM_ATTR_MOD_BOOL || attr.type == PFM_ATTR_MOD_INTEGER) {
      event.modifiers.push_back(attr.name);
    }
  }
  return event;
}

bool ListEventsOf(const pfm_pmu_info_t& info, std::vector<PfmEvent>* events) {
  events->clear();
  for (int idx = info.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
    events->push_back(ReadEvent(idx));
  }
  return true;
}

// Whether the kernel under `root` ("" = this one) exposes a CPU PMU to perf_event: without one
// no hardware event opens, whatever libpfm4 reads from CPUID.
bool KernelHasCpuPmu(const std::string& root, std::string* seen) {
  namespace fs = std::filesystem;
  const fs::path devices = root + "/sys/bus/event_source/devices";
  std::error_code ec;
  for (const char* name : {"cpu", "cpu_core", "cpu_atom"}) {
    if (fs::exists(devices / name, ec)) return true;
  }
  // Arm PMUs are named after the core: armv8_pmuv3_0, armv8_cortex_a72, ...
  for (const auto& entry : fs::directory_iterator(devices, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("armv", 0) == 0) return true;
  }
  if (seen) {
    for (const auto& entry : fs::directory_iterator(devices, ec)) {
      *seen += (seen->empty() ? "" : ", ") + entry.path().filename().string();
    }
  }
  return false;
}

}  // namespace

bool InitPfm(Error* err) {
  const PfmState& state = State();
  if (!state.ok) return Fail(err, ErrorKind::kEnvironment, state.err);
  return true;
}

std::string PfmVersion() {
  int v = pfm_get_version();
  return std::to_string(PFM_MAJ_VERSION(v)) + "." + std::to_string(PFM_MIN_VERSION(v));
}

std::vector<PfmPmu> ListPmus() {
  std::vector<PfmPmu> pmus;
  if (!InitPfm(nullptr)) return pmus;
  for (int p = 0; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t info;
    std::memset(&info, 0, sizeof(info));
    info.size = sizeof(info);
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), &info) != PFM_SUCCESS || !info.name) continue;
    PfmPmu pmu;
    pmu.name = info.name;
    pmu.description = info.desc ? info.desc : "";
    pmu.type = TypeOf(info.type);
    pmu.present = info.is_present != 0;
    pmu.num_events = info.nevents;
    pmus.push_back(std::move(pmu));
  }
  return pmus;
}

bool ListPmuEvents(const std::string& pmu, std::vector<PfmEvent>* events, Error* err) {
  if (!InitPfm(err)) return false;
  pfm_pmu_info_t info;
  if (!FindPmu(pmu, &info)) {
    return Fail(
        err, ErrorKind::kUsage,
        "libpfm4 " + PfmVersion() + " has no PMU '" + pmu + "'" + DidYouMean(pmu, PmuNames()));
  }
  return ListEventsOf(info, events);
}

bool EventExistsInTable(const std::string& qualified_name, Error* err) {
  if (!InitPfm(err)) return false;
  size_t sep = qualified_name.find("::");
  if (sep == std::string::npos)
    return Fail(err, ErrorKind::kUsage,
                "'" + qualified_name + "' is not qualified with a PMU (pmu::EVENT)");
  std::string pmu = qualified_name.substr(0, sep);
  std::string rest = qualified_name.substr(sep + 2);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t colon = rest.find(':', start);
    parts.push_back(
        rest.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  pfm_pmu_info_t info;
  if (!FindPmu(pmu, &info))
    return Fail(
        err, ErrorKind::kUsage,
        "libpfm4 " + PfmVersion() + " has no PMU '" + pmu + "'" + DidYouMean(pmu, PmuNames()));
  std::vector<PfmEvent> events;
  ListEventsOf(info, &events);
  const PfmEvent* found = nullptr;
  std::vector<std::string> event_names;
  for (const auto& event : events) {
    if (event.name == parts[0]) found = &event;
    event_names.push_back(event.name);
  }
  if (!found)
    return Fail(err, ErrorKind::kUsage,
                pmu + " has no event '" + parts[0] + "' in libpfm4 " + PfmVersion() +
                    DidYouMean(parts[0], event_names));
  std::vector<std::string> attrs;
  for (const auto& u : found->umasks) attrs.push_back(u.name);
  for (const auto& m : found->modifiers) attrs.push_back(m);
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string attr = parts[i].substr(0, parts[i].find('='));
    bool known = false;
    for (const auto& u : found->umasks) known = known || u.name == attr;
    // A modifier takes a value ("c=2"); a bare boolean modifier ("u") is accepted as libpfm4 does.
    for (const auto& m : found->modifiers) known = known || m == attr;
    if (!known)
      return Fail(err, ErrorKind::kUsage,
                  pmu + "::" + found->name + " has no unit mask or modifier '" + attr + "'" +
                      DidYouMean(attr, attrs));
  }
  return true;
}

bool LibpfmFindsEvent(const std::string& name) {
  return InitPfm(nullptr) && pfm_find_event(name.c_str()) >= 0;
}

std::string CpuidCorePmuName() {
  if (!InitPfm(nullptr)) return "";
  for (const auto& pmu : ListPmus()) {
    // ix86arch is Intel's architectural subset; the model PMU next to it is the useful name.
    if (pmu.present && pmu.type == PfmPmu::Type::kCore && pmu.name != "ix86arch") return pmu.name;
  }
  return "";
}

std::string HostCorePmuName(Error* err) {
  if (!InitPfm(err)) return "";
  return CorePmuNameFrom("", CpuidCorePmuName(), err);
}

std::string CorePmuNameFrom(const std::string& root, const std::string& cpuid_model, Error* err) {
  // The kernel's PMU first: without it no hardware event opens, whatever libpfm4 knows.
  std::string seen;
  if (!KernelHasCpuPmu(root, &seen)) {
    Fail(err, ErrorKind::kEnvironment,
         "the kernel exposes no CPU PMU (/sys/bus/event_source/devices has " +
             (seen.empty() ? std::string("nothing") : seen) +
             "): hardware events cannot be opened, as in a virtual machine without a vPMU; " +
             (cpuid_model.empty() ? std::string("this libpfm4 does not know this CPU either")
                                  : "libpfm4 reads the CPU as " + cpuid_model + " from CPUID"));
    return "";
  }
  if (cpuid_model.empty()) {
    Fail(err, ErrorKind::kEnvironment, "this libpfm4 does not recognise this CPU's PMU model");
    return "";
  }
  return cpuid_model;
}

}  // namespace rprof
