// libpfm4's event tables, behind one interface: which PMU model this host has, whether an event
// name exists for a PMU (present or not), and the events of a PMU. Nothing here opens a counter:
// whether an event can be counted on this machine is decided by adding it (the pmu source).
// Built from pfm_events.cc when libpfm4 is found, else from pfm_events_stub.cc, which answers
// "not built with libpfm4" everywhere.
#ifndef RPROF_COUNTERS_PMU_PFM_EVENTS_H_
#define RPROF_COUNTERS_PMU_PFM_EVENTS_H_

#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

// Initialises libpfm4 once per process (thread-safe; later calls return the first result).
// Never calls pfm_terminate, so PAPI, which shares the library, is not disturbed.
// False with *err (environment) when libpfm4 cannot be used here.
[[nodiscard]] bool InitPfm(Error* err);

// The libpfm4 version as "4.13", or "" without libpfm4.
std::string PfmVersion();

struct PfmPmu {
  std::string name;         // as libpfm4 names it: "icx", "skx_unc_imc0", "amd64_fam19h_zen3"
  std::string description;  // libpfm4's, e.g. "Intel IcelakeX"
  enum class Type { kCore, kUncore, kOsGeneric, kUnknown } type = Type::kUnknown;
  bool present = false;  // libpfm4 detected it on this CPU (from CPUID, not from the kernel)
  int num_events = 0;
};

// Every PMU in libpfm4's tables, present or not, in libpfm4's order. Empty on failure.
std::vector<PfmPmu> ListPmus();

struct PfmUmask {
  std::string name;
  std::string description;
  bool is_default = false;
};

struct PfmEvent {
  std::string name;  // without PMU or unit mask: "FP_ARITH_INST_RETIRED"
  std::string description;
  std::vector<PfmUmask> umasks;
  std::vector<std::string> modifiers;  // e.g. "u", "k", "c" (PMU-level, as libpfm4 lists them)
};

// The events of one PMU (present or not), from libpfm4's table. False and *err (usage) when the
// PMU is not in the table (with a "did you mean").
[[nodiscard]] bool ListPmuEvents(const std::string& pmu, std::vector<PfmEvent>* events, Error* err);

// Whether "pmu::EVENT[:UMASK...][:modifier=value...]" names an event of that PMU in libpfm4's
// table, whether or not that PMU is on this machine. Checks the PMU, the event and each unit
// mask or modifier by name (exact spelling); does not check that unit masks may be combined.
// On false, *err (usage) says which part is unknown, with a "did you mean".
[[nodiscard]] bool EventExistsInTable(const std::string& qualified_name, Error* err);

// Whether libpfm4 resolves `name` to an event, qualified ("perf::CYCLES") or not ("CYCLES",
// looked up in the PMUs detected on this CPU), as PAPI's perf_event component resolves it.
bool LibpfmFindsEvent(const std::string& name);

// The core PMU model of this host as libpfm4 names it ("icx", "amd64_fam19h_zen3"), or "" when
// no hardware PMU can be used here; then *err (environment) says why, e.g. the kernel exposes no
// CPU PMU because this is a virtual machine without a vPMU. On hybrid CPUs, the first core PMU
// libpfm4 lists (the performance cores).
[[nodiscard]] std::string HostCorePmuName(Error* err = nullptr);

// HostCorePmuName's decision with both of its inputs given, so that a recorded machine can be
// judged anywhere: the PMUs the kernel exposes under root + "/sys/bus/event_source/devices"
// (root "" is this machine, else a recorded tree as in machine/topology.h's ReadTopologyFrom),
// and `cpuid_model`, the core PMU model libpfm4 reads from CPUID (CpuidCorePmuName() here; for a
// recording, the name libpfm4 gives its CPU). Returns cpuid_model when the kernel exposes a CPU
// PMU (cpu, cpu_core or cpu_atom, or an Arm core PMU) and cpuid_model is not empty, else "" with
// *err (environment) naming the devices that are there. Without libpfm4, "" and *err says so.
[[nodiscard]] std::string CorePmuNameFrom(const std::string& root, const std::string& cpuid_model,
                                          Error* err = nullptr);

// The core PMU model libpfm4 recognises from CPUID, whether or not the kernel exposes the PMU:
// "amd64_fam19h_zen3" on a Zen3 guest without vPMU. "" when unrecognised. For `rprof doctor`.
std::string CpuidCorePmuName();

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_PFM_EVENTS_H_
