// What sampling a program for its hot functions costs (issue 28): the program's wall time with
// the cpu-clock sampler attached (functions/function_sampler.h, rprof's period of 0.5 ms) and
// without, interleaved so that a busy machine's load falls on both alike; medians of ROUNDS.
//
//   [RPROF_BENCH_PERIOD_MS=P] bench_sampling_overhead ROUNDS PROGRAM [ARGS...]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "functions/function_sampler.h"

namespace {

// One execution; with `sampler`, sampled from its exec. Seconds of wall time, -1 on failure.
double Execute(char** argv, rprof::FunctionSampler* sampler) {
  int go[2];
  if (pipe(go) != 0) return -1;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    close(go[1]);
    char c;
    if (read(go[0], &c, 1) != 1) _exit(127);  // waits until the sampler is attached
    execv(argv[0], argv);
    _exit(127);
  }
  close(go[0]);
  if (sampler && !sampler->Attach(pid))
    std::fprintf(stderr, "not sampled: %s\n", sampler->samples().why_not.c_str());
  start = std::chrono::steady_clock::now();
  if (write(go[1], "x", 1) != 1) return -1;
  close(go[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sampler) sampler->Collect();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? s : -1;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ROUNDS PROGRAM [ARGS...]\n", argv[0]);
    return 2;
  }
  int rounds = std::atoi(argv[1]);
  std::vector<double> plain, sampled;
  // RPROF_BENCH_PERIOD_MS: another period than rprof's, to see what the cost scales with.
  const char* period_ms = std::getenv("RPROF_BENCH_PERIOD_MS");
  rprof::FunctionSampler sampler(period_ms ? std::atof(period_ms) * 1e-3 : 0.5e-3);
  for (int r = 0; r < rounds; ++r) {
    double a = Execute(argv + 2, nullptr);
    double b = Execute(argv + 2, &sampler);
    if (a < 0 || b < 0) return 1;
    plain.push_back(a);
    sampled.push_back(b);
    std::printf("round %d: plain %.4f s, sampled %.4f s\n", r + 1, a, b);
  }
  double p = Median(plain), s = Median(sampled);
  std::printf("median of %d: plain %.4f s, sampled %.4f s, ratio %.4f; %llu samples, %llu lost\n",
              rounds, p, s, s / p, static_cast<unsigned long long>(sampler.samples().total),
              static_cast<unsigned long long>(sampler.samples().lost));
  return 0;
}
