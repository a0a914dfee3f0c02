// librprof-marker for real: each test forks a child that sets the environment the way rprof does,
// calls the markers and exits normally, which writes the results; the parent parses the file
// with the parser rprof uses. A child is needed because the library reads the environment once
// per process, at its first call (this test process itself never calls a marker).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rprof/marker.h"
#include "targets/marker_results.h"

namespace rprof {
namespace {

constexpr const char* kSoftwareEvents = "perf::TASK-CLOCK,perf::PAGE-FAULTS";

struct ChildRun {
  int exit_code = -1;  // -1 when the child did not exit normally
  bool file_written = false;
  std::string text;       // the results file
  MarkerResults results;  // parsed; empty when not written
  Error parse_error;
};

// Runs `body` in a forked child with RPROF_MARKER_OUT set (or not) and RPROF_MARKER_EVENTS set
// to `events` (nullptr: unset); the child exits with exit(body()).
ChildRun RunChild(bool active, const char* events, const std::function<int()>& body) {
  char dir[] = "/tmp/rprof_marker_test_XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/markers.txt";
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    if (active)
      setenv("RPROF_MARKER_OUT", path.c_str(), 1);
    else
      unsetenv("RPROF_MARKER_OUT");
    if (events != nullptr)
      setenv("RPROF_MARKER_EVENTS", events, 1);
    else
      unsetenv("RPROF_MARKER_EVENTS");
    std::exit(body());
  }
  ChildRun run;
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  std::ifstream file(path);
  run.file_written = file.good();
  if (run.file_written) {
    std::stringstream text;
    text << file.rdbuf();
    run.text = text.str();
    if (!ParseMarkerResults(run.text, &run.results, &run.parse_error))
      ADD_FAILURE() << run.parse_error.message << "\n" << run.text;
  }
  std::remove(path.c_str());
  rmdir(dir);
  return run;
}

const MarkerRegion* FindRegion(const MarkerResults& results, const std::string& name) {
  for (const MarkerRegion& region : results.regions)
    if (region.name == name) return &region;
  return nullptr;
}

bool HasProblem(const MarkerResults& results, const std::string& start) {
  for (const std::string& problem : results.problems)
    if (problem.rfind(start, 0) == 0) return true;
  return false;
}

std::string Problems(const MarkerResults& results) {
  std::string all;
  for (const std::string& problem : results.problems) all += problem + "\n";
  return all;
}

// Burns about `ms` of wall time on this thread's CPU.
void Spin(double ms) {
  timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  volatile double sink = 0;
  do {
    for (int i = 0; i < 1000; ++i) sink = sink + std::sqrt(static_cast<double>(i));
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1e3 + (now.tv_nsec - start.tv_nsec) * 1e-6 < ms);
}

// The reason the counters cannot run here, or "" when they can (checked by a child, the same
// way a marker program would).
std::string WhySoftwareEventsMissing() {
  static const std::string why = [] {
    ChildRun run = RunChild(true, kSoftwareEvents, [] {
      rprof_region_begin("probe");
      rprof_region_end("probe");
      return 0;
    });
    for (const MarkerEvent& event : run.results.events)
      if (!event.counted) return event.name + ": " + event.reason;
    return run.results.events.empty() ? std::string("no events reported") : std::string();
  }();
  return why;
}

TEST(MarkerLibrary, InactiveWithoutOutVariableWritesNothing) {
  ChildRun run = RunChild(false, kSoftwareEvents, [] {
    rprof_region_declare("r", 1, 1);
    rprof_region_begin("r");
    rprof_region_end("r");
    rprof_region_end("unbalanced");
    return rprof_markers_active() ? 1 : 0;
  });
  EXPECT_EQ(run.exit_code, 0) << "rprof_markers_active() said active";
  EXPECT_FALSE(run.file_written);
}

TEST(MarkerLibrary, CountsCallsAndTime) {
  ChildRun run = RunChild(true, nullptr, [] {
    for (int i = 0; i < 10; ++i) {
      rprof_region_begin("loop");
      Spin(1);
      rprof_region_end("loop");
    }
    rprof_region_begin("outer");
    for (int i = 0; i < 3; ++i) {
      rprof_region_begin("inner");  // nesting different names is fine
      Spin(1);
      rprof_region_end("inner");
    }
    rprof_region_end("outer");
    return rprof_markers_active() ? 0 : 1;
  });
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_TRUE(run.file_written);
  EXPECT_TRUE(run.results.events.empty());
  EXPECT_EQ(run.results.problems.size(), 0u) << Problems(run.results);
  ASSERT_EQ(run.results.pids.size(), 1u);

  const MarkerRegion* loop = FindRegion(run.results, "loop");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->calls, 10u);
  EXPECT_GE(loop->seconds, 0.010);
  EXPECT_LT(loop->seconds, 5.0);
  const MarkerRegion* inner = FindRegion(run.results, "inner");
  const MarkerRegion* outer = FindRegion(run.results, "outer");
  ASSERT_NE(inner, nullptr);
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(inner->calls, 3u);
  EXPECT_EQ(outer->calls, 1u);
  EXPECT_GE(outer->seconds, inner->seconds);
  EXPECT_FALSE(loop->flops_per_call);
}

