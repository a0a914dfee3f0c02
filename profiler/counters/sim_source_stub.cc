// Built when Zydis is not found: the sim source explains how to get it.
#include "counters/sim_source.h"

namespace rprof {

bool SimAvailable(std::string* why) {
  *why = "this rprof was built without the sim source (Zydis missing): install libzydis-dev and "
         "rebuild (scripts/bootstrap)";
  return false;
}

bool RunSim(const SimRequest&, SimResult*, Error* err) {
  std::string why;
  SimAvailable(&why);
  return Fail(err, ErrorKind::kEnvironment, "sim: " + why);
}

std::string SimRunnerPath() { return ""; }

void SimGeometryForThisMachine(std::string* d1, std::string* ll) {
  d1->clear();
  ll->clear();
}

bool ShouldRunSim(SimMode mode, double, double, double, std::string* why) {
  return mode != SimMode::kNever && SimAvailable(why);
}

}  // namespace rprof
