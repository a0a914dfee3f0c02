#include "counters/perf/process_counters.h"

#include <linux/perf_event.h>
#include <papi.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "counters/event_unit.h"
#include "counters/pmu/pfm_events.h"
#include "counters/pmu_diagnosis.h"

namespace rprof {

namespace {

bool InitLibpfm() {
  std::string why;
  return InitPfm(&why);
}

// A PAPI preset defined as one native event becomes that event's libpfm4 name.
bool PresetToNative(const std::string& name, std::string* native, std::string* why) {
  // Every preset is a hardware event: without hardware counters, say so without paying for
  // PAPI's start-up (tens of milliseconds, more than a short program takes).
  const PmuDiagnosis& pmu = DiagnosePmu();
  if (!pmu.hardware_counters) {
    *why = WhyNoHardwareEvent(pmu);
    return false;
  }
  if (PAPI_is_initialized() == PAPI_NOT_INITED) PAPI_library_init(PAPI_VER_CURRENT);
  int code = 0;
  PAPI_event_info_t info;
  if (PAPI_event_name_to_code(name.c_str(), &code) != PAPI_OK ||
      PAPI_get_event_info(code, &info) != PAPI_OK || info.count == 0) {
    *why = "PAPI has no definition of this preset for this CPU";
    return false;
  }
  if (info.count != 1) {
    *why = std::string("PAPI derives this preset from ") + std::to_string(info.count) +
           " events (" + info.derived + "); name the native events instead";
    return false;
  }
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

std::unique_ptr<ProcessCounters> ProcessCounters::Open(pid_t pid,
                                                       const std::vector<std::string>& events,
                                                       bool allow_missing, Error* err) {
  auto counters = std::unique_ptr<ProcessCounters>(new ProcessCounters());
  for (const std::string& name : events) {
    Event event{name, -1, ""};
    std::string native = name;
    bool named = name.rfind("PAPI_", 0) != 0 || PresetToNative(name, &native, &event.reason);
    if (named) {
      perf_event_attr attr;
      std::memset(&attr, 0, sizeof attr);
      pfm_perf_encode_arg_t arg;
      std::memset(&arg, 0, sizeof arg);
      arg.attr = &attr;
      arg.size = sizeof arg;
      int code = SoftwareEvent(native, &attr) ? PFM_SUCCESS
                 : InitLibpfm() ? pfm_get_os_event_encoding(native.c_str(), PFM_PLM3,
                                                            PFM_OS_PERF_EVENT_EXT, &arg)
                                : PFM_ERR_NOINIT;
      if (code != PFM_SUCCESS) {
        event.reason = std::string("libpfm4 cannot encode it here: ") + pfm_strerror(code);
        if (code == PFM_ERR_NOTFOUND && !DiagnosePmu().hardware_counters)
          event.reason += " (" + DiagnosePmu().cause + ")";
      } else {
        attr.size = sizeof attr;
        attr.disabled = 1;
        attr.enable_on_exec = 1;
        attr.inherit = 1;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        long fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
          event.fd = static_cast<int>(fd);
        } else {
          const PmuDiagnosis& pmu = DiagnosePmu();
          event.reason = attr.type != PERF_TYPE_SOFTWARE && !pmu.hardware_counters
                             ? WhyNoHardwareEvent(pmu)
                             : std::string("perf_event_open: ") + std::strerror(errno);
        }
      }
    }
    if (event.fd < 0 && !allow_missing) {
      Fail(err, ErrorKind::kEnvironment, "cannot open event " + name + ": " + event.reason,
           Remedy::kAllowMissingEvents);
      return nullptr;
    }
    counters->events_.push_back(std::move(event));
  }
  return counters;
}

ProcessCounters::~ProcessCounters() {
  for (const Event& e : events_)
    if (e.fd >= 0) close(e.fd);
}

std::vector<Metric> ProcessCounters::Read() const {
  std::vector<Metric> out;
  for (const Event& e : events_) {
    Metric m{e.name, std::nullopt, EventUnit(e.name), Source::kPmu, "", e.reason};
    uint64_t values[3] = {};  // value, time enabled, time running
    if (e.fd >= 0) {
      if (read(e.fd, values, sizeof values) != static_cast<ssize_t>(sizeof values)) {
        m.note = std::string("read failed: ") + std::strerror(errno);
      } else if (values[2] == 0) {
        m.note = values[1] == 0 ? "never enabled: the program did not start"
                                : "never scheduled on a counter";
      } else if (values[2] < values[1]) {
        double coverage = static_cast<double>(values[2]) / static_cast<double>(values[1]);
        m.value = static_cast<double>(values[0]) / coverage;
        m.coverage = coverage;
        char note[64];
        std::snprintf(note, sizeof note, "multiplexed: counted %.0f %% of the time, scaled",
                      coverage * 100);
        m.note = note;
      } else {
        m.value = static_cast<double>(values[0]);
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> ProcessCounters::CountedNames() const {
  std::vector<std::string> names;
  for (const Event& e : events_)
    if (e.fd >= 0) names.push_back(e.name);
  return names;
}

}  // namespace rprof
