// The callgrind runner without valgrind: a stand-in "valgrind" shell script plays each outcome
// (output written, AVX-512 stop, empty output, no output, a hang), so the runner's argument
// passing, environment, status and error texts are checked on any machine. The real valgrind is
// exercised in sim_end_to_end_test.cc.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "counters/sim/callgrind_runner.h"

namespace rprof {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CallgrindRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/sim_callgrind_runner_test_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    fake_ = dir_ + "/valgrind";
    args_ = dir_ + "/args.txt";
    // Plays valgrind: records its arguments, then acts as FAKE_MODE says.
    std::ofstream(fake_) << R"SH(#!/bin/sh
out=
log=
for a in "$@"; do
  case "$a" in
    --callgrind-out-file=*) out=$(printf '%s' "${a#*=}" | sed "s/%p/$$/") ;;
    --log-file=*) log=$(printf '%s' "${a#*=}" | sed "s/%p/$$/") ;;
  esac
done
printf '%s\n' "$@" > "$FAKE_ARGS"
case "$FAKE_MODE" in
  ok)
    printf 'positions: instr\nevents: Ir\nob=/bin/true\n0x10 5\ntotals: 5\n' > "$out"
    printf 'positions: instr\nevents: Ir\n' > "$out.1"
    printf 'positions: instr\nevents: Ir\n' > "$(dirname "$out")/callgrind.out.999999999"
    echo "==$$== Callgrind" > "$log"
    exit "${FAKE_EXIT:-0}" ;;
  avx512)
    printf 'positions: instr\nevents: Ir\n' > "$out"
    cat > "$log" <<EOF
vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0xFD 0x48 0x58 0xC0 0x62 0xF1
vex amd64->IR:   REX=0 REX.W=0 REX.R=0 REX.X=0 REX.B=0
==$$== valgrind: Unrecognised instruction at address 0x10908a.
==$$==    at 0x10908A: main (in /tmp/a512)
EOF
    kill -ILL $$ ;;
  kmovq)
    printf 'positions: instr\nevents: Ir\n' > "$out"
    printf 'vex amd64->IR: unhandled instruction bytes: 0xC4 0xE1 0xFB 0x92 0xC8 0x48 0x89 0xC7\n' > "$log"
    kill -ILL $$ ;;
  other_insn)
    printf 'positions: instr\nevents: Ir\n' > "$out"
    printf 'vex amd64->IR: unhandled instruction bytes: 0x8F 0xE9 0x78 0xC2\n' > "$log"
    kill -ILL $$ ;;
  empty)
    : > "$out"
    exit 0 ;;
  none)
    printf 'valgrind: Bad option: --foo\nvalgrind: Use --help for more information.\n' > "$log"
    exit 1 ;;
  hang)
    exec sleep 30 ;;
esac
)SH";
    chmod(fake_.c_str(), 0755);
    opts_.valgrind = fake_;
    opts_.output_dir = dir_ + "/out";
    opts_.env = {{"FAKE_ARGS", args_}, {"FAKE_MODE", "ok"}};
  }

  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }

  void SetMode(const std::string& mode) { opts_.env[1].second = mode; }

  std::string dir_, fake_, args_;
  CallgrindOptions opts_;
};

