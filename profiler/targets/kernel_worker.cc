#include "targets/kernel_worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "process/child_process.h"
#include "process/interruption.h"
#include "process/run_cgroup.h"
#include "process/worker_pipe.h"
#include "targets/plugin_loader.h"

namespace rprof {

namespace {

// From the worker to rprof.
constexpr char kPhase = 'P';         // one byte: a WorkerPhase
constexpr char kStart = 'S';         // start the counters (then wait for kOk or kRefused)
constexpr char kStop = 'T';          // stop them (the same)
constexpr char kSetupSeconds = 'U';  // a double
constexpr char kCannot = 'E';        // nothing to store: plugin not loaded, setup failed
constexpr char kCounterFailed = 'C';
constexpr char kRepetition = 'N';  // one timed repetition: seconds per call, calls (double, int64)
constexpr char kMeasured = 'M';    // the loop ended: interrupted (char)
constexpr char kChecked = 'K';     // the check ended: correct (char), then the kernel's message
constexpr char kDone = 'D';        // torn down, about to exit
// From rprof to the worker.
constexpr char kOk = 'A';
constexpr char kRefused = 'F';

// Where kernel code is when the worker ends. Order matters: before kWarmUp nothing was
// measured, and a signal then ends the run with nothing stored.
enum class WorkerPhase : char { kLoading, kSetup, kWarmUp, kRepetitions, kCheck, kTeardown };

const char* WorkerPhaseName(WorkerPhase phase) {
  // Indexed by WorkerPhase, in its order.
  static constexpr const char* kNames[] = {"loading the plugin",    "setup",     "the warm-up",
                                           "the timed repetitions", "the check", "teardown"};
  return kNames[static_cast<int>(phase)];
}

// After its deadline (--timeout) the worker has this long to end by itself: between
// repetitions, then teardown. Shorter than a program's kStopGraceSeconds: its repetitions are
// rprof's already as they end, so only its teardown can be lost, and a 2 s limit ends within
// about 3 s.
constexpr double kDeadlineGraceSeconds = 1.0;

// A message bigger than this is not a worker's: results are a few doubles per repetition.
constexpr size_t kMaxMessage = 64u << 20;

template <typename T>
void Put(std::string* out, const T& v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <typename T>
bool Get(std::string_view* in, T* v) {
  if (in->size() < sizeof *v) return false;
  std::memcpy(v, in->data(), sizeof *v);
  in->remove_prefix(sizeof *v);
  return true;
}

// The worker's stand-in for rprof's counters: it asks rprof to start and stop them.
class CountersInRprof : public CounterSession {
 public:
  CountersInRprof(int to_rprof, int from_rprof, int min_repetitions)
      : to_(to_rprof), from_(from_rprof), min_repetitions_(min_repetitions) {}
  Source source() const override { return Source::kPmu; }
  bool Start(Error* err) override { return Ask(kStart, err); }
  bool Stop(Error* err) override { return Ask(kStop, err); }
  std::vector<Metric> Results(double) const override { return {}; }
  int MinRepetitions() const override { return min_repetitions_; }

 private:
  // rprof's answer carries the message only: the kind it fails with is rprof's to choose
  // (RunKernelInWorker: a counter that failed is kEnvironment).
  bool Ask(char what, Error* err) {
    char kind = 0;
    std::string answer;
    if (!WriteMessage(to_, what, "") ||
        ReadMessage(from_, 0, kMaxMessage, nullptr, &kind, &answer) != ReadOutcome::kMessage)
      return Fail(err, ErrorKind::kEnvironment, "rprof stopped answering the measuring worker");
    if (kind == kOk) return true;
    return Fail(err, ErrorKind::kEnvironment, answer);
  }
  int to_, from_, min_repetitions_;
};

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The worker: everything kernel code does happens here. It leaves by _exit, so rprof's exit
// handlers (which kill rprof's children) never run in it.
[[noreturn]] void Work(const CatalogEntry& entry, const rprof_args& args, int min_repetitions,
                       MeasureOptions options, int to_rprof, int from_rprof) {
  auto phase = [&](WorkerPhase p) { WriteMessage(to_rprof, kPhase, std::string(1, char(p))); };
  // No kernel code before rprof has opened its counters on this process: a kernel that exits at
  // once would otherwise be gone before they attach, and its exit read as a counter failure.
  char go = 0;
  std::string ignored;
  if (ReadMessage(from_rprof, 0, kMaxMessage, nullptr, &go, &ignored) != ReadOutcome::kMessage)
    _exit(0);
  const rprof_kernel* kernel = entry.kernel;
  if (entry.origin != "builtin") {
    phase(WorkerPhase::kLoading);
    Error why;
    kernel = LoadPluginKernelHere(entry.origin, entry.index, entry.kernel->name, &why);
    if (!kernel) {
      WriteMessage(to_rprof, kCannot, why.message);
      _exit(0);
    }
  }
  phase(WorkerPhase::kSetup);
  rprof_error kernel_error{};
  auto setup_start = std::chrono::steady_clock::now();
  void* state = kernel->setup(&args, &kernel_error);
  double setup_s = SecondsSince(setup_start);
  if (!state) {
    kernel_error.message[sizeof kernel_error.message - 1] = '\0';
    WriteMessage(
        to_rprof, kCannot,
        std::string("kernel ") + entry.kernel->name + ": setup failed: " + kernel_error.message);
    _exit(0);
  }
  std::string setup_bytes;
  Put(&setup_bytes, setup_s);
  WriteMessage(to_rprof, kSetupSeconds, setup_bytes);

  options.on_phase = [&](Phase p) {
    phase(p == Phase::kWarmUp ? WorkerPhase::kWarmUp : WorkerPhase::kRepetitions);
  };
  options.on_repetition = [&](double seconds_per_call, int64_t calls) {
    std::string repetition;
    Put(&repetition, seconds_per_call);
    Put(&repetition, calls);
    WriteMessage(to_rprof, kRepetition, repetition);
  };
  CountersInRprof counters(to_rprof, from_rprof, min_repetitions);
  std::vector<CounterSession*> sessions;
  if (min_repetitions > 0) sessions.push_back(&counters);
  MeasureResult measured;
  Error counting;
  void (*run)(void*) = kernel->run;
  if (!MeasureRepeated([&] { run(state); }, sessions, options, &measured, &counting)) {
    WriteMessage(to_rprof, kCounterFailed, counting.message);
    _exit(0);
  }
  // The repetitions are rprof's already (on_repetition): a check that hangs cannot lose them.
  WriteMessage(to_rprof, kMeasured, std::string(1, static_cast<char>(measured.interrupted)));
  phase(WorkerPhase::kCheck);
  bool correct = !measured.interrupted && kernel->check(state, &kernel_error);
  kernel_error.message[sizeof kernel_error.message - 1] = '\0';
  std::string checked(1, static_cast<char>(correct));
  checked += correct ? "" : kernel_error.message;
  WriteMessage(to_rprof, kChecked, checked);
  phase(WorkerPhase::kTeardown);
  kernel->teardown(state);
  // What kernel code printed (to rprof's stderr, see RunKernelInWorker) is not lost at _exit.
  std::fflush(nullptr);
  WriteMessage(to_rprof, kDone, "");
  _exit(0);
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Whether `pid`, rprof's child, has ended; it stays a zombie to be waited for (WNOWAIT).
bool Exited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// Whether a read of `fd` would not block: data, or the end of the pipe.
bool Readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) > 0 && p.revents != 0;
}

}  // namespace

bool RunKernelInWorker(const CatalogEntry& entry, const rprof_args& args,
                       const std::vector<CounterSession*>& counters, MeasureOptions options,
                       WorkerOutcome* out, Error* err, double timeout_s) {
  *out = WorkerOutcome();
  int min_repetitions = 0;  // 0: no counters, no round trips
  for (CounterSession* c : counters)
    min_repetitions = std::max(min_repetitions, c->MinRepetitions());
  if (!counters.empty()) min_repetitions = std::max(min_repetitions, 1);

  int up[2], down[2];  // worker -> rprof, rprof -> worker
  if (pipe2(up, O_CLOEXEC) != 0)
    return Fail(err, ErrorKind::kEnvironment, std::string("pipe: ") + std::strerror(errno));
  if (pipe2(down, O_CLOEXEC) != 0) {
    close(up[0]);
    close(up[1]);
    return Fail(err, ErrorKind::kEnvironment, std::string("pipe: ") + std::strerror(errno));
  }
  // A kernel that calls exit() flushes stdio in the worker: rprof's buffers must be empty then.
  std::fflush(nullptr);
  ChildLaunch launch = PrepareChildLaunch();
  // The worker stays in rprof's process group with rprof's signal handlers: a signal sets its
  // own flag, and its loop ends between repetitions as rprof's did in process.
  launch.own_group = false;
  pid_t pid = fork();
  if (pid == 0) {
    close(up[0]);
    close(down[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launch.parent) _exit(127);
    JoinRunCgroup();  // what a kernel starts ends with the run (process/run_cgroup.h)
    prctl(PR_SET_NAME, "rprof-worker");  // what ps and top show for the kernel's process
    // rprof's stdout is its report (`run --format json`): what kernel code prints goes to its
    // stderr, beside rprof's messages.
    dup2(STDERR_FILENO, STDOUT_FILENO);
    if (!options.interrupted) options.interrupted = &InterruptedFlag();
    Work(entry, args, min_repetitions, std::move(options), up[1], down[0]);
  }
  close(up[1]);
  close(down[0]);
  if (pid < 0) {
    close(up[0]);
    close(down[1]);
    return Fail(err, ErrorKind::kEnvironment, std::string("fork: ") + std::strerror(errno));
  }
  TrackChild(pid, launch);
  // The deadline counts from the worker's start: loading the plugin and setup are within it.
  double deadline = timeout_s > 0 && std::isfinite(timeout_s) ? Now() + timeout_s : INFINITY;

  // A counter that cannot attach fails the worker's first start (kRefused, its message).
  Error attach_error;
  for (CounterSession* c : counters)
    if (!c->Attach(pid, &attach_error)) break;
  const std::string& counter_error = attach_error.message;
  WriteMessage(down[1], kOk, "");  // the worker may start: its counters are on it (or failed)
  // Once the worker was asked to stop (a signal, its deadline), it is killed at this time:
  // nothing the worker says can make rprof wait longer.
  double kill_at = INFINITY;
  WorkerPhase phase = WorkerPhase::kLoading;
  std::string cannot, counters_failed;
  bool done = false, interrupted_early = false, worker_gone = false;
  auto stop = [&] {
    // The worker has exited and everything it wrote is read: stop here, not at the pipe's end,
    // which whatever the kernel forked may hold open for as long as it lives. (Exited first:
    // the worker's last writes are in the pipe before its exit is seen.)
    if (Exited(pid) && !Readable(up[0])) {
      worker_gone = true;
      return true;
    }
    return std::isinf(kill_at) && InterruptingSignal() != 0;
  };
  for (;;) {
    double until = std::min(deadline, kill_at);
    double timeout = 0;  // none
    if (std::isfinite(until)) timeout = std::max(until - Now(), 1e-3);
    char kind = 0;
    std::string payload;
    ReadOutcome read = ReadMessage(up[0], timeout, kMaxMessage, stop, &kind, &payload);
    if (read == ReadOutcome::kStopped && worker_gone) break;
    if (read == ReadOutcome::kStopped) {
      if (phase < WorkerPhase::kWarmUp) {  // nothing measured yet: end it now
        interrupted_early = true;
        kill(pid, SIGKILL);
        break;
      }
      // The worker had the signal too (passed on, or from the terminal): it stops between
      // repetitions. It has kStopGraceSeconds to end; what it measured is here already. The
      // signal, not the deadline, is then why it ends.
      kill_at = Now() + kStopGraceSeconds;
      deadline = INFINITY;
      continue;
    }
    if (read == ReadOutcome::kTimedOut) {
      if (!std::isinf(kill_at)) {  // past the grace time
        if (out->timed_out)
          out->killed_at_deadline = true;
        else
          out->killed_after_signal = true;
        kill(pid, SIGKILL);
        break;
      }
      // The deadline (--timeout). Before the warm-up nothing can be measured: killed at once.
      // Later it ends as after a signal: between repetitions, without its check.
      out->timed_out = true;
      out->deadline_phase = WorkerPhaseName(phase);
      deadline = INFINITY;  // passed: kill_at bounds the rest
      if (phase < WorkerPhase::kWarmUp) {
        out->killed_at_deadline = true;
        kill(pid, SIGKILL);
        break;
      }
      kill(pid, SIGTERM);
      kill_at = Now() + kDeadlineGraceSeconds;
      continue;
    }
    if (read != ReadOutcome::kMessage) break;  // closed: the worker ended
    switch (kind) {
      case kPhase:
        if (payload.size() == 1) phase = static_cast<WorkerPhase>(payload[0]);
        if (phase == WorkerPhase::kWarmUp) EnterPhase(Phase::kWarmUp);
        if (phase == WorkerPhase::kRepetitions) EnterPhase(Phase::kRepetitions);
        break;
      case kStart:
      case kStop: {
        Error why{ErrorKind::kEnvironment, counter_error};
        for (CounterSession* c : counters) {
          if (!why.message.empty()) break;
          if (!(kind == kStart ? c->Start(&why) : c->Stop(&why))) break;
        }
        WriteMessage(down[1], why.message.empty() ? kOk : kRefused, why.message);
        break;
      }
      case kSetupSeconds: {
        std::string_view in(payload);
        Get(&in, &out->setup_s);
        break;
      }
      case kCannot:
        cannot = payload.substr(0, 4096);
        break;
      case kCounterFailed:
        counters_failed = payload.substr(0, 4096);
        break;
      case kRepetition: {
        std::string_view in(payload);
        double seconds_per_call = 0;
        int64_t calls = 0;
        MeasureResult& m = out->measured;
        if (!Get(&in, &seconds_per_call) || !Get(&in, &calls) || calls < 1 ||
            !(seconds_per_call >= 0) || !std::isfinite(seconds_per_call) ||
            m.seconds_per_call.size() >= static_cast<size_t>(kMaxRepetitions))
          break;
        m.seconds_per_call.push_back(seconds_per_call);
        m.calls_per_repetition = calls;
        m.timed_calls += calls;
        break;
      }
      case kMeasured:
        if (payload.size() == 1) {
          out->measured.interrupted = payload[0] != 0;
          out->has_results = true;
        }
        break;
      case kChecked:
        if (!payload.empty()) {
          out->correct = payload[0] != 0;
          out->check_message = payload.substr(1, 256);
          out->checked = true;
        }
        break;
      case kDone:
        done = true;
        break;
      default:
        break;
    }
  }
  close(up[0]);
  close(down[1]);
  // A worker that closed its pipe but lingers gets a few seconds, then SIGTERM, then SIGKILL.
  ChildEnd end = WaitChild(pid, 5);
  out->phase = WorkerPhaseName(phase);
  if (interrupted_early)
    return Fail(err, ErrorKind::kTargetFailed,
                InterruptionNote() + ": nothing was measured, nothing is stored");
  bool clean_exit = WIFEXITED(end.wait_status) && WEXITSTATUS(end.wait_status) == 0;
  if (clean_exit && !cannot.empty()) return Fail(err, ErrorKind::kEnvironment, cannot);
  if (clean_exit && !counters_failed.empty())
    return Fail(err, ErrorKind::kEnvironment, "counters: " + counters_failed);
  if (!counter_error.empty() && !out->has_results && clean_exit)
    return Fail(err, ErrorKind::kEnvironment, "counters: " + counter_error);
  if (!(done && clean_exit)) {
    out->ended_abnormally = true;
    out->wait_status = end.wait_status;
  }
  return true;
}

}  // namespace rprof