// The library writes the version its header names, the one the reader accepts.
TEST(MarkerLibrary, BlockHeaderCarriesTheFormatVersion) {
  ChildRun run = RunChild(true, nullptr, [] {
    rprof_region_begin("r");
    rprof_region_end("r");
    return 0;
  });
  ASSERT_TRUE(run.file_written);
  EXPECT_EQ(
      run.text.rfind("rprof-markers\t" + std::to_string(RPROF_MARKER_FORMAT_VERSION) + "\t", 0), 0u)
      << run.text;
  EXPECT_TRUE(run.parse_error.message.empty()) << run.parse_error.message;
}

TEST(MarkerLibrary, DeclaredWorkReachesTheMetrics) {
  ChildRun run = RunChild(true, nullptr, [] {
    rprof_region_declare("triad", 2e6, 2.4e7);
    rprof_region_declare("bytes-only", -1, 1000);
    for (int i = 0; i < 4; ++i) {
      rprof_region_begin("triad");
      rprof_region_end("triad");
      rprof_region_begin("bytes-only");
      rprof_region_end("bytes-only");
    }
    rprof_region_declare("triad", 2e6, 2.4e7);  // the same again: fine
    return 0;
  });
  ASSERT_TRUE(run.file_written);
  EXPECT_TRUE(run.results.problems.empty()) << Problems(run.results);
  std::vector<Metric> metrics = MarkerMetrics(run.results);
  const Metric* flops = FindMetric(metrics, "flops", Source::kModel, "triad");
  const Metric* bytes = FindMetric(metrics, "bytes_dram", Source::kModel, "triad");
  ASSERT_NE(flops, nullptr);
  ASSERT_NE(bytes, nullptr);
  EXPECT_DOUBLE_EQ(*flops->value, 8e6);
  EXPECT_DOUBLE_EQ(*bytes->value, 9.6e7);
  EXPECT_EQ(FindMetric(metrics, "flops", Source::kModel, "bytes-only"), nullptr);
  ASSERT_NE(FindMetric(metrics, "bytes_dram", Source::kModel, "bytes-only"), nullptr);
}

// rprof_region_declare_fp64/fp32 (symbol version RPROF_MARKER_2) reach the metrics as the
// split of the declared FLOPs; declaring the other precision again is a conflict, said.
TEST(MarkerLibrary, DeclaredPrecisionReachesTheMetrics) {
  ChildRun run = RunChild(true, nullptr, [] {
    rprof_region_declare_fp64("dgemm", 2e6, 2.4e7);
    rprof_region_declare_fp32("sgemm", 1e6, -1);
    for (const char* name : {"dgemm", "sgemm"}) {
      rprof_region_begin(name);
      rprof_region_end(name);
    }
    rprof_region_declare_fp32("dgemm", 2e6, 2.4e7);  // another precision: the first is kept
    return 0;
  });
  ASSERT_TRUE(run.file_written);
  EXPECT_TRUE(run.parse_error.message.empty()) << run.parse_error.message;
  std::vector<Metric> metrics = MarkerMetrics(run.results);
  const Metric* dp = FindMetric(metrics, "flops_dp", Source::kModel, "dgemm");
  const Metric* sp = FindMetric(metrics, "flops_sp", Source::kModel, "sgemm");
  ASSERT_NE(dp, nullptr);
  ASSERT_NE(sp, nullptr);
  EXPECT_DOUBLE_EQ(*dp->value, 2e6);
  EXPECT_DOUBLE_EQ(*sp->value, 1e6);
  EXPECT_DOUBLE_EQ(*FindMetric(metrics, "flops_sp", Source::kModel, "dgemm")->value, 0);
  ASSERT_EQ(run.results.problems.size(), 1u) << Problems(run.results);
  EXPECT_NE(run.results.problems[0].find("declared again with different values"), std::string::npos)
      << Problems(run.results);
}