TEST_F(CallgrindRunnerTest, RunsValgrindWithTheSimOptions) {
  opts_.extra_valgrind_args = {"--D1=32768,8,64"};
  opts_.env.push_back({"FAKE_EXIT", "3"});
  CallgrindRun run;
  Error err;
  ASSERT_TRUE(RunUnderCallgrind({"true", "a b", "c"}, opts_, &run, &err)) << err.message;
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.exit_code, 3);  // the program's status, passed on
  EXPECT_EQ(run.term_signal, 0);
  EXPECT_GT(run.wall_s, 0.0);
  EXPECT_EQ(run.output_dir, dir_ + "/out");
  ASSERT_EQ(run.output_files.size(), 2u);  // final dump and one CALLGRIND_DUMP_STATS part
  EXPECT_EQ(run.output_files[1], run.output_files[0] + ".1");
  // Another pid's file: a forked child's, kept apart (it repeats the parent's costs).
  ASSERT_EQ(run.child_output_files.size(), 1u);
  EXPECT_EQ(run.child_output_files[0], dir_ + "/out/callgrind.out.999999999");
  EXPECT_EQ(run.log_files.size(), 1u);

  std::string program = FindExecutable("true");
  std::string expected =
      "--tool=callgrind\n--vgdb=no\n--cache-sim=yes\n--dump-instr=yes\n"
      "--collect-atstart=no\n"
      "--callgrind-out-file=" +
      dir_ +
      "/out/callgrind.out.%p\n"
      "--log-file=" +
      dir_ +
      "/out/valgrind.%p.log\n"
      "--D1=32768,8,64\n" +
      program + "\na b\nc\n";
  EXPECT_EQ(ReadFile(args_), expected);  // no shell: "a b" stays one argument
  ASSERT_FALSE(run.command.empty());
  EXPECT_EQ(run.command[0], fake_);

  EXPECT_TRUE(RemoveCallgrindRun(run, &err)) << err.message;
  struct stat st;
  EXPECT_NE(stat((dir_ + "/out").c_str(), &st), 0);  // the emptied directory is gone
}

TEST_F(CallgrindRunnerTest, MakesItsOwnDirectoryWhenNoneIsGiven) {
  opts_.output_dir.clear();
  std::string tmpdir = dir_ + "/tmp";
  mkdir(tmpdir.c_str(), 0700);
  setenv("TMPDIR", tmpdir.c_str(), 1);
  CallgrindRun run;
  Error err;
  bool ok = RunUnderCallgrind({"true"}, opts_, &run, &err);
  unsetenv("TMPDIR");
  ASSERT_TRUE(ok) << err.message;
  // Inside this process's scratch directory, rprof-<pid>.XXXXXX (process/scratch_dir.h).
  EXPECT_EQ(run.output_dir.rfind(tmpdir + "/rprof-" + std::to_string(getpid()) + ".", 0), 0u)
      << run.output_dir;
  EXPECT_TRUE(RemoveCallgrindRun(run, &err)) << err.message;
}

