#include "counters/counting_probe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>

#include "core/error.h"
#include "counters/papi/papi_session.h"
#include "counters/perf/process_counters.h"

namespace rprof {

namespace {

constexpr const char kEvent[] = "perf::TASK-CLOCK";

// A forked child that does `work` when told, says when it is done, and exits when let go: what
// is counted on it is read while it still lives. Only async-signal-safe calls in the child: rprof
// may have threads.
class WaitingChild {
 public:
  template <typename Work>
  explicit WaitingChild(Work work) {
    int go[2], done[2];
    if (pipe2(go, O_CLOEXEC) != 0) return;
    if (pipe2(done, O_CLOEXEC) != 0) {
      close(go[0]);
      close(go[1]);
      return;
    }
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      close(go[1]);
      close(done[0]);
      char byte = 0;
      if (read(go[0], &byte, 1) != 1) _exit(1);
      work();
      if (write(done[1], &byte, 1) != 1) _exit(1);
      while (read(go[0], &byte, 1) > 0) {  // until the parent closes its end
      }
      _exit(0);
    }
    close(go[0]);
    close(done[1]);
    go_ = go[1];
    done_ = done[0];
    if (pid_ < 0) Close();
  }
  ~WaitingChild() { WaitExit(); }
  // Lets it go and waits until it has exited.
  void WaitExit() {
    Close();
    if (pid_ <= 0) return;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = 0;
  }
  pid_t pid() const { return pid_; }  // -1 when it could not be forked
  // Tells it to work and waits until it has (or has ended).
  void Work() {
    char byte = 1;
    if (write(go_, &byte, 1) == 1) (void)!read(done_, &byte, 1);
  }

 private:
  void Close() {
    if (go_ >= 0) close(go_);
    if (done_ >= 0) close(done_);
    go_ = done_ = -1;
  }
  pid_t pid_ = -1;
  int go_ = -1, done_ = -1;
};

// Whether `results` (kEvent's metric) counted anything of `what`; *detail says how much, or why
// not.
bool Judge(const std::vector<Metric>& results, const std::string& what, std::string* detail) {
  if (results.empty() || !results[0].value || *results[0].value <= 0) {
    *detail = std::string(kEvent) + " counted nothing of " + what +
              (results.empty() || results[0].note.empty() ? "" : ": " + results[0].note);
    return false;
  }
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f ms", *results[0].value * 1e-6);
  *detail = std::string(kEvent) + " counted " + ms + " of " + what;
  return true;
}

// A kernel's path: a session opened here, attached to the forked worker, started and stopped
// around its work.
void ProbeKernel(CountingProbe* probe) {
  Error err;
  std::unique_ptr<CounterSession> session = CreatePmuSession({kEvent}, false, &err);
  if (!session) {
    probe->kernel_detail = err.message;
    return;
  }
  WaitingChild child([] {
    volatile double sink = 0;
    for (int i = 0; i < 4000000; ++i) sink = sink + i * 0.5;
  });
  if (child.pid() < 0) {
    probe->kernel_detail = "fork failed";
    return;
  }
  Error why;
  bool counting = session->Attach(child.pid(), &why) && session->Start(&why);
  if (counting) child.Work();
  if (!counting || !session->Stop(&why)) {
    probe->kernel_detail = why.message;
    return;
  }
  probe->kernel = Judge(session->Results(1), "a forked worker's work", &probe->kernel_detail);
}

// A program's path: counters opened on the child before its exec, enabled at the exec.
void ProbeProgram(CountingProbe* probe) {
  WaitingChild child([] {
    char* const argv[] = {const_cast<char*>("true"), nullptr};
    execv("/bin/true", argv);
  });
  if (child.pid() < 0) {
    probe->program_detail = "fork failed";
    return;
  }
  Error err;
  std::unique_ptr<ProcessCounters> counters =
      ProcessCounters::Open(child.pid(), {kEvent}, false, &err);
  if (!counters) {
    probe->program_detail = err.message;
    return;
  }
  child.Work();  // returns at the exec, which closes the child's end of the pipe
  child.WaitExit();
  probe->program = Judge(counters->Read(), "/bin/true from its exec on", &probe->program_detail);
}

}  // namespace

const CountingProbe& ProbeCounting() {
  static const CountingProbe probe = [] {
    CountingProbe p;
    PmuBackend backend = ChoosePmuBackend();
    p.backend = backend.name();
    p.why_not_papi = backend.why_not_papi;
    ProbeKernel(&p);
    ProbeProgram(&p);
    return p;
  }();
  return probe;
}

}  // namespace rprof