TEST(MarkerLibrary, CountsSoftwareEventsPerRegion) {
  if (std::string why = WhySoftwareEventsMissing(); !why.empty())
    GTEST_SKIP() << "software events cannot be counted here: " << why;
  ChildRun run = RunChild(true, kSoftwareEvents, [] {
    for (int i = 0; i < 5; ++i) {
      rprof_region_begin("spin");
      Spin(4);
      rprof_region_end("spin");
    }
    rprof_region_begin("touch");
    const size_t size = 16u << 20;
    // Volatile: clang drops a malloc whose memory is only written, and with it the page faults.
    volatile char* memory = static_cast<volatile char*>(std::malloc(size));
    for (size_t i = 0; i < size; i += 4096) memory[i] = static_cast<char>(i);
    std::free(const_cast<char*>(memory));
    rprof_region_end("touch");
    return 0;
  });
  ASSERT_TRUE(run.file_written);
  EXPECT_TRUE(run.results.problems.empty()) << Problems(run.results);
  const MarkerRegion* spin = FindRegion(run.results, "spin");
  const MarkerRegion* touch = FindRegion(run.results, "touch");
  ASSERT_NE(spin, nullptr);
  ASSERT_NE(touch, nullptr);
  ASSERT_EQ(run.results.events.size(), 2u);
  EXPECT_EQ(run.results.events[0].name, "perf::TASK-CLOCK");
  ASSERT_TRUE(spin->counts[0]);
  EXPECT_GT(*spin->counts[0], 0);
  // A thread's CPU time inside the region cannot exceed the wall time inside it (plus slack
  // for the counter reads).
  EXPECT_LE(*spin->counts[0], spin->seconds * 1e9 * 1.05 + 1e5);
  ASSERT_TRUE(touch->counts[1]);
  EXPECT_GT(*touch->counts[1], 0) << "page faults while touching 16 MiB";
}

TEST(MarkerLibrary, AnEventThatCannotBeCountedIsMissingNotFatal) {
  ChildRun run = RunChild(true, "perf::TASK-CLOCK, NO_SUCH_EVENT_RPROF ,perf::TASK-CLOCK", [] {
    rprof_region_begin("r");
    Spin(1);
    rprof_region_end("r");
    return 0;
  });
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_TRUE(run.file_written);
  // Names are trimmed and duplicates dropped.
  ASSERT_EQ(run.results.events.size(), 2u) << run.text;
  EXPECT_EQ(run.results.events[1].name, "NO_SUCH_EVENT_RPROF");
  EXPECT_FALSE(run.results.events[1].counted);
  EXPECT_FALSE(run.results.events[1].reason.empty());
  const MarkerRegion* region = FindRegion(run.results, "r");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->calls, 1u);
  EXPECT_FALSE(region->counts[1]);
  if (WhySoftwareEventsMissing().empty()) {
    EXPECT_TRUE(region->counts[0]) << run.text;
  }
}

TEST(MarkerLibrary, MisuseIsReportedAndNeverCrashes) {
  ChildRun run = RunChild(true, kSoftwareEvents, [] {
    rprof_region_end("never-begun");
    rprof_region_begin("recursive");
    rprof_region_begin("recursive");  // the same name again while open
    rprof_region_end("recursive");
    rprof_region_end("recursive");
    rprof_region_begin(nullptr);
    rprof_region_end(nullptr);
    rprof_region_begin("");
    rprof_region_declare("d", NAN, 1);
    rprof_region_declare("k", 10, 10);
    rprof_region_declare("k", 20, 10);
    rprof_region_begin("k");
    rprof_region_end("k");
    rprof_region_begin("left-open");
    return 0;
  });
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_TRUE(run.file_written);
  const MarkerResults& r = run.results;
  EXPECT_TRUE(HasProblem(r, "never-begun: ended without a matching begin")) << Problems(r);
  EXPECT_TRUE(HasProblem(r, "recursive: begun again while already open in the same thread"))
      << Problems(r);
  EXPECT_TRUE(HasProblem(r, "left-open: still open at process exit in 1 thread")) << Problems(r);
  EXPECT_TRUE(HasProblem(r, "markers: a null region name was passed 2 times")) << Problems(r);
  EXPECT_TRUE(HasProblem(r, "markers: an empty region name was passed once")) << Problems(r);
  EXPECT_TRUE(HasProblem(r, "d: declared with a value that is not a finite number")) << Problems(r);
  EXPECT_TRUE(HasProblem(r, "k: declared again with different values")) << Problems(r);
  EXPECT_EQ(r.problems.size(), 7u) << Problems(r);

  const MarkerRegion* recursive = FindRegion(r, "recursive");
  ASSERT_NE(recursive, nullptr);
  EXPECT_EQ(recursive->calls, 1u);  // outer begin to outer end
  EXPECT_EQ(FindRegion(r, "never-begun"), nullptr);
  EXPECT_EQ(FindRegion(r, "left-open"), nullptr);
  const MarkerRegion* k = FindRegion(r, "k");
  ASSERT_NE(k, nullptr);
  EXPECT_DOUBLE_EQ(*k->flops_per_call, 10);  // the first declaration is kept
}

