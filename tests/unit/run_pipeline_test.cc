// The one way a measured run ends (pipeline/run_pipeline.h), on a real SQLite file: placed,
// given its trust notes (the target's own kept), stored whole; or, when the store cannot take
// it, saved whole to a recovery file. And many runs as one report (report/run_stream.h).
#include "pipeline/run_pipeline.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "raw_sqlite.h"
#include "report/run_report.h"
#include "report/run_stream.h"
#include "scoped_env.h"
#include "temp_files.h"
#include "test_runs.h"

namespace rprof {
namespace {

using testing_support::FullRun;
using testing_support::RawExec;
using testing_support::ScopedEnv;
using testing_support::TempDir;

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

class RunPipelineTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    path_ = dir_.File("runs.db");
    Error err;
    ASSERT_TRUE(store_.Open({path_, false}, &err)) << err.message;
  }
  RunPipeline Pipeline() { return {&store_, {path_, false}, nullptr}; }

  TempDir dir_;
  std::string path_;
  RunStore store_;
};

TEST_F(RunPipelineTest, ARunIsPlacedNotedAndStoredWhole) {
  RunRecord run = FullRun();
  run.status = RunStatus::kOk;
  run.exit_code = 0;
  run.signal = std::nullopt;
  run.trust = {{"approximated", "the target's own note"}};
  RunPlacement placement;
  Error err;
  ASSERT_TRUE(FinishRun(Pipeline(), &run, &placement, &err)) << err.message;
  EXPECT_GT(run.id, 0);
  // No profile of this machine: placed nowhere, with what to do.
  EXPECT_EQ(placement.profile_id, 0);
  EXPECT_NE(placement.missing.find("rprof machine measure"), std::string::npos)
      << placement.missing;
  // The target's note comes after those the pipeline computes, and is stored with them.
  ASSERT_FALSE(run.trust.empty());
  EXPECT_EQ(run.trust.back().kind, "approximated");
  EXPECT_EQ(run.trust.back().detail, "the target's own note");
  RunRecord stored;
  ASSERT_TRUE(store_.Load(run.id, &stored, &err)) << err.message;
  ASSERT_EQ(stored.trust.size(), run.trust.size());
  for (size_t i = 0; i < run.trust.size(); ++i) {
    EXPECT_EQ(stored.trust[i].kind, run.trust[i].kind);
    EXPECT_EQ(stored.trust[i].detail, run.trust[i].detail);
  }
  EXPECT_EQ(stored.metrics.size(), run.metrics.size());
}

TEST_F(RunPipelineTest, ARunTheStoreCannotTakeGoesWholeToARecoveryFile) {
  ScopedEnv state("XDG_STATE_HOME", dir_.File("state").c_str());
  RawExec(path_, "DROP TABLE tags");  // every insert now fails, after the measurement
  RunRecord run = FullRun();
  RunPlacement placement;
  Error err;
  EXPECT_FALSE(FinishRun(Pipeline(), &run, &placement, &err));
  EXPECT_EQ(err.kind, ErrorKind::kEnvironment);
  EXPECT_NE(err.message.find("is NOT lost"), std::string::npos) << err.message;
  std::vector<std::string> saved = FilesIn(dir_.File("state") + "/rprof/recovered");
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_NE(err.message.find(saved[0]), std::string::npos) << err.message;
  EXPECT_NE(saved[0].find(run.uid), std::string::npos) << saved[0];
}

TEST(RunStream, CsvRunsShareOneHeader) {
  RunRecord a = FullRun(), b = FullRun();
  a.id = 1;
  b.id = 2;
  RunStream stream(OutputFormat::kCsv);
  stream.Add(FormatRun(a, OutputFormat::kCsv));
  stream.Add(FormatRun(b, OutputFormat::kCsv));
  std::string text = stream.Finish();
  std::string header = text.substr(0, text.find('\n') + 1);
  EXPECT_EQ(header.rfind("run_id,", 0), 0u) << text;
  EXPECT_EQ(text.find(header, 1), std::string::npos) << text;
  EXPECT_NE(text.find("\n2,"), std::string::npos) << text;
}

TEST(RunStream, JsonRunsAreOneArray) {
  RunRecord a = FullRun(), b = FullRun();
  RunStream stream(OutputFormat::kJson);
  EXPECT_EQ(stream.Finish(), "[]\n");
  stream.Add(FormatRun(a, OutputFormat::kJson));
  stream.Add(FormatRun(b, OutputFormat::kJson));
  std::string text = stream.Finish();
  EXPECT_EQ(text.front(), '[');
  EXPECT_EQ(text.substr(text.size() - 3), "}]\n");
  EXPECT_NE(text.find("},\n{"), std::string::npos) << text;
}

}  // namespace
}  // namespace rprof
