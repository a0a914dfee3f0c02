#include "targets/process_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/derived_metrics.h"
#include "core/stats.h"
#include "counters/papi/papi_session.h"
#include "counters/perf/process_counters.h"
#include "targets/marker_results.h"
#include "core/text.h"

extern char** environ;

namespace rprof {

namespace {

std::atomic<pid_t> g_child{0};
std::atomic<int> g_signal{0};  // the SIGINT/SIGTERM rprof received, 0 when none

extern "C" void OnTerminate(int sig, siginfo_t* info, void*) {
  g_signal.store(sig);
  // Sent by a process (kill, a job scheduler): pass it on. From the terminal (si_code > 0,
  // SI_KERNEL) the program got it already with its process group.
  pid_t child = g_child.load();
  if (child > 0 && info && info->si_code <= 0) kill(child, sig);
}

using Clock = std::chrono::steady_clock;

// Waits for the child, up to `timeout_s` (<= 0: forever). Returns true when it exited, with its
// wait status; false on timeout.
bool WaitFor(pid_t pid, double timeout_s, int* status) {
  // A pidfd lets poll() wait for the exit and the deadline at once, without a busy loop.
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    Clock::time_point deadline =
        Clock::now() + std::chrono::microseconds(static_cast<long long>(timeout_s * 1e6));
    for (;;) {
      int wait_ms = -1;
      if (timeout_s > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
          close(pidfd);
          return false;
        }
        wait_ms = static_cast<int>(left.count()) + 1;
      }
      pollfd fd{pidfd, POLLIN, 0};
      int ready = poll(&fd, 1, wait_ms);
      if (ready > 0) break;
      if (ready < 0 && errno != EINTR) break;
    }
    close(pidfd);
  } else if (timeout_s > 0) {
    // Old kernels: poll waitpid.
    Clock::time_point deadline =
        Clock::now() + std::chrono::microseconds(static_cast<long long>(timeout_s * 1e6));
    while (waitpid(pid, status, WNOHANG) == 0) {
      if (Clock::now() >= deadline) return false;
      usleep(1000);
    }
    return true;
  }
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  return true;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Execution {
  double seconds = 0;
  int wait_status = 0;
  bool timed_out = false;
  std::vector<Metric> counts;   // pmu
  std::vector<Metric> regions;  // from the marker file
  std::vector<std::string> problems;
};

// One execution: fork, open counters on the child while it waits, release it into exec, wait.
bool ExecuteOnce(const ProcessRunRequest& request, const std::vector<std::string>& events,
                 bool allow_missing, Execution* out, Error* err) {
  char marker_path[] = "/tmp/rprof-markers-XXXXXX";
  int marker_fd = mkstemp(marker_path);
  if (marker_fd < 0)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("cannot create the marker file in /tmp: ") + std::strerror(errno));
  close(marker_fd);

  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "RPROF_MARKER_", 13) != 0) env_strings.push_back(*e);
  env_strings.push_back(std::string("RPROF_MARKER_OUT=") + marker_path);
  // The marker events are filled in by the child from what the go message says: only the
  // events rprof could open, so regions repeat no error the whole run already explains.
  char marker_events[4096] = "RPROF_MARKER_EVENTS=";
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(marker_events);
  envp.push_back(nullptr);
  std::vector<std::string> args = request.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  int go[2], exec_error[2];
  if (pipe2(go, O_CLOEXEC) != 0 || pipe2(exec_error, O_CLOEXEC) != 0) {
    unlink(marker_path);
    return Fail(err, ErrorKind::kEnvironment, std::string("pipe: ") + std::strerror(errno));
  }
  pid_t pid = fork();
  if (pid < 0) {
    unlink(marker_path);
    return Fail(err, ErrorKind::kEnvironment, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // The child: wait until the counters are open on us, then become the program.
    close(go[1]);
    close(exec_error[0]);
    // The go message: the counted events, then EOF once the parent has opened the counters.
    size_t used = std::strlen(marker_events);
    ssize_t got = 0;
    while (used + 1 < sizeof marker_events &&
           (got = read(go[0], marker_events + used, sizeof marker_events - 1 - used)) > 0)
      used += static_cast<size_t>(got);
    marker_events[used] = '\0';
    if (got < 0) _exit(127);
    execve(request.path.c_str(), argv.data(), envp.data());
    int e = errno;
    (void)!write(exec_error[1], &e, sizeof e);
    _exit(127);
  }
  close(go[0]);
  close(exec_error[1]);
  auto abandon = [&](const Error& why) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    close(go[1]);
    close(exec_error[0]);
    unlink(marker_path);
    if (err) *err = why;
    return false;
  };
  std::unique_ptr<ProcessCounters> counters;
  if (!events.empty()) {
    Error why;
    counters = ProcessCounters::Open(pid, events, allow_missing || request.groups, &why);
    if (!counters) return abandon(why);
    if (request.groups) {
      // What opened counts as present (its value is not known before the program runs).
      std::vector<Metric> opened = counters->Read();
      for (Metric& m : opened)
        for (const std::string& name : counters->CountedNames())
          if (m.name == name) m.value = 0.0;
      if (!CheckRequiredEvents(*request.groups, opened, &why)) return abandon(why);
      if (!allow_missing)
        for (const Metric& m : opened)
          if (!m.value && std::find(request.events.begin(), request.events.end(), m.name) !=
                              request.events.end())
            return abandon(
                Error{ErrorKind::kEnvironment, "cannot open event " + m.name + ": " + m.note +
                                                   " (--allow-missing-events runs without it)"});
    }
  }

  std::vector<std::string> counted;
  if (counters) counted = counters->CountedNames();
  std::string go_message = Join(counted, ",");
  g_child.store(pid);
  Clock::time_point start = Clock::now();
  (void)!write(go[1], go_message.data(), go_message.size());
  close(go[1]);
  int exec_errno = 0;
  ssize_t got = read(exec_error[0], &exec_errno, sizeof exec_errno);
  close(exec_error[0]);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    waitpid(pid, nullptr, 0);
    g_child.store(0);
    unlink(marker_path);
    return Fail(err, ErrorKind::kEnvironment,
                request.path + ": cannot execute: " + std::strerror(exec_errno));
  }
  out->timed_out = !WaitFor(pid, request.timeout_s, &out->wait_status);
  if (out->timed_out) {
    // Politely first, so the program can flush its marker file; then for good.
    kill(pid, SIGTERM);
    if (!WaitFor(pid, 2.0, &out->wait_status)) {
      kill(pid, SIGKILL);
      WaitFor(pid, 0, &out->wait_status);
    }
  }
  out->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  g_child.store(0);

  if (counters) out->counts = counters->Read();
  std::string text = ReadFile(marker_path);
  unlink(marker_path);
  if (!text.empty()) {
    MarkerResults results;
    std::string why;
    if (ParseMarkerResults(text, &results, &why)) {
      out->regions = MarkerMetrics(results);
      out->problems = results.problems;
    } else {
      out->problems.push_back("marker results unreadable: " + why);
    }
  }
  return true;
}

