// What a measuring command does between its options and its report (pipeline/run_session.h),
// on a real SQLite file with a real built-in kernel: the store opens before anything runs, a
// measured run gets what the session adds (machine, version, declared precision) and ends
// stored whole; a database that cannot take a run stops the session before it measures.
#include "pipeline/run_session.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "targets/kernel_catalog.h"
#include "targets/kernel_target.h"
#include "temp_files.h"

namespace rprof {
namespace {

using testing_support::TempDir;

std::unique_ptr<KernelTarget> SmallTriad() {
  const CatalogEntry* triad = BuiltinCatalog().Find("triad");
  EXPECT_NE(triad, nullptr);
  rprof_args args{};
  KeyValues shown;
  Error err;
  EXPECT_TRUE(ParseKernelArgs(*triad->kernel, {"n=4096"}, &args, &shown, &err)) << err.message;
  MeasureOptions measure;
  measure.repetitions = 3;
  return std::make_unique<KernelTarget>(*triad, args, std::move(shown), measure);
}

TEST(RunSession, AMeasuredRunGetsWhatTheSessionAddsAndIsStoredWhole) {
  TempDir dir;
  SessionOptions options;
  options.db = {dir.File("runs.db"), false};
  options.precision = "fp32";  // declared: wins over the kernel's measured split
  CounterRequest request;
  RunRecord base;
  base.tags.emplace_back("who", "session test");
  RunSession session;
  Error err;
  ASSERT_TRUE(session.Open(options, &request, &base, &err)) << err.message;
  EXPECT_FALSE(base.machine.fingerprint.empty());
  EXPECT_FALSE(base.rprof_version.empty());
  EXPECT_FALSE(base.job.has_value());

  std::vector<ChosenSource> sources;
  ASSERT_TRUE(ChooseSources("model", &sources, &err)) << err.message;
  std::unique_ptr<KernelTarget> triad = SmallTriad();
  RunRecord run = base;
  std::vector<SourceFailure> failed;
  ASSERT_TRUE(session.Measure(*triad, sources, request, &run, &failed, &err)) << err.message;
  EXPECT_TRUE(failed.empty());
  EXPECT_EQ(run.precision, "fp32");
  EXPECT_TRUE(run.sim_caches.empty()) << "no sim, no simulated geometry";
  RunPlacement placement;
  ASSERT_TRUE(session.Finish(&run, &placement, &err)) << err.message;
  ASSERT_GT(run.id, 0);

  RunStore reader;
  ASSERT_TRUE(reader.OpenReadOnly(options.db, &err)) << err.message;
  RunRecord stored;
  ASSERT_TRUE(reader.Load(run.id, &stored, &err)) << err.message;
  EXPECT_EQ(stored.precision, "fp32");
  EXPECT_EQ(stored.target, "triad");
  EXPECT_EQ(stored.metrics.size(), run.metrics.size());
  ASSERT_EQ(stored.tags.size(), 1u);
  EXPECT_EQ(stored.tags[0].second, "session test");
}

TEST(RunSession, ADatabaseThatCannotTakeARunStopsItBeforeAnythingRuns) {
  TempDir dir;
  SessionOptions options;
  options.db = {dir.File("not-a-directory") + "/runs.db", false};
  {
    FILE* f = std::fopen(dir.File("not-a-directory").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  CounterRequest request;
  RunRecord base;
  RunSession session;
  Error err;
  EXPECT_FALSE(session.Open(options, &request, &base, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_NE(err.message.find("not-a-directory"), std::string::npos) << err.message;
}

}  // namespace
}  // namespace rprof
