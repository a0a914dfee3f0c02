#include "targets/program_target.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/file_text.h"
#include "core/stats.h"
#include "core/target_kind.h"
#include "core/text.h"
#include "core/untrusted_file.h"
#include "marker/marker_backend_path.h"  // issue 15: the static marker library's backend
#include "process/child_process.h"
#include "process/interruption.h"
#include "process/run_cgroup.h"
#include "process/scratch_dir.h"
#include "targets/marker_results.h"
#include "targets/target_path.h"

extern char** environ;

namespace rprof {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; }

struct OneExecution {
  double seconds = 0;
  double cpu_seconds = 0;  // user + system, of the program and the children it waited for
  int wait_status = 0;
  bool timed_out = false;
  std::vector<Metric> regions;  // from the marker file
  std::vector<std::string> problems;
};

// One execution: fork, open counters on the child while it waits, release it into exec, wait.
bool ExecuteOnce(const CountedTarget& program, double timeout_s,
                 const std::vector<ProcessCounting*>& counters, OneExecution* out, Error* err) {
  // The program writes its marker results here, if it uses the marker API.
  std::string marker_file;
  if (!ScratchPath("markers", &marker_file, err)) return false;
  const char* marker_path = marker_file.c_str();

  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "RPROF_MARKER_", 13) != 0) env_strings.push_back(*e);
  env_strings.push_back(std::string("RPROF_MARKER_OUT=") + marker_path);
  // Issue 15: a program linked to librprof-marker.a loads rprof's own backend, named here.
  static const std::string marker_backend = MarkerBackendPath();
  if (!marker_backend.empty())
    env_strings.push_back(RPROF_MARKER_BACKEND_VARIABLE "=" + marker_backend);
  // The marker events are filled in by the child from what the go message says: only the
  // events rprof could open, so regions repeat no error the whole run already explains.
  char marker_events[4096] = "RPROF_MARKER_EVENTS=";
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(marker_events);
  envp.push_back(nullptr);
  std::vector<std::string> args = program.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  int go[2], exec_error[2];
  if (pipe2(go, O_CLOEXEC) != 0 || pipe2(exec_error, O_CLOEXEC) != 0) {
    return Fail(err, ErrorKind::kEnvironment, std::string("pipe: ") + std::strerror(errno));
  }
  ChildLaunch launch = PrepareChildLaunch();
  pid_t pid = ForkIntoRunCgroup();  // the child only execs
  if (pid < 0) {
    return Fail(err, ErrorKind::kEnvironment, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // The child: wait until the counters are open on us, then become the program.
    SetUpChild(launch);
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
    execve(program.path.c_str(), argv.data(), envp.data());
    int e = errno;
    (void)!write(exec_error[1], &e, sizeof e);
    _exit(127);
  }
  TrackChild(pid, launch);
  close(go[0]);
  close(exec_error[1]);
  auto abandon = [&](const Error& why) {
    kill(pid, SIGKILL);
    WaitChild(pid, 0);
    close(go[1]);
    close(exec_error[0]);
    if (err) *err = why;
    return false;
  };
  std::vector<std::string> counted;
  for (ProcessCounting* c : counters) {
    Error why;
    if (!c->Attach(pid, &why)) return abandon(why);
    for (std::string& name : c->Counted()) counted.push_back(std::move(name));
  }
  std::string go_message = Join(counted, ",");
  Clock::time_point start = Clock::now();
  (void)!write(go[1], go_message.data(), go_message.size());
  close(go[1]);
  int exec_errno = 0;
  ssize_t got = read(exec_error[0], &exec_errno, sizeof exec_errno);
  close(exec_error[0]);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    WaitChild(pid, 0);
    // ENOEXEC: a binary this machine cannot run (another architecture, a truncated file).
    return Fail(err, exec_errno == ENOEXEC ? ErrorKind::kUsage : ErrorKind::kEnvironment,
                program.path + ": cannot execute: " + std::strerror(exec_errno));
  }
  // A time-out stops it politely first, so the program can flush its marker file.
  ChildEnd end = WaitChild(pid, timeout_s);
  out->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  out->wait_status = end.wait_status;
  out->timed_out = end.timed_out;
  out->cpu_seconds = Seconds(end.usage.ru_utime) + Seconds(end.usage.ru_stime);

  for (ProcessCounting* c : counters) c->Collect();
  // The program wrote it, and may have made it anything: read as untrusted input.
  std::string text;
  Error refused;
  UntrustedRead read = ReadUntrustedFile(marker_file, kMaxTargetFileBytes, &text, &refused);
  unlink(marker_path);
  if (read == UntrustedRead::kRefused) {
    out->problems.push_back("marker results refused: the file " + refused.message);
  } else if (!text.empty()) {
    MarkerResults results;
    Error why;
    if (ParseMarkerResults(text, &results, &why)) {
      out->regions = MarkerMetrics(results);
      out->problems = results.problems;
    } else {
      out->problems.push_back("marker results unreadable: " + why.message);
    }
  }
  return true;
}