TEST(MarkerLibrary, ThreadsAreCountedSeparatelyAndSummed) {
  const char* events = WhySoftwareEventsMissing().empty() ? kSoftwareEvents : nullptr;
  ChildRun run = RunChild(true, events, [] {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([] {
        for (int i = 0; i < 50; ++i) {
          rprof_region_begin("work");  // open in several threads at once: not nesting
          Spin(0.05);
          rprof_region_end("work");
        }
      });
    for (std::thread& thread : threads) thread.join();
    std::thread([] { rprof_region_begin("abandoned"); }).join();
    // A name ended in another thread than the one that began it is unbalanced in both.
    rprof_region_begin("crossing");
    std::thread([] { rprof_region_end("crossing"); }).join();
    rprof_region_end("crossing");
    return 0;
  });
  ASSERT_TRUE(run.file_written);
  const MarkerRegion* work = FindRegion(run.results, "work");
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->calls, 200u);
  if (events != nullptr) {
    ASSERT_TRUE(work->counts[0]) << work->count_notes[0];
    EXPECT_GT(*work->counts[0], 0);
  }
  EXPECT_TRUE(HasProblem(run.results, "abandoned: still open when its thread ended"))
      << Problems(run.results);
  EXPECT_TRUE(HasProblem(run.results, "crossing: ended without a matching begin in that thread"))
      << Problems(run.results);
  const MarkerRegion* crossing = FindRegion(run.results, "crossing");
  ASSERT_NE(crossing, nullptr);
  EXPECT_EQ(crossing->calls, 1u);
}

// Two threads in one region side by side, 20 ms and 10 ms: the region's time is the most one
// thread spent (at least 20 ms), less than the 30 ms or more summed over both.
TEST(MarkerLibrary, RegionTimeIsTheMostOneThreadSpentInside) {
  ChildRun run = RunChild(true, nullptr, [] {
    std::thread other([] {
      rprof_region_begin("side");
      Spin(10);
      rprof_region_end("side");
    });
    rprof_region_begin("side");
    Spin(20);
    rprof_region_end("side");
    other.join();
    return 0;
  });
  ASSERT_TRUE(run.file_written);
  const MarkerRegion* side = FindRegion(run.results, "side");
  ASSERT_NE(side, nullptr);
  ASSERT_TRUE(side->threads);
  EXPECT_EQ(*side->threads, 2u);
  ASSERT_TRUE(side->thread_max_seconds);
  EXPECT_GE(*side->thread_max_seconds, 0.020);
  EXPECT_GE(side->seconds, 0.030);
  EXPECT_LT(*side->thread_max_seconds, side->seconds);
  EXPECT_GE(*side->thread_max_seconds * 2, side->seconds);
}

TEST(MarkerLibrary, ExitWhileOtherThreadsAreInRegions) {
  const char* events = WhySoftwareEventsMissing().empty() ? kSoftwareEvents : nullptr;
  ChildRun run = RunChild(true, events, [] {
    static std::atomic<int> running{0};
    for (int t = 0; t < 2; ++t)
      std::thread([] {
        for (bool first = true;; first = false) {
          rprof_region_begin("busy");
          rprof_region_end("busy");
          if (first) ++running;
        }
      }).detach();
    while (running < 2) Spin(1);
    Spin(10);
    return 0;  // exit() with both threads still calling markers
  });
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_TRUE(run.file_written);
  const MarkerRegion* busy = FindRegion(run.results, "busy");
  ASSERT_NE(busy, nullptr) << run.text;
  EXPECT_GT(busy->calls, 0u);
}