TEST_F(CallgrindRunnerTest, ExplainsAvx512) {
  SetMode("avx512");
  CallgrindRun run;
  Error err;
  EXPECT_FALSE(RunUnderCallgrind({"true"}, opts_, &run, &err));
  EXPECT_FALSE(run.exited);
  EXPECT_EQ(run.term_signal, SIGILL);
  EXPECT_NE(err.message.find("at 0x10908A: main (in /tmp/a512)"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("bytes 62 f1 fd 48 58 c0"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("AVX-512"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("need the AVX2 build"), std::string::npos) << err.message;
}

// kmovq k1, rax: AVX-512BW's, VEX-encoded (no EVEX prefix). PolyBench's -march=native builds
// stopped on it with "valgrind does not support it", which never said AVX-512 (issue 36).
TEST_F(CallgrindRunnerTest, ExplainsAvx512MaskInstructions) {
  SetMode("kmovq");
  CallgrindRun run;
  Error err;
  EXPECT_FALSE(RunUnderCallgrind({"true"}, opts_, &run, &err));
  EXPECT_NE(err.message.find("bytes c4 e1 fb 92 c8"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("it is AVX-512"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("need the AVX2 build"), std::string::npos) << err.message;
}

TEST_F(CallgrindRunnerTest, ExplainsOtherUnhandledInstructions) {
  SetMode("other_insn");
  CallgrindRun run;
  Error err;
  EXPECT_FALSE(RunUnderCallgrind({"true"}, opts_, &run, &err));
  EXPECT_NE(err.message.find("valgrind cannot execute the instruction (bytes 8f e9 78 c2)"),
            std::string::npos)
      << err.message;
  EXPECT_EQ(err.message.find("AVX-512"), std::string::npos) << err.message;
}

TEST_F(CallgrindRunnerTest, EmptyOutputMeansTheProgramExeced) {
  SetMode("empty");
  CallgrindRun run;
  Error err;
  EXPECT_FALSE(RunUnderCallgrind({"true"}, opts_, &run, &err));
  EXPECT_NE(err.message.find("callgrind output is empty"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("exec"), std::string::npos) << err.message;
}

TEST_F(CallgrindRunnerTest, NoOutputShowsTheLog) {
  SetMode("none");
  CallgrindRun run;
  Error err;
  EXPECT_FALSE(RunUnderCallgrind({"true"}, opts_, &run, &err));
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(err.message.find("valgrind wrote no callgrind output (exit status 1)"),
            std::string::npos)
      << err.message;
  EXPECT_NE(err.message.find("Bad option: --foo"), std::string::npos) << err.message;
}

TEST_F(CallgrindRunnerTest, TimesOut) {
  SetMode("hang");
  opts_.timeout_s = 0.3;
  CallgrindRun run;
  Error err;
  EXPECT_FALSE(RunUnderCallgrind({"true"}, opts_, &run, &err));
  EXPECT_TRUE(run.timed_out);
  EXPECT_EQ(run.term_signal, SIGTERM);  // asked first; killed only if it ignores that
  EXPECT_LT(run.wall_s, 10.0);
  EXPECT_NE(err.message.find("took longer than"), std::string::npos) << err.message;
}

TEST(CallgrindRunner, MissingValgrindNamesThePackage) {
  CallgrindOptions opts;
  opts.valgrind = "/nonexistent/valgrind";
  CallgrindRun run;
  Error err;
  EXPECT_FALSE(RunUnderCallgrind({"true"}, opts, &run, &err));
  EXPECT_EQ(err.message,
            "valgrind not found at /nonexistent/valgrind: install the Debian package valgrind "
            "(apt-get install valgrind)");

  // Not on PATH either.
  const char* old = std::getenv("PATH");
  std::string saved = old != nullptr ? old : "";
  setenv("PATH", "/nonexistent", 1);
  opts.valgrind.clear();
  bool ok = RunUnderCallgrind({"/bin/true"}, opts, &run, &err);
  setenv("PATH", saved.c_str(), 1);
  EXPECT_FALSE(ok);
  EXPECT_EQ(err.message,
            "valgrind not found: install the Debian package valgrind (apt-get install "
            "valgrind)");
}

TEST(CallgrindRunner, MissingProgram) {
  CallgrindOptions opts;
  opts.valgrind = "/bin/true";  // never reached
  CallgrindRun run;
  Error err;
  EXPECT_FALSE(RunUnderCallgrind({"no-such-program-rprof"}, opts, &run, &err));
  EXPECT_EQ(err.message, "no-such-program-rprof: not found or not executable (looked on PATH)");
  EXPECT_FALSE(RunUnderCallgrind({"/nonexistent/prog"}, opts, &run, &err));
  EXPECT_EQ(err.message, "/nonexistent/prog: not found or not executable");
  EXPECT_FALSE(RunUnderCallgrind({}, opts, &run, &err));
  EXPECT_EQ(err.message, "no program to run under callgrind");
}

TEST(CallgrindRunner, FindExecutable) {
  EXPECT_EQ(FindExecutable("sh").empty(), false);
  EXPECT_EQ(FindExecutable("/bin/sh"), "/bin/sh");
  EXPECT_EQ(FindExecutable("no-such-program-rprof"), "");
  EXPECT_EQ(FindExecutable("/etc/passwd"), "");  // not executable
  EXPECT_EQ(FindExecutable(""), "");
}

}  // namespace
}  // namespace rprof
