// A run's metrics and its regions' placements by region, grouped once: each region's metrics in
// their order, pointing into the run's; a region without a placement has none.
#include "report/run_regions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rprof {
namespace {

Metric Named(const std::string& name, const std::string& region) {
  Metric m;
  m.name = name;
  m.region = region;
  return m;
}

TEST(RunRegions, MetricsByRegionInTheirOrder) {
  std::vector<Metric> metrics = {Named("time_s", ""), Named("flops", "solve"), Named("flops", ""),
                                 Named("time_s", "solve"), Named("time_s", "init")};
  RegionMetrics regions = GroupByRegion(metrics);
  ASSERT_EQ(regions.size(), 3u);
  EXPECT_EQ(regions[""], (std::vector<const Metric*>{&metrics[0], &metrics[2]}));
  EXPECT_EQ(regions["solve"], (std::vector<const Metric*>{&metrics[1], &metrics[3]}));
  EXPECT_EQ(regions["init"], (std::vector<const Metric*>{&metrics[4]}));
  EXPECT_TRUE(GroupByRegion({}).empty());
}

TEST(RunRegions, PlacementOfEachRegionByName) {
  RunPlacement run;
  run.profile_id = 1;
  run.regions.push_back({"solve", Placement()});
  run.regions.back().placement.verdict = "solve's";
  run.regions.push_back({"init", Placement()});
  run.regions.back().placement.verdict = "init's";
  RegionPlacements placements(&run);
  ASSERT_NE(placements.Of("solve"), nullptr);
  EXPECT_EQ(placements.Of("solve")->verdict, "solve's");
  EXPECT_EQ(placements.Of("init"), &run.regions[1].placement);
  EXPECT_EQ(placements.Of("other"), nullptr);
  EXPECT_EQ(placements.Of(""), nullptr);  // the run's own placement is not a region's

  RegionPlacements none(nullptr);
  EXPECT_EQ(none.Of("solve"), nullptr);
}

}  // namespace
}  // namespace rprof
