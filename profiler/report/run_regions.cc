#include "report/run_regions.h"

namespace rprof {

RegionMetrics GroupByRegion(const std::vector<Metric>& metrics) {
  RegionMetrics by_region;
  for (const Metric& m : metrics) by_region[m.region].push_back(&m);
  return by_region;
}

RegionPlacements::RegionPlacements(const RunPlacement* placement) {
  if (placement)
    for (const RegionPlacement& rp : placement->regions)
      by_region_.emplace(rp.region, &rp.placement);
}

const Placement* RegionPlacements::Of(const std::string& region) const {
  auto found = by_region_.find(region);
  return found == by_region_.end() ? nullptr : found->second;
}

}  // namespace rprof
