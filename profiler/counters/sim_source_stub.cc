// Built when Zydis is not found: the sim source explains how to get it.
#include "counters/sim/replay_cost.h"
#include "counters/sim_source.h"

namespace rprof {

Availability SimAvailability() {
  return {false, "this rprof was built without the sim source (Zydis missing)",
          "install libzydis-dev and rebuild (scripts/bootstrap)"};
}

bool RunSim(const SimRequest&, SimResult*, Error* err) {
  return Fail(err, ErrorKind::kEnvironment, "sim: " + SimAvailability().Text());
}

std::string SimRunnerPath() { return ""; }

void SimGeometry(const CacheSizes&, std::string* d1, std::string* ll) {
  d1->clear();
  ll->clear();
}

std::vector<std::string> SimHierarchy(const CacheSizes&) { return {}; }

std::string SimBackend(bool* simtool) {
  *simtool = false;
  return "none (no sim source in this build)";
}

std::string SimulatorName() { return ""; }

bool ShouldRunSim(SimMode mode, double, double, const std::string&, Error* err) {
  if (mode == SimMode::kNever) return false;
  return Fail(err, ErrorKind::kEnvironment, SimAvailability().Text());
}

// Without a sim source, sim replays nothing: it has no limit to name.
std::string SimIsaLimit(const Topology&) { return ""; }

// Nothing decodes the sampled code without Zydis: a replay's expectation rests on its native time.
std::optional<ReplaySlowdown> SampledReplaySlowdown(const FunctionSamples&) { return std::nullopt; }

}  // namespace rprof
