// Measures the sim source's own cost (issue 5, "Speed"): how long the analysis of a callgrind
// output takes (read + parse, then decode + sum), and optionally the callgrind run itself.
//
//   sim_analyze [--repeat N] CALLGRIND_OUT...      analyse existing outputs
//   sim_analyze [--repeat N] [--native K] --run PROGRAM ARGS...
//       run PROGRAM under callgrind (collection off at start), then analyse what it wrote; with
//       --native K, first run it K times natively and print the slowdown of the callgrind run
//       (whole process, wall time) against the fastest native run
//
// Prints the counts, the notes, and the times in milliseconds (minimum and median over the
// repetitions, each with a fresh SimAnalyzer so nothing is cached between them).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "counters/sim/callgrind_output.h"
#include "counters/sim/callgrind_runner.h"
#include "counters/sim/sim_counts.h"

namespace {

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

void PrintTimes(const char* what, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::printf("%-22s min %9.3f ms   median %9.3f ms   (%zu runs)\n", what, v.front(),
              v[v.size() / 2], v.size());
}

// Wall time of one native run of argv, stdout discarded; < 0 when it could not run or failed.
double NativeRun(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  auto t1 = std::chrono::steady_clock::now();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  int native_runs = 0;
  int i = 1;
  bool run = false;
  for (; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--native") == 0 && i + 1 < argc) {
      native_runs = std::max(0, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--run") == 0) {
      run = true;
      ++i;
      break;
    } else {
      break;
    }
  }
  if (i >= argc) {
    std::fprintf(stderr,
                 "usage: %s [--repeat N] CALLGRIND_OUT...\n"
                 "       %s [--repeat N] [--native K] --run PROGRAM ARGS...\n",
                 argv[0], argv[0]);
    return 2;
  }
  std::vector<std::string> rest(argv + i, argv + argc);
  std::vector<std::string> files = rest;
  rprof::CallgrindRun cg;
  double native_s = -1;
  if (run && native_runs > 0) {
    for (int k = 0; k < native_runs; ++k) {
      double t = NativeRun(rest);
      if (t < 0) {
        std::fprintf(stderr, "sim_analyze: error: the native run of %s failed\n", rest[0].c_str());
        return 1;
      }
      native_s = native_s < 0 ? t : std::min(native_s, t);
    }
    std::printf("native run             %9.4f s wall (fastest of %d)\n", native_s, native_runs);
  }
  if (run) {
    rprof::Error err;
    if (!rprof::RunUnderCallgrind(rest, rprof::CallgrindOptions(), &cg, &err)) {
      std::fprintf(stderr, "sim_analyze: error: %s\n", err.message.c_str());
      return 1;
    }
    std::printf("callgrind run          %9.3f s wall, exit %d, %zu output file(s)\n", cg.wall_s,
                cg.exit_code, cg.output_files.size());
    files = cg.output_files;
    if (native_s > 0) {
      std::printf("slowdown               %9.1f x (callgrind wall / native wall)\n",
                  cg.wall_s / native_s);
    }
  }

  std::vector<double> parse_ms, analyze_ms, total_ms;
  rprof::SimCounts counts;
  rprof::CallgrindOutput output;
  size_t decoded = 0;
  for (int r = 0; r < repeat; ++r) {
    rprof::Error err;
    auto t0 = std::chrono::steady_clock::now();
    if (!rprof::ReadCallgrindOutputFiles(files, &output, &err)) {
      std::fprintf(stderr, "sim_analyze: error: %s\n", err.message.c_str());
      return 1;
    }
    auto t1 = std::chrono::steady_clock::now();
    rprof::SimAnalyzer analyzer;
    if (!analyzer.Analyze(output, &counts, &err)) {
      std::fprintf(stderr, "sim_analyze: error: %s\n", err.message.c_str());
      return 1;
    }
    auto t2 = std::chrono::steady_clock::now();
    decoded = analyzer.decoded_instructions();
    parse_ms.push_back(Ms(t1 - t0));
    analyze_ms.push_back(Ms(t2 - t1));
    total_ms.push_back(Ms(t2 - t0));
  }
  if (run) {
    (void)rprof::RemoveCallgrindRun(cg, nullptr);
  }

  std::printf("instructions (Ir)      %" PRIu64 "\n", counts.instructions);
  std::printf("sites                  %zu (decoded %zu)\n", output.sites.size(), decoded);
  std::printf("flops_dp               %" PRIu64 "\n", counts.flops_dp);
  std::printf("flops_sp               %" PRIu64 "\n", counts.flops_sp);
  std::printf("bytes_l1               %" PRIu64 " (loads %" PRIu64 ", stores %" PRIu64 ")\n",
              counts.bytes_l1(), counts.bytes_l1_loads, counts.bytes_l1_stores);
  if (counts.l1d_misses) std::printf("l1d_misses             %" PRIu64 "\n", *counts.l1d_misses);
  if (counts.llc_misses) std::printf("llc_misses             %" PRIu64 "\n", *counts.llc_misses);
  if (counts.bytes_l2) std::printf("bytes_l2               %" PRIu64 "\n", *counts.bytes_l2);
  if (counts.bytes_dram) std::printf("bytes_dram             %" PRIu64 "\n", *counts.bytes_dram);
  std::printf("undecoded executions   %" PRIu64 "\n", counts.undecoded_executions);
  std::printf("fp mix                 %s\n", rprof::DescribeFpMix(counts).c_str());
  for (const auto& n : counts.notes) std::printf("note: %s\n", n.text.c_str());
  PrintTimes("read + parse", parse_ms);
  PrintTimes("decode + sum", analyze_ms);
  PrintTimes("analysis total", total_ms);
  return 0;
}
