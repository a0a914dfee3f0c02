#include "counters/pmu_diagnosis.h"

#include <dlfcn.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "core/run.h"

namespace rprof {

namespace {

bool HypervisorBit() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("flags", 0) == 0) return line.find(" hypervisor") != std::string::npos;
  return false;
}

int ReadParanoid() {
  std::ifstream file("/proc/sys/kernel/perf_event_paranoid");
  int value = -1;
  return file >> value ? value : -1;
}

PmuDiagnosis Probe() {
  PmuDiagnosis d;
  d.virtual_machine = HypervisorBit();
  d.paranoid = ReadParanoid();
  d.fake = dlsym(RTLD_DEFAULT, "rprof_fake_pmu_active") != nullptr;
  int error = 0;
  for (uint64_t event : {PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES}) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = event;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd >= 0) {
      close(static_cast<int>(fd));
      d.hardware_counters = true;
      return d;
    }
    if (error == 0) error = errno;  // the first event's reason: instructions, the usual one
  }
  if (error == ENOENT || error == EOPNOTSUPP || error == ENODEV) {
    d.sim_helps = true;
    if (d.virtual_machine) {
      d.cause = "no hardware PMU in this virtual machine";
      d.other_remedy =
          "enable the virtual PMU in the hypervisor "
          "(KVM/libvirt: <cpu mode='host-passthrough'> with <pmu state='on'/>)";
    } else {
      d.cause = "the kernel exposes no hardware PMU for this CPU";
      d.other_remedy = "use a kernel with perf support for this CPU";
    }
  } else if (error == EACCES || error == EPERM) {
    d.cause = "perf_event_paranoid is " + std::to_string(d.paranoid) +
              ", which forbids counting for this user";
    d.other_remedy =
        "sudo sysctl kernel.perf_event_paranoid=1 (or run as root, or grant CAP_PERFMON); "
        "in a container, allow perf_event_open in its seccomp profile";
  } else {
    d.cause = std::string("perf_event_open failed: ") + std::strerror(error);
    d.sim_helps = true;
  }
  d.remedy = PmuRemedy(d, SimOutcome::kNotAsked);
  return d;
}

}  // namespace

std::string WhyNoHardwareEvent(const PmuDiagnosis& d) {
  return d.other_remedy.empty() ? d.cause : d.cause + "; " + d.other_remedy;
}

std::string PmuRemedy(const PmuDiagnosis& d, SimOutcome sim) {
  if (!d.sim_helps) return d.other_remedy;
  if (sim == SimOutcome::kNotAsked)
    return d.other_remedy.empty() ? "run with --counters sim"
                                  : "run with --counters sim, or " + d.other_remedy;
  std::string done = sim == SimOutcome::kCounted ? "sim counted this run instead"
                     : sim == SimOutcome::kRefusedHere
                         ? kSimOutsideTheJob
                         : "sim was asked for and gave no counts for this run (its note says why)";
  return d.other_remedy.empty() ? done : done + "; for hardware counts, " + d.other_remedy;
}

const PmuDiagnosis& DiagnosePmu() {
  static const PmuDiagnosis diagnosis = Probe();
  return diagnosis;
}

}  // namespace rprof
