#include "roofline/bandwidth_roof.h"

#include "roofline/placement.h"

namespace rprof {

bool ScalarCode(const ComputeRoofChoice& roof) {
  if (!roof.isa_measured || roof.mix.empty()) return false;
  for (const IsaShare& s : roof.mix)
    if (s.roof_isa != "scalar") return false;
  return true;
}

const Ceiling* CodeBandwidthRoof(const MachineProfile& profile, const std::string& level,
                                 int threads, ByteConvention convention,
                                 const ComputeRoofChoice& roof) {
  if (ScalarCode(roof)) {
    const Ceiling* best = nullptr;
    for (const Ceiling& c : profile.ceilings)
      if (IsScalarBandwidthCeiling(c) && c.level == level && c.threads == threads &&
          (!best || CeilingValue(c, convention) > CeilingValue(*best, convention)))
        best = &c;
    if (best) return best;
  }
  return BandwidthRoof(profile, level, threads, convention);
}

std::string ScalarRoofWords(const MachineProfile& profile, const std::string& ceiling,
                            int threads) {
  for (const Ceiling& c : profile.ceilings)
    if (c.name == ceiling && c.threads == threads && IsScalarBandwidthCeiling(c))
      return " for scalar loads, " + ceiling;
  return "";
}

}  // namespace rprof
