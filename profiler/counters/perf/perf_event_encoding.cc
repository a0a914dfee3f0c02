#include "counters/perf/perf_event_encoding.h"

#include <papi.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "counters/papi/papi_presets.h"
#include "counters/pmu/pfm_events.h"
#include "counters/pmu_diagnosis.h"

namespace rprof {

namespace {

// A PAPI preset defined as one native event becomes that event's libpfm4 name; one PAPI does
// not define here, its generic stand-in (papi/papi_presets.h), with *note saying so.
bool PresetToNative(const std::string& name, std::string* native, std::string* note, Error* err) {
  // Every preset is a hardware event: without hardware counters, say so without paying for
  // PAPI's start-up (tens of milliseconds, more than a short program takes).
  const PmuDiagnosis& pmu = DiagnosePmu();
  if (!pmu.hardware_counters) return Fail(err, ErrorKind::kEnvironment, WhyNoHardwareEvent(pmu));
  if (PAPI_is_initialized() == PAPI_NOT_INITED) PAPI_library_init(PAPI_VER_CURRENT);
  int code = 0;
  PAPI_event_info_t info;
  if (std::string stand_in = PresetStandIn(name, note); !stand_in.empty()) {
    *native = stand_in;
    return true;
  }
  if (PAPI_event_name_to_code(name.c_str(), &code) != PAPI_OK ||
      PAPI_get_event_info(code, &info) != PAPI_OK || info.count == 0)
    return Fail(err, ErrorKind::kEnvironment, "PAPI has no definition of this preset for this CPU");
  if (info.count != 1)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("PAPI derives this preset from ") + std::to_string(info.count) +
                    " events (" + info.derived + "); name the native events instead");
  *native = info.name[0];
  return true;
}

// The perf software events by the names libpfm4 gives them, encoded without starting libpfm4
// (which reads every PMU table it knows: milliseconds, more than a short program runs).
bool SoftwareEvent(const std::string& name, perf_event_attr* attr) {
  static const struct {
    const char* name;
    uint64_t config;
  } kSoftware[] = {
      {"perf::TASK-CLOCK", PERF_COUNT_SW_TASK_CLOCK},
      {"perf::CPU-CLOCK", PERF_COUNT_SW_CPU_CLOCK},
      {"perf::PAGE-FAULTS", PERF_COUNT_SW_PAGE_FAULTS},
      {"perf::CONTEXT-SWITCHES", PERF_COUNT_SW_CONTEXT_SWITCHES},
      {"perf::CPU-MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS},
      {"perf::MINOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MIN},
      {"perf::MAJOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
  };
  for (const auto& e : kSoftware) {
    if (name != e.name) continue;
    attr->type = PERF_TYPE_SOFTWARE;
    attr->config = e.config;
    return true;
  }
  return false;
}

}  // namespace

bool EncodePerfEvent(const std::string& name, perf_event_attr* attr, std::string* note,
                     Error* err) {
  std::string native = name;
  if (name.rfind("PAPI_", 0) == 0 && !PresetToNative(name, &native, note, err)) return false;
  if (SoftwareEvent(native, attr)) return true;
  int code = PFM_ERR_NOINIT;
  if (InitPfm(nullptr)) {
    pfm_perf_encode_arg_t arg;
    std::memset(&arg, 0, sizeof arg);
    arg.attr = attr;
    arg.size = sizeof arg;
    code = pfm_get_os_event_encoding(native.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  }
  if (code == PFM_SUCCESS) return true;
  if (code != PFM_ERR_NOTFOUND)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("libpfm4 cannot encode it here: ") + pfm_strerror(code));
  // Not in the tables of the PMUs libpfm4 finds here: a typo, or the event of a PMU this
  // machine lacks or this libpfm4 does not know.
  std::string why = "no such event for libpfm4 on this machine; `rprof events` lists the events";
  if (!DiagnosePmu().hardware_counters) why += " (" + DiagnosePmu().cause + ")";
  return Fail(err, ErrorKind::kEnvironment, why);
}

int OpenPerfEvent(const std::string& name, pid_t pid, PerfTarget target, perf_event_attr* attr,
                  std::string* note, Error* err) {
  std::memset(attr, 0, sizeof *attr);
  if (!EncodePerfEvent(name, attr, note, err)) return -1;
  attr->size = sizeof *attr;
  attr->disabled = 1;
  attr->exclude_kernel = 1;
  attr->exclude_hv = 1;
  attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  if (target == PerfTarget::kProcessFromExec) {
    attr->enable_on_exec = 1;
    attr->inherit = 1;
  }
  long fd = syscall(SYS_perf_event_open, attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) Fail(err, ErrorKind::kEnvironment, WhyNotOpened(*attr, errno));
  return static_cast<int>(fd);
}

std::string WhyNotOpened(const perf_event_attr& attr, int errno_value) {
  const PmuDiagnosis& pmu = DiagnosePmu();
  if (attr.type != PERF_TYPE_SOFTWARE && !pmu.hardware_counters) return WhyNoHardwareEvent(pmu);
  return std::string("perf_event_open: ") + std::strerror(errno_value);
}

}  // namespace rprof
