// The end of `machine measure` on a real SQLite file: a profile stored after another of this
// machine keeps the level sizes they agree on and counts the agreement; each level is given its
// size; what comes back is the profile as stored, newest of this machine.
#include "pipeline/profile_pipeline.h"

#include <gtest/gtest.h>

#include <string>

#include "machine/current_machine.h"
#include "temp_files.h"

namespace rprof {
namespace {

MachineProfile Measured(uint64_t l3_effective) {
  MachineProfile p;
  p.mode = "quick";
  p.threads = 1;
  p.seconds = 4.5;
  p.levels = {{"l1", 32768, 32768, 1.4, 200, 0, ""},
              {"l2", 1 << 20, 1 << 20, 4.0, 100, 0, ""},
              {"l3", 32 << 20, l3_effective, 40, 30, 0, ""},
              {"dram", 0, 0, 110, 15, 0, ""}};
  return p;
}

const LevelSummary* Level(const StoredProfile& stored, const std::string& name) {
  for (const LevelSummary& l : stored.profile.levels)
    if (l.level == name) return &l;
  return nullptr;
}

TEST(StoreMeasuredProfile, ReconcilesWithTheNewestProfileAndDecidesSizes) {
  testing_support::TempDir dir;
  RunStore store;
  Error err;
  ASSERT_TRUE(store.Open({dir.File("runs.db"), false}, &err)) << err.message;

  StoredProfile first;
  ASSERT_TRUE(StoreMeasuredProfile(&store, Measured(16 << 20), &first, &err)) << err.message;
  EXPECT_GT(first.id, 0);
  ASSERT_NE(Level(first, "l3"), nullptr);
  EXPECT_EQ(Level(first, "l3")->size_agreement, 1);
  EXPECT_FALSE(Level(first, "l3")->size_rule.empty()) << "no size decided";

  // Within one grid step of the first one's: the first's size is kept, and counted.
  StoredProfile second;
  ASSERT_TRUE(StoreMeasuredProfile(&store, Measured((16 << 20) + (1 << 20)), &second, &err))
      << err.message;
  EXPECT_GT(second.id, first.id);
  ASSERT_NE(Level(second, "l3"), nullptr);
  EXPECT_EQ(Level(second, "l3")->effective_size, uint64_t{16} << 20);
  EXPECT_EQ(Level(second, "l3")->size_agreement, 2);

  StoredProfile newest;
  bool found = false;
  ASSERT_TRUE(LoadNewestProfile(&store, CurrentMachine().fingerprint, &newest, &found, &err));
  ASSERT_TRUE(found);
  EXPECT_EQ(newest.id, second.id);
}

}  // namespace
}  // namespace rprof