// Sums metrics of the same (region, name, source) over executions, then divides by their count:
// stored values are per execution, like a kernel's are per call.
std::vector<Metric> Average(const std::vector<std::vector<Metric>>& per_execution) {
  std::vector<Metric> out;
  for (const auto& metrics : per_execution) {
    for (const Metric& m : metrics) {
      Metric* same = nullptr;
      for (Metric& o : out)
        if (o.name == m.name && o.source == m.source && o.region == m.region) same = &o;
      if (!same) {
        out.push_back(m);
      } else if (same->value && m.value) {
        *same->value += *m.value;
      } else {
        same->value = std::nullopt;  // absent once: absent, never a partial sum
        if (same->note.empty()) same->note = m.note;
      }
    }
  }
  for (Metric& m : out)
    if (m.value) *m.value /= static_cast<double>(per_execution.size());
  return out;
}

}  // namespace

ProcessSignalScope::ProcessSignalScope() {
  g_signal.store(0);
  struct sigaction action {};
  action.sa_sigaction = OnTerminate;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

ProcessSignalScope::~ProcessSignalScope() {
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

bool RunProcess(const ProcessRunRequest& request, RunRecord* run, Error* err) {
  run->target_kind = "executable";
  run->target = request.argv.front();
  run->command = request.argv;
  if (char* cwd = getcwd(nullptr, 0)) {
    run->cwd = cwd;
    std::free(cwd);
  }

  std::vector<std::string> events;
  if (request.use_pmu) {
    events = request.events_given ? request.events : DefaultPmuEvents();
    if (request.groups)
      for (const std::string& e : request.groups->events)
        if (std::find(events.begin(), events.end(), e) == events.end()) events.push_back(e);
  }
  bool allow_missing = request.allow_missing_events || !request.events_given;

  std::vector<std::vector<Metric>> counts, regions;
  std::vector<std::string> problems;
  run->started_at = UtcNow();
  for (int rep = 0; rep < std::max(1, request.repetitions); ++rep) {
    Execution ex;
    if (!ExecuteOnce(request, events, allow_missing, &ex, err)) {
      if (rep == 0) return false;
      run->note = "repetition " + std::to_string(rep + 1) + " could not start: " + err->message;
      run->status = RunStatus::kFailed;
      *err = Error();
      break;
    }
    run->samples.push_back(ex.seconds);
    counts.push_back(std::move(ex.counts));
    regions.push_back(std::move(ex.regions));
    for (auto& p : ex.problems) problems.push_back(std::move(p));

    int status = ex.wait_status;
    if (WIFEXITED(status)) run->exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run->signal = WTERMSIG(status);
    if (ex.timed_out) {
      run->status = RunStatus::kInterrupted;
      char note[96];
      std::snprintf(note, sizeof note, "timed out after %g s (--timeout): killed", request.timeout_s);
      run->note = note;
    } else if (g_signal.load() != 0) {
      run->status = RunStatus::kInterrupted;
      run->note = std::string("interrupted by ") + strsignal(g_signal.load());
    } else if (WIFSIGNALED(status)) {
      run->status = RunStatus::kCrashed;
      run->note = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                  strsignal(WTERMSIG(status)) + ")";
    } else if (WEXITSTATUS(status) != 0) {
      run->status = RunStatus::kFailed;
      run->note = "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    if (run->status != RunStatus::kOk) break;
  }
  run->ended_at = UtcNow();
  if (!problems.empty()) {
    // Every misuse is reported: the note is where the run says what went wrong.
    std::string text;
    for (const std::string& problem : problems) {
      if (!text.empty()) text += "; ";
      text += problem.rfind("markers: ", 0) == 0 ? problem : "markers: " + problem;
    }
    run->note = run->note.empty() ? text : run->note + "; " + text;
  }

  run->sources = {"clock"};
  SampleStats stats = Summarize(run->samples);
  run->metrics.push_back({"time_s", stats.median, "s", Source::kClock, "",
                          "median wall time of " + std::to_string(stats.count) + " executions"});
  if (request.declared_flops || request.declared_bytes) {
    run->sources.push_back("model");
    if (request.declared_flops)
      run->metrics.push_back(
          {"flops", *request.declared_flops, "FLOP", Source::kModel, "", "declared by --flops"});
    if (request.declared_bytes)
      run->metrics.push_back({"bytes_dram", *request.declared_bytes, "B", Source::kModel, "",
                              "declared by --bytes"});
  }
  if (!events.empty()) run->sources.push_back("pmu");
  std::vector<Metric> raw = Average(counts);
  if (request.groups)
    for (Metric& m : GroupMetrics(*request.groups, raw, stats.median)) run->metrics.push_back(m);
  for (Metric& m : raw) run->metrics.push_back(std::move(m));
  for (Metric& m : Average(regions)) run->metrics.push_back(std::move(m));

  std::string why;
  if (run->status == RunStatus::kOk && ShouldRunSim(request.sim, stats.median, request.declared_flops.value_or(0),
                                              request.sim_budget_s, &why)) {
    // The program runs once more, and its output appears again: say why, to a person.
    if (isatty(STDERR_FILENO))
      std::fprintf(stderr, "rprof: running %s once more under valgrind for the sim counts "
                           "(--counters pmu skips this)\n", request.argv[0].c_str());
    SimRequest sim;
    sim.argv = request.argv;
    sim.argv[0] = request.path;
    sim.collect_from_start = true;
    sim.per_region = true;
    SimGeometryForThisMachine(&sim.d1, &sim.ll);
    SimResult result;
    if (!RunSim(sim, &result, err)) return false;
    run->sources.push_back("sim");
    for (Metric& m : result.metrics) run->metrics.push_back(std::move(m));
  } else if (request.sim == SimMode::kAlways) {
    return Fail(err, ErrorKind::kEnvironment, "--counters sim: " + why);
  } else if (request.sim == SimMode::kAuto && !why.empty()) {
    run->note += (run->note.empty() ? "" : "; ") + why;
  }
  AddDerivedMetrics(&run->metrics);
  return true;
}

}  // namespace rprof