// How the execution ended, when it did not succeed: status and note.
void JudgeExit(const OneExecution& ex, double timeout_s, Execution* out) {
  int status = ex.wait_status;
  if (WIFEXITED(status)) out->exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out->signal = WTERMSIG(status);
  if (ex.timed_out) {
    out->status = RunStatus::kInterrupted;
    char note[96];
    std::snprintf(note, sizeof note, "timed out after %g s (--timeout): stopped", timeout_s);
    out->note = note;
  } else if (InterruptingSignal() != 0) {
    out->status = RunStatus::kInterrupted;
    out->note = InterruptionNote();
  } else if (WIFSIGNALED(status)) {
    out->status = RunStatus::kCrashed;
    out->note = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                strsignal(WTERMSIG(status)) + ")";
  } else if (WEXITSTATUS(status) != 0) {
    out->status = RunStatus::kFailed;
    out->note = "exited with status " + std::to_string(WEXITSTATUS(status));
  }
}

}  // namespace

ProgramTarget::ProgramTarget(std::string path, std::vector<std::string> argv,
                             ProgramOptions options)
    : options_(options) {
  counted_.kind = CountedTarget::Kind::kProgram;
  counted_.path = std::move(path);
  counted_.argv = std::move(argv);
  counted_.declared_flops = options.declared_flops;
  counted_.declared_bytes = options.declared_bytes;
}

void ProgramTarget::Describe(RunRecord* run) const {
  run->target_kind = TargetKindName(TargetKind::kExecutable);
  // The file executed, canonical (cli: CanonicalProgramPath), so that `./app` and its absolute
  // path are one target; for an interpreter, the script it runs. The name typed stays the
  // command's argv[0], the interpreter and its arguments the command.
  run->target = ProgramRunTarget(counted_.path, counted_.argv);
  run->command = counted_.argv;
  if (char* cwd = getcwd(nullptr, 0)) {
    run->cwd = cwd;
    std::free(cwd);
  }
}

bool ProgramTarget::Execute(const LiveCounters& counters, Execution* out, Error* err) {
  EnterPhase(Phase::kExecution);
  std::vector<std::vector<Metric>> regions;
  std::vector<std::string> problems;
  out->started_at = UtcNow();
  for (int rep = 0; rep < std::max(1, options_.repetitions); ++rep) {
    OneExecution ex;
    if (!ExecuteOnce(counted_, options_.timeout_s, counters.per_process, &ex, err)) {
      if (rep == 0) return false;
      out->note = "repetition " + std::to_string(rep + 1) + " could not start: " + err->message;
      out->status = RunStatus::kFailed;
      *err = Error();
      break;
    }
    out->samples.push_back(ex.seconds);
    // The program's own whole-run metrics beside its regions': CPU time, for the thread count
    // of its roof, and the thread count the user declared.
    ex.regions.push_back({"cpu_time_s", ex.cpu_seconds, "s", Source::kClock, "",
                          "user + system CPU time of the program, its threads and the children "
                          "it waited for (wait4)"});
    if (options_.threads)
      ex.regions.push_back({"threads", static_cast<double>(*options_.threads), "count",
                            Source::kClock, "", "declared with --threads"});
    regions.push_back(std::move(ex.regions));
    for (auto& p : ex.problems) problems.push_back(std::move(p));
    JudgeExit(ex, options_.timeout_s, out);
    if (out->status != RunStatus::kOk) break;
    if (InterruptingSignal() != 0) {  // between executions: the next one is not started
      out->status = RunStatus::kInterrupted;
      out->note = InterruptionNote();
      break;
    }
  }
  out->ended_at = UtcNow();
  if (!problems.empty()) {
    // Every misuse is reported: the note is where the run says what went wrong.
    std::string text;
    for (const std::string& problem : problems) {
      if (text.size() > kMaxNoteBytes) break;  // CapNote below says how much is left out
      if (!text.empty()) text += "; ";
      text += problem.rfind("markers: ", 0) == 0 ? problem : "markers: " + problem;
    }
    out->note = out->note.empty() ? text : out->note + "; " + text;
    CapNote(&out->note);
  }
  out->samples_note =
      out->samples.size() == 1
          ? std::string("wall time of one execution")
          : "median wall time of " + std::to_string(out->samples.size()) + " executions";
  out->metrics = MeanPerExecution(regions);
  // A replay runs the whole program once more.
  out->replay_native_s = out->samples.empty() ? 0 : Summarize(out->samples).median;
  return true;
}

}  // namespace rprof
