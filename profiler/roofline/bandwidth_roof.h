// The bandwidth roof a run's code is held against at a memory level. The widest vector ceiling
// (BandwidthRoof, placement.h) is what vector code can reach; code measured scalar moves
// 8 bytes a load and is held against the level's scalar load ceiling (l1_load_scalar), where the
// profile has one, so that scalar code in L1 is not called compute-bound against a roof only
// two 64-byte loads a cycle reach.
#ifndef RPROF_ROOFLINE_BANDWIDTH_ROOF_H_
#define RPROF_ROOFLINE_BANDWIDTH_ROOF_H_

#include <string>

#include "machine/machine_profile.h"
#include "roofline/compute_roof.h"

namespace rprof {

// Whether a measured source found the run's FLOPs all scalar: roof.isa_measured and every
// share of roof.mix (those over 1 % of the FLOPs) held against the scalar compute roof.
bool ScalarCode(const ComputeRoofChoice& roof);

// The roof of `level` at `threads` for the code `roof` describes, compared in `convention`:
// for scalar code (ScalarCode), the level's scalar load ceiling (IsScalarBandwidthCeiling) where
// the profile has one; otherwise, and for levels without one (DRAM, where the widths meet, and
// profiles measured before rprof measured them), BandwidthRoof's widest ceiling. Mixed code and
// vector code keep the widest: the widest is what their vector loads can reach, and a roof
// weighted by the shares of scalar and vector loads would need the loads split by width, which
// no source counts (the FLOP mix is not the load mix). nullptr when the profile has no roof for
// the level.
const Ceiling* CodeBandwidthRoof(const MachineProfile& profile, const std::string& level,
                                 int threads, ByteConvention convention,
                                 const ComputeRoofChoice& roof);

// For a verdict: " for scalar loads, l1_load_scalar" where `ceiling` is the name of a scalar
// load ceiling of `profile` at `threads` (IsScalarBandwidthCeiling); "" for any other.
std::string ScalarRoofWords(const MachineProfile& profile, const std::string& ceiling, int threads);

}  // namespace rprof

#endif  // RPROF_ROOFLINE_BANDWIDTH_ROOF_H_