TEST(MarkerLibrary, AForkedChildReportsOnlyItsOwnCalls) {
  const char* events = WhySoftwareEventsMissing().empty() ? kSoftwareEvents : nullptr;
  ChildRun run = RunChild(true, events, [] {
    for (int i = 0; i < 5; ++i) {
      rprof_region_begin("before");
      rprof_region_end("before");
    }
    rprof_region_begin("across");  // open while forking: each process ends it once
    std::fflush(nullptr);
    pid_t pid = fork();
    for (int i = 0; i < (pid == 0 ? 3 : 2); ++i) {
      rprof_region_begin("after");
      Spin(1);
      rprof_region_end("after");
    }
    rprof_region_end("across");
    if (pid == 0) std::exit(0);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
  });
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_TRUE(run.file_written);
  EXPECT_EQ(run.results.pids.size(), 2u) << run.text;
  const MarkerRegion* before = FindRegion(run.results, "before");
  const MarkerRegion* after = FindRegion(run.results, "after");
  const MarkerRegion* across = FindRegion(run.results, "across");
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  ASSERT_NE(across, nullptr);
  EXPECT_EQ(before->calls, 5u);  // not repeated by the child
  EXPECT_EQ(after->calls, 5u);
  EXPECT_EQ(across->calls, 2u);
  if (events != nullptr) {
    // The child restarted its own counters: "after" is counted in both processes.
    ASSERT_TRUE(after->counts[0]) << after->count_notes[0] << "\n" << run.text;
    EXPECT_GT(*after->counts[0], 0);
    // The call open across the fork could not be counted in the child, and says so.
    EXPECT_FALSE(across->counts[0]);
    EXPECT_TRUE(HasProblem(run.results, "across: 1 of 1 calls ran without counters"))
        << Problems(run.results);
  }
}

TEST(MarkerLibrary, NamesAreMatchedByTextEvenInAReusedBuffer) {
  ChildRun run = RunChild(true, nullptr, [] {
    char name[32];
    for (int round = 0; round < 3; ++round)
      for (int i = 0; i < 100; ++i) {  // more names than the lookup cache and a region chunk hold
        std::snprintf(name, sizeof name, "region-%d", i);
        rprof_region_begin(name);
        rprof_region_end(name);
      }
    rprof_region_begin("tab\there");
    rprof_region_end("tab\there");
    return 0;
  });
  ASSERT_TRUE(run.file_written);
  EXPECT_TRUE(run.results.problems.empty()) << Problems(run.results);
  ASSERT_EQ(run.results.regions.size(), 101u);
  for (int i = 0; i < 100; ++i) {
    const MarkerRegion* region = FindRegion(run.results, "region-" + std::to_string(i));
    ASSERT_NE(region, nullptr) << i;
    EXPECT_EQ(region->calls, 3u) << i;
  }
  EXPECT_NE(FindRegion(run.results, "tab here"), nullptr);
}

// The library programs link decides at the first call whether to load its backend; threads
// making that first call at the same moment must all end up counted.
TEST(MarkerLibrary, FirstCallsRacingInThreadsAreAllCounted) {
  ChildRun run = RunChild(true, nullptr, [] {
    constexpr int kThreads = 8;
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&ready] {
        ++ready;
        while (ready < kThreads) {
        }
        rprof_region_begin("race");
        rprof_region_end("race");
      });
    for (std::thread& thread : threads) thread.join();
    return 0;
  });
  ASSERT_TRUE(run.file_written);
  const MarkerRegion* race = FindRegion(run.results, "race");
  ASSERT_NE(race, nullptr) << run.text;
  EXPECT_EQ(race->calls, 8u);
  EXPECT_TRUE(run.results.problems.empty()) << Problems(run.results);
}

// Whether the backend (PAPI, libstdc++) is mapped into this process.
bool BackendLoaded() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("librprof-marker-backend.so") != std::string::npos) return true;
  return false;
}

// Under rprof's sim source the library only talks to callgrind (client requests, no-ops outside
// valgrind): no backend, no results file, yet markers are active.
TEST(MarkerLibrary, UnderSimTheBackendIsNotLoadedAndNothingWritten) {
  ChildRun run = RunChild(true, nullptr, [] {
    setenv("RPROF_MARKER_SIM", "1", 1);  // before the first call, which reads it
    rprof_region_declare("r", 1, 1);
    rprof_region_begin("r");
    rprof_region_end("r");
    rprof_region_end("unbalanced");
    if (!rprof_markers_active()) return 1;
    return BackendLoaded() ? 2 : 0;
  });
  EXPECT_EQ(run.exit_code, 0) << "1: inactive, 2: backend loaded";
  EXPECT_FALSE(run.file_written);

  // The same calls under rprof's other sources load it, at the first call.
  run = RunChild(true, nullptr, [] {
    if (BackendLoaded()) return 1;
    rprof_region_begin("r");
    rprof_region_end("r");
    return BackendLoaded() ? 0 : 2;
  });
  EXPECT_EQ(run.exit_code, 0) << "1: loaded before the first call, 2: not loaded";
  EXPECT_TRUE(run.file_written);
}

}  // namespace
}  // namespace rprof
