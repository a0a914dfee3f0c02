// A run's metrics and its marker regions' placements by region, grouped once for the reports
// that write each region in turn: a program may mark 10^5 regions, and a scan of every metric
// (or every placement) per region would cost rprof minutes.
#ifndef RPROF_REPORT_RUN_REGIONS_H_
#define RPROF_REPORT_RUN_REGIONS_H_

#include <map>
#include <string>
#include <vector>

#include "core/metric.h"
#include "roofline/placement.h"

namespace rprof {

// Metrics by region name ("" for the run's own), each region's in the order given.
using RegionMetrics = std::map<std::string, std::vector<const Metric*>>;

// Points into `metrics`, which must outlive the result.
RegionMetrics GroupByRegion(const std::vector<Metric>& metrics);

// The placements of a run's marker regions, by region name.
class RegionPlacements {
 public:
  // `placement`: the run's (pointed into, so it must outlive this); nullptr, none placed.
  explicit RegionPlacements(const RunPlacement* placement);
  // The region's placement; nullptr where it has none.
  const Placement* Of(const std::string& region) const;

 private:
  std::map<std::string, const Placement*> by_region_;
};

}  // namespace rprof

#endif  // RPROF_REPORT_RUN_REGIONS_H_
