// Progress is drawn on a terminal only, in place, and erased when the work ends; a pipe gets
// nothing, and nothing at all after QuietProgress (--quiet).
#include "report/progress.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace rprof {
namespace {

// What the terminal side of a pty (or the read end of a pipe) has received so far.
std::string Received(int fd) {
  std::string out;
  char buffer[4096];
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  return out;
}

struct Pty {
  int master = -1, slave = -1;
  Pty() { EXPECT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0); }
  ~Pty() {
    close(master);
    close(slave);
  }
};

TEST(ProgressLine, DrawnInPlaceOnATerminalAndErased) {
  Pty pty;
  {
    ProgressLine line(pty.slave);
    line.Show("[ 10%] l1_load");
    line.Show("[ 20%] l2_load");
    EXPECT_TRUE(line.drawn());
  }
  EXPECT_EQ(Received(pty.master), "\r\033[K[ 10%] l1_load\r\033[K[ 20%] l2_load\r\033[K");
}

TEST(ProgressLine, NothingOnAPipe) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    ProgressLine line(fds[1]);
    line.Show("[ 10%] l1_load");
    EXPECT_FALSE(line.drawn());
  }
  close(fds[1]);
  EXPECT_EQ(Received(fds[0]), "");
  close(fds[0]);
}

TEST(ElapsedProgress, TheWaitAgainstItsEstimateAfterHalfASecond) {
  Pty pty;
  { ElapsedProgress quick("sim: triad under valgrind", 2, pty.slave); }
  EXPECT_EQ(Received(pty.master), "") << "work shorter than half a second shows nothing";
  {
    ElapsedProgress slow("sim: triad under valgrind", 2, pty.slave);
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
  }
  std::string shown = Received(pty.master);
  EXPECT_NE(shown.find("sim: triad under valgrind, 0."), std::string::npos) << shown;
  EXPECT_NE(shown.find(" s of about 2.0 s"), std::string::npos) << shown;
  EXPECT_EQ(shown.substr(shown.size() - 4), "\r\033[K") << "erased at the end";
}

// Last: --quiet is for the rest of the process.
TEST(QuietProgress, NothingEvenOnATerminal) {
  QuietProgress();
  Pty pty;
  {
    ProgressLine line(pty.slave);
    line.Show("[ 10%] l1_load");
    ElapsedProgress slow("sim", 1, pty.slave);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
  }
  EXPECT_EQ(Received(pty.master), "");
}

}  // namespace
}  // namespace rprof
