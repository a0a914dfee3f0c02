// Why hardware events cannot be counted here, found by trying: opens a hardware instructions
// counter (then cycles: a PMU may lack one generic event) with perf_event_open and turns the
// errno into a cause and a way out. Shared by the
// pmu source's error messages and `rprof doctor`.
#ifndef RPROF_COUNTERS_PMU_DIAGNOSIS_H_
#define RPROF_COUNTERS_PMU_DIAGNOSIS_H_

#include <string>

namespace rprof {

struct PmuDiagnosis {
  bool hardware_counters = false;  // a hardware event opened and counted
  bool virtual_machine = false;    // cpuid's hypervisor bit
  int paranoid = -1;               // /proc/sys/kernel/perf_event_paranoid, -1 if unreadable
  std::string cause;               // empty when hardware_counters
  std::string remedy;              // every way out, in words: sim_helps's first
  // The ways out, as parts, so that advice can leave out what a run already did: whether
  // counting with --counters sim instead is one (no PMU to count with here), and the others
  // ("enable the virtual PMU in the hypervisor …"; "" when sim is the only one).
  bool sim_helps = false;
  std::string other_remedy;
  // The suite's fake PMU (tests/fake_pmu, LD_PRELOADed) answers hardware events with software
  // clocks: their values are no measurement, and every run counted under it says so.
  bool fake = false;
};

// What a run counted under the fake PMU says of its pmu values.
inline constexpr const char kFakePmuNote[] =
    "pmu: librprof-fake-pmu.so answers hardware events with software clocks here (a test "
    "fixture): these pmu values are no measurement";

// What the sim source did for a run: the remedy advises it only where it was not asked for.
// kRefusedHere: the run is a rank of a parallel job, which refuses sim (kSimOutsideTheJob).
enum class SimOutcome { kNotAsked, kCounted, kGaveNothing, kRefusedHere };

// The remedy for a run, by what sim did for it: without the advice to run with --counters sim
// when sim counted the run (saying so), or was asked for and gave nothing (it would only be
// refused again: the run's note says why).
std::string PmuRemedy(const PmuDiagnosis& diagnosis, SimOutcome sim);

// Why a hardware event cannot be counted here and what would make it countable: the cause and
// the hardware-side remedies only. (--counters sim gives FLOPs and bytes, never the event: the
// run's trust note advises it where the run did not use it.)
std::string WhyNoHardwareEvent(const PmuDiagnosis& diagnosis);

// Probes once per process (the answer does not change while rprof runs).
const PmuDiagnosis& DiagnosePmu();

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_DIAGNOSIS_H_
