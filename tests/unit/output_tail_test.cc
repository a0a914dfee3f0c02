// OutputTail: a child's standard error passed through while its last bytes are kept, for the
// reason of a failed sim replay.
#include "process/output_tail.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace rprof {
namespace {

// Runs `body` in a child whose stderr is the tail's pipe; returns what the tail kept.
template <typename Body>
std::string TailOf(size_t keep, Body body) {
  OutputTail tail(keep);
  Error why;
  EXPECT_TRUE(tail.Open(&why)) << why.message;
  pid_t pid = fork();
  if (pid == 0) {
    tail.AttachChild();
    body();
    _exit(0);
  }
  tail.Start();
  int status = 0;
  waitpid(pid, &status, 0);
  return tail.Finish();
}

TEST(OutputTail, KeepsWhatTheChildWroteLast) {
  std::string kept = TailOf(64, [] { std::fputs("first line\nlast words\n", stderr); });
  EXPECT_EQ(kept, "first line\nlast words");
}

TEST(OutputTail, BoundsTheTailAndCutsAtALineStart) {
  // Far more than a pipe holds: the copy never blocks the child.
  std::string kept = TailOf(100, [] {
    for (int i = 0; i < 20000; ++i) std::fprintf(stderr, "line %d of the program\n", i);
  });
  EXPECT_LE(kept.size(), 100u);
  EXPECT_EQ(kept.rfind("line 19999 of the program"), kept.size() - 25) << kept;
  EXPECT_EQ(kept.rfind("line ", 0), 0u) << kept;  // starts at a line
}

TEST(OutputTail, NothingWrittenKeepsNothing) {
  EXPECT_EQ(TailOf(64, [] {}), "");
}

TEST(OutputTail, DoesNotWaitForAProcessTheChildLeftHoldingThePipe) {
  std::string kept = TailOf(64, [] {
    std::fputs("parent done\n", stderr);
    if (fork() == 0) {
      close(STDOUT_FILENO);  // not the test runner's pipe: only the tail's
      sleep(3);              // holds the tail's pipe open long after its parent ended
      _exit(0);
    }
  });
  EXPECT_EQ(kept, "parent done");
}

}  // namespace
}  // namespace rprof
