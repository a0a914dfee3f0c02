#include "counters/sim/callgrind_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/source.h"
#include "counters/sim/instruction_class.h"
#include "counters/sim/simtool_location.h"
#include "process/child_process.h"
#include "process/output_tail.h"
#include "process/run_cgroup.h"
#include "process/scratch_dir.h"
#include "process/watchdog.h"

extern char** environ;

namespace rprof {
namespace {

double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// What valgrind's log says about an instruction it could not execute, or "" when nothing.
// The log has, for example:
//   vex amd64->IR: unhandled instruction bytes: 0x62 0xF1 0xFD 0x48 0x10 0x0 0x62 ...
//   ==13332== valgrind: Unrecognised instruction at address 0x10908a.
//   ==13332==    at 0x10908A: main (in /tmp/cg/a512)
std::string DescribeUnhandledInstruction(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string line;
  std::string bytes_text;
  std::string where;
  bool want_where = false;
  while (std::getline(in, line)) {
    size_t p = line.find("unhandled instruction bytes:");
    if (p != std::string::npos && bytes_text.empty()) {
      bytes_text = line.substr(p + std::strlen("unhandled instruction bytes:"));
      continue;
    }
    if (line.find("Unrecognised instruction at address") != std::string::npos) {
      want_where = true;
      continue;
    }
    if (want_where) {
      size_t at = line.find("at 0x");
      if (at != std::string::npos) where = line.substr(at + 3);
      want_where = false;
    }
  }
  if (bytes_text.empty() && where.empty()) return "";

  std::vector<unsigned> bytes;
  std::istringstream ss(bytes_text);
  std::string tok;
  while (ss >> tok) bytes.push_back(static_cast<unsigned>(std::strtoul(tok.c_str(), nullptr, 16)));
  std::string hex;
  for (size_t i = 0; i < bytes.size() && i < 8; ++i) {
    char b[4];
    std::snprintf(b, sizeof b, "%02x", bytes[i] & 0xff);
    if (!hex.empty()) hex += ' ';
    hex += b;
  }
  // AVX-512 by what the decoder says the instruction is: EVEX-encoded, or one of its
  // VEX-encoded mask-register instructions (kmovq). When the bytes valgrind printed do not
  // decode (it prints a few), by the EVEX prefix: after legacy prefixes, 0x62 starts one (BOUND,
  // its other meaning, does not exist in 64-bit mode).
  std::vector<uint8_t> code(bytes.begin(), bytes.end());
  InstructionClass decoded;
  bool evex = false;
  // Bytes that do not decode are looked at by their prefix below: the reason is not needed.
  if (ClassifyInstruction(code, &decoded, nullptr)) {
    evex = decoded.avx512;
  } else {
    size_t i = 0;
    while (i < code.size() &&
           (code[i] == 0x26 || code[i] == 0x2e || code[i] == 0x36 || code[i] == 0x3e ||
            code[i] == 0x64 || code[i] == 0x65 || code[i] == 0x66 || code[i] == 0x67 ||
            code[i] == 0xf0 || code[i] == 0xf2 || code[i] == 0xf3)) {
      ++i;
    }
    evex = i < code.size() && code[i] == 0x62;
  }
  std::string what = "valgrind cannot execute the instruction";
  if (!where.empty()) what += " at " + where;
  if (!hex.empty()) what += " (bytes " + hex + ")";
  if (evex) {
    return what +
           ": it is AVX-512, which valgrind 3.19 cannot execute; sim runs need the "
           "AVX2 build of the code: compile it with -mavx2 -mfma and without -mavx512f or "
           "-march=native, or let target clones pick the AVX2 version";
  }
  return what +
         ": valgrind does not support it; for sim runs build the code for an ISA valgrind "
         "supports (x86-64-v3: -mavx2 -mfma)";
}

std::string LogTail(const std::vector<std::string>& logs, size_t max_lines) {
  std::vector<std::string> lines;
  for (const std::string& path : logs) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
  }
  size_t start = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string tail;
  for (size_t k = start; k < lines.size(); ++k) tail += "\n  " + lines[k];
  return tail;
}

// The first line of valgrind's own fatal complaint in the logs, "" when none: a run that ends
// with one did not run the program as natively (or not to its end).
std::string ValgrindError(const std::vector<std::string>& logs) {
  static const char* const kFatal[] = {"the 'impossible' happened",
                                       "VALGRIND INTERNAL ERROR",
                                       "Valgrind's memory management: out of memory",
                                       "Fatal error at startup",
                                       "The maximum number of threads",
                                       "valgrind: m_"};
  for (const std::string& path : logs) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
      for (const char* fatal : kFatal)
        if (line.find(fatal) != std::string::npos) {
          size_t text = line.find("== ");  // after the "==<pid>== " prefix
          return text == std::string::npos ? line : line.substr(text + 3);
        }
  }
  return "";
}

}  // namespace

