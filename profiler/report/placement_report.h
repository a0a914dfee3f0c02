// A placement as text (after every run, in `rprof show`) and as JSON (the "placement" key).
#ifndef RPROF_REPORT_PLACEMENT_REPORT_H_
#define RPROF_REPORT_PLACEMENT_REPORT_H_

#include <string>
#include <vector>

#include "core/json.h"
#include "report/table.h"
#include "roofline/placement.h"

namespace rprof {

// Several lines for people: verdict, roof, then a table of one row per level and source with
// AI, attainable, ridge; added to `report` (text only), which fits them to the terminal.
void AddPlacementText(const Placement& placement, int64_t profile_id, Report* report);

// One line per marker region, under the run's lines: "region triad: DRAM-bandwidth-bound at …"
// or "region init: not placed: …". "" without regions.
std::string RegionPlacementsText(const std::vector<RegionPlacement>& regions);

// {"placed", "reason", "profile_id", "compute_ceiling", "peak_gflops", "achieved_gflops",
//  "achieved_source", "binding", "attainable_gflops", "percent_of_roof", "verdict",
//  "levels": [{"level","source","ai","bandwidth_gbs","bandwidth_ceiling","attainable_gflops",
//              "ridge_ai","memory_bound"}]}
void WritePlacementJson(const Placement& placement, int64_t profile_id, JsonWriter* w);

}  // namespace rprof

#endif  // RPROF_REPORT_PLACEMENT_REPORT_H_
