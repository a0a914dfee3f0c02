// Recovery files: under $XDG_STATE_HOME/rprof/recovered (else ~/.local/state/...), the
// directory made as needed, one file per run named by its start and uid, holding exactly the
// JSON given, and a clear error when the place cannot be written.
#include "store/recovery_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "scoped_env.h"
#include "temp_files.h"

namespace rprof {
namespace {

using testing_support::ReadBytes;
using testing_support::ScopedEnv;
using testing_support::TempDir;

RunRecord RunWithUid(const std::string& uid) {
  RunRecord run;
  run.uid = uid;
  run.started_at = "2026-11-29T23:40:00.123Z";
  return run;
}

TEST(RecoveryDirectory, XdgStateHomeThenHome) {
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv xdg("XDG_STATE_HOME", "/state");
    EXPECT_EQ(RecoveryDirectory(), "/state/rprof/recovered");
  }
  ScopedEnv no_xdg("XDG_STATE_HOME", nullptr);
  EXPECT_EQ(RecoveryDirectory(), "/home/someone/.local/state/rprof/recovered");
}

TEST(WriteRecoveryFile, OneWholeFilePerRunInADirectoryMadeForIt) {
  TempDir dir;
  ScopedEnv xdg("XDG_STATE_HOME", dir.File("state").c_str());
  std::string path;
  Error err;
  ASSERT_TRUE(WriteRecoveryFile(RunWithUid("0123456789abcdef0123456789abcdef"), "{\"run_id\":null}",
                                &path, &err))
      << err.message;
  EXPECT_EQ(path, dir.File("state") +
                      "/rprof/recovered/run-2026-11-29T23-40-00.123Z-"
                      "0123456789abcdef0123456789abcdef.json");
  EXPECT_EQ(ReadBytes(path), "{\"run_id\":null}\n");
  EXPECT_TRUE(InRecoveryDirectory(path));
  EXPECT_FALSE(InRecoveryDirectory(dir.File("elsewhere.json")));

  std::string second;
  ASSERT_TRUE(
      WriteRecoveryFile(RunWithUid("ffffffffffffffffffffffffffffffff"), "{}", &second, &err))
      << err.message;
  EXPECT_NE(second, path);
  // Nothing else is left there: no half-written temporary.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.File("state/rprof/recovered"))) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 2);
}

TEST(WriteRecoveryFile, APlaceThatCannotBeWrittenIsNamed) {
  TempDir dir;
  std::ofstream(dir.File("not-a-directory")) << "x";
  ScopedEnv xdg("XDG_STATE_HOME", dir.File("not-a-directory").c_str());
  std::string path;
  Error err;
  EXPECT_FALSE(
      WriteRecoveryFile(RunWithUid("0123456789abcdef0123456789abcdef"), "{}", &path, &err));
  EXPECT_EQ(
      err.message.rfind("cannot create " + dir.File("not-a-directory") + "/rprof/recovered: ", 0),
      0u)
      << err.message;
}

}  // namespace
}  // namespace rprof
