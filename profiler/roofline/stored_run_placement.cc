#include "roofline/stored_run_placement.h"

#include "functions/hot_functions.h"
#include "store/profile_store.h"

namespace rprof {

RunPlacement PlaceStoredRun(RunStore* store, const RunRecord& run) {
  RunPlacement result;
  StoredProfile profile;
  bool found = false;
  Error err;
  if (!LoadNewestProfile(store, run.machine.fingerprint, &profile, &found, &err)) {
    result.missing = "cannot read the machine profile: " + err.message;
    return result;
  }
  if (!found) {
    result.missing =
        "no machine profile for this machine yet; `rprof machine measure` (about "
        "5 s) measures its roofline, then every run is placed on it";
    return result;
  }
  result.profile_id = profile.id;
  result.profile_noisy_reasons = profile.profile.noisy_reasons;
  RunShape shape = RunShapeOf(run, profile.profile);
  result.placement = PlaceRun(run.metrics, shape, profile.profile);
  // Marker regions by name, then hot functions heaviest first (issue 37).
  std::vector<std::string> order;
  for (const std::string& region : RegionNames(run.metrics))
    if (!IsFunctionRegion(region)) order.push_back(region);
  for (std::string& region : FunctionRegionsHeaviestFirst(run.metrics))
    order.push_back(std::move(region));
  for (const std::string& region : order)
    result.regions.push_back({region, PlaceRegion(run.metrics, region, shape, profile.profile)});
  return result;
}

std::optional<PlacementRecord> PlacementToStore(const RunPlacement& placement) {
  if (placement.profile_id == 0) return std::nullopt;
  const Placement& p = placement.placement;
  PlacementRecord record;
  record.profile_id = placement.profile_id;
  record.compute_ceiling = p.compute_ceiling;
  record.peak_gflops = p.peak;
  if (p.placed) {
    record.binding = p.binding;
    record.bound = p.bound;
    record.bytes_compulsory_only = p.bytes_compulsory_only;
    if (p.attainable > 0) record.attainable_gflops = p.attainable;
    record.binding_level = p.binding_level;
    if (!p.binding_level.empty()) record.binding_source = std::string(SourceName(p.binding_source));
    record.bound_text = BoundText(p);
  }
  record.percent_of_roof = p.percent_of_roof;
  record.verdict = p.placed ? p.verdict : p.reason;
  record.note = p.note;
  return record;
}

}  // namespace rprof
