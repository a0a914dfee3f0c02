// The compute roof a run is held against: the roof of the code it executed. Where a measured
// source splits the run's FLOPs by precision and vector width (sim always; pmu where the PMU has
// such events), each (precision, ISA) share of the FLOPs is held against that ISA's ceiling,
// and mixed code gets their FLOP-weighted (harmonic) combination: scalar code is never promised
// the AVX2 roof. Where the mix is not measured, the best roof of the run's precision is assumed,
// and the roof says so.
#ifndef RPROF_ROOFLINE_COMPUTE_ROOF_H_
#define RPROF_ROOFLINE_COMPUTE_ROOF_H_

#include <string>
#include <vector>

#include "core/metric.h"
#include "machine/machine_profile.h"

namespace rprof {

struct RunShape;

// One (precision, ISA) part of the code the run executed.
struct IsaShare {
  std::string precision;  // "fp64", "fp32"
  std::string isa;        // "scalar", "sse", "avx2", "avx512" (the ceilings' names)
  double share = 0;       // of the run's FLOPs counted by width, 0..1
  // The ISA whose ceiling holds this share: `isa`, except vector code sim counted in another
  // build than the one timed (RunShape::sim_build_isa), held against the widest vector roof.
  std::string roof_isa;
  double roof = 0;      // GFLOP/s: the best ceiling of that precision and roof_isa
  std::string ceiling;  // its name, e.g. "fp64_scalar_fma"
};

struct ComputeRoofChoice {
  // The roof the run is held against and its ceiling(s): "fp64_scalar_fma", or several joined
  // with "+" (mixed code, or mixed precision), combined as `note` says.
  std::string name;
  double value = 0;  // GFLOP/s
  std::string note;  // mixed precision without a measured ISA mix: how the two were combined
  // The instruction mix was measured and chose `value` (else the widest roof was assumed).
  bool isa_measured = false;
  std::vector<IsaShare> mix;  // isa_measured: the shares over 1 % of the FLOPs, largest first
  Source mix_source = Source::kSim;
  // The best roof of the run's precision, whatever the code: what the widest vector code could
  // reach (== value where the mix is not measured).
  std::string widest_name;
  double widest = 0;
  std::string widest_isa;  // the widest roof's ISA ("avx2"); "" when it combines two ceilings
  // In words: the code's roof and where it came from, or which roof was assumed and why.
  std::string isa_note;
};

// The compute roof of `shape` (its precision and thread count) for a run with `metrics`. False,
// with the precision it lacks ("" when any), when the profile has no ceiling the shape needs.
bool ChooseComputeRoof(const std::vector<Metric>& metrics, const RunShape& shape,
                       const MachineProfile& profile, ComputeRoofChoice* out, std::string* lacking);

// "scalar", "SSE", "AVX2", "AVX-512": an ISA as people name it.
std::string IsaLabel(const std::string& isa);

// The code in words: "scalar code", "AVX2 code", "mixed code (52 % scalar, 48 % AVX2)".
std::string CodeDescription(const ComputeRoofChoice& roof);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_COMPUTE_ROOF_H_