std::string FindExecutable(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return IsExecutableFile(name) ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    size_t colon = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (IsExecutableFile(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

bool RunUnderCallgrind(const std::vector<std::string>& argv, const CallgrindOptions& opts,
                       CallgrindRun* out, Error* err) {
  *out = CallgrindRun();
  if (argv.empty() || argv[0].empty())
    return Fail(err, ErrorKind::kEnvironment, "no program to run under callgrind");
  std::string valgrind =
      opts.valgrind.empty() ? FindExecutable("valgrind") : FindExecutable(opts.valgrind);
  if (valgrind.empty())
    return Fail(err, ErrorKind::kEnvironment,
                opts.valgrind.empty()
                    ? "valgrind not found: install the Debian package valgrind (apt-get install "
                      "valgrind)"
                    : "valgrind not found at " + opts.valgrind +
                          ": install the Debian package valgrind (apt-get install valgrind)");
  std::string program = FindExecutable(argv[0]);
  if (program.empty())
    return Fail(err, ErrorKind::kEnvironment,
                argv[0] + ": not found or not executable" +
                    (argv[0].find('/') == std::string::npos ? " (looked on PATH)" : ""));

  std::string dir = opts.output_dir;
  if (dir.empty()) {
    Error scratch_err;
    if (!ScratchPath(std::string(SourceName(Source::kSim)), &dir, &scratch_err))
      return Fail(err, ErrorKind::kEnvironment, scratch_err.message);
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Fail(err, ErrorKind::kEnvironment, "cannot create " + dir + ": " + std::strerror(errno));
  out->output_dir = dir;

  // %p: each process valgrind follows (forked children) writes its own file instead of
  // truncating the parent's.
  const bool simtool = !opts.simtool.empty();
  const std::string out_prefix = simtool ? "rprofsim.out." : "callgrind.out.";
  const std::string tool_name = simtool ? "rprofsim" : "callgrind";
  std::vector<std::pair<std::string, std::string>> env = opts.env;
  std::vector<std::string>& cmd = out->command;
  if (simtool) {
    std::string lib = dir + "/vglib";
    Error lib_err;
    if (!PrepareSimtoolLib(opts.simtool, lib, &lib_err))
      return Fail(err, ErrorKind::kEnvironment, lib_err.message);
    out->simtool_lib = lib;
    env.push_back({"VALGRIND_LIB", lib});
    // --vgdb=no: no gdbserver, so no vgdb-pipe-* FIFOs in $TMPDIR for a killed replay to leave.
    cmd = {valgrind,
           "--tool=rprofsim",
           "--vgdb=no",
           "--collect-atstart=no",
           "--rprofsim-out-file=" + dir + "/rprofsim.out.%p",
           "--log-file=" + dir + "/valgrind.%p.log"};
  } else {
    cmd = {valgrind,
           "--tool=callgrind",
           "--vgdb=no",
           "--cache-sim=yes",
           "--dump-instr=yes",
           "--collect-atstart=no",
           "--callgrind-out-file=" + dir + "/callgrind.out.%p",
           "--log-file=" + dir + "/valgrind.%p.log"};
  }
  cmd.insert(cmd.end(), opts.extra_valgrind_args.begin(), opts.extra_valgrind_args.end());
  cmd.push_back(program);
  cmd.insert(cmd.end(), argv.begin() + 1, argv.end());

  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry = *e;
    std::string key = entry.substr(0, entry.find('='));
    bool replaced =
        std::any_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == key; });
    if (!replaced) env_strings.push_back(std::move(entry));
  }
  for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
  std::vector<char*> child_argv;
  for (std::string& s : cmd) child_argv.push_back(s.data());
  child_argv.push_back(nullptr);
  std::vector<char*> child_env;
  for (std::string& s : env_strings) child_env.push_back(s.data());
  child_env.push_back(nullptr);

  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0)
    return Fail(err, ErrorKind::kEnvironment, std::string("pipe: ") + std::strerror(errno));
  // The program's standard error, passed through (unless discarded), its end kept to say why a
  // replay failed.
  OutputTail stderr_tail(kOutputTailBytes, /*pass_through=*/!opts.discard_output);
  Error tail_err;
  if (!stderr_tail.Open(&tail_err)) {
    Fail(err, ErrorKind::kEnvironment, tail_err.message);
    close(exec_pipe[0]);
    close(exec_pipe[1]);
    return false;
  }
  // Opened before fork: only async-signal-safe calls in the child.
  int null_out = opts.discard_output ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
  ChildLaunch launch = PrepareChildLaunch();
  double start = Now();
  pid_t pid = ForkIntoRunCgroup();  // the child only execs
  if (pid < 0) {
    Fail(err, ErrorKind::kEnvironment, std::string("fork: ") + std::strerror(errno));
    close(exec_pipe[0]);
    close(exec_pipe[1]);
    if (null_out >= 0) close(null_out);
    return false;
  }
  if (pid == 0) {
    SetUpChild(launch);
    stderr_tail.AttachChild();
    if (null_out >= 0) dup2(null_out, STDOUT_FILENO);  // dup2 clears O_CLOEXEC on the copy
    close(exec_pipe[0]);
    execve(child_argv[0], child_argv.data(), child_env.data());
    int e = errno;
    ssize_t ignored = write(exec_pipe[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  TrackChild(pid, launch);
  if (null_out >= 0) close(null_out);
  stderr_tail.Start();
  close(exec_pipe[1]);
  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  close(exec_pipe[0]);

  ChildEnd end = WaitChild(pid, opts.timeout_s);
  out->output_tail = stderr_tail.Finish();
  SweepValgrindFifos(pid);  // a valgrind run without --vgdb=no (extra arguments) leaves them
  int status = end.wait_status;
  out->timed_out = end.timed_out;
  out->interrupted = end.interrupted;
  out->wall_s = Now() - start;
  if (WIFEXITED(status)) {
    out->exited = true;
    out->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out->term_signal = WTERMSIG(status);
  }

  if (n == static_cast<ssize_t>(sizeof exec_errno))
    return Fail(err, ErrorKind::kEnvironment,
                "cannot execute " + valgrind + ": " + std::strerror(exec_errno));

  // Collect what valgrind wrote. valgrind runs the program in the process we forked, so its
  // files carry our child's pid: callgrind.out.<pid>, .<pid>.<dump>, .<pid>-<thread>;
  // rprofsim.out.<pid>, .<pid>.region<N>.
  const std::string own = out_prefix + std::to_string(pid);
  if (DIR* d = opendir(dir.c_str())) {
    while (struct dirent* ent = readdir(d)) {
      std::string name = ent->d_name;
      if (StartsWith(name, out_prefix.c_str())) {
        bool mine =
            StartsWith(name, own.c_str()) &&
            (name.size() == own.size() || name[own.size()] == '.' || name[own.size()] == '-');
        bool region = mine && simtool && StartsWith(name.substr(own.size()), ".region");
        (region ? out->region_output_files
         : mine ? out->output_files
                : out->child_output_files)
            .push_back(dir + "/" + name);
      }
      if (StartsWith(name, "valgrind.") && name.size() > 4 &&
          name.compare(name.size() - 4, 4, ".log") == 0) {
        out->log_files.push_back(dir + "/" + name);
      }
    }
    closedir(d);
  }
  std::sort(out->output_files.begin(), out->output_files.end());
  std::sort(out->child_output_files.begin(), out->child_output_files.end());
  std::sort(out->region_output_files.begin(), out->region_output_files.end());
  if (!simtool) out->region_output_files = out->output_files;
  std::sort(out->log_files.begin(), out->log_files.end());

  if (!out->exited || out->exit_code != 0) out->log_tail = LogTail(out->log_files, 8);
  out->valgrind_error = ValgrindError(out->log_files);
  for (const std::string& log : out->log_files) {
    std::string unhandled = DescribeUnhandledInstruction(log);
    if (!unhandled.empty()) return Fail(err, ErrorKind::kEnvironment, unhandled);
  }
  if (out->interrupted)
    return Fail(err, ErrorKind::kEnvironment,
                "the " + tool_name + " run was stopped: rprof was interrupted");
  if (out->timed_out)
    return Fail(err, ErrorKind::kEnvironment,
                "the " + tool_name + " run took longer than " + std::to_string(opts.timeout_s) +
                    " s and was stopped");
  bool any_output = false;
  for (const std::string& f : out->output_files) {
    struct stat st;
    if (stat(f.c_str(), &st) == 0 && st.st_size > 0) any_output = true;
  }
  if (!any_output) {
    std::string status_text = out->exited ? "exit status " + std::to_string(out->exit_code)
                                          : "signal " + std::to_string(out->term_signal);
    return Fail(
        err, ErrorKind::kEnvironment,
        out->output_files.empty()
            ? "valgrind wrote no " + tool_name + " output (" + status_text + ")" +
                  (out->log_files.empty() ? std::string(": it did not start; check its "
                                                        "options")
                                          : ("; its log ends:" + LogTail(out->log_files, 8)))
            : "valgrind's " + tool_name + " output is empty (" + status_text +
                  "): the program probably replaced itself with exec (a shell script or a "
                  "wrapper?), which valgrind does not follow; run the real executable");
  }
  return true;
}

bool RemoveCallgrindRun(const CallgrindRun& run, Error* err) {
  bool ok = true;
  auto remove_file = [&](const std::string& path) {
    if (unlink(path.c_str()) != 0 && errno != ENOENT && ok) {
      ok =
          Fail(err, ErrorKind::kEnvironment, "cannot remove " + path + ": " + std::strerror(errno));
    }
  };
  for (const std::string& f : run.output_files) remove_file(f);
  for (const std::string& f : run.child_output_files) remove_file(f);
  if (!run.simtool_lib.empty()) {
    for (const std::string& f : run.region_output_files) remove_file(f);
    if (DIR* d = opendir(run.simtool_lib.c_str())) {
      std::vector<std::string> links;
      while (struct dirent* ent = readdir(d))
        if (std::strcmp(ent->d_name, ".") != 0 && std::strcmp(ent->d_name, "..") != 0)
          links.push_back(run.simtool_lib + "/" + ent->d_name);
      closedir(d);
      for (const std::string& f : links) remove_file(f);
    }
    rmdir(run.simtool_lib.c_str());
  }
  for (const std::string& f : run.log_files) remove_file(f);
  if (!run.output_dir.empty()) rmdir(run.output_dir.c_str());  // only when empty: ours or not
  return ok;
}

}  // namespace rprof
