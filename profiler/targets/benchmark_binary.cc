#include "targets/benchmark_binary.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/file_text.h"
#include "core/untrusted_file.h"
#include "counters/time_adaptive.h"
#include "process/child_process.h"
#include "process/run_cgroup.h"
#include "process/scratch_dir.h"
#include "process/worker_pipe.h"

extern char** environ;

namespace rprof {

namespace {

// Runs the binary with `args`, its standard output into a scratch file, standard error
// discarded. The exit status, or -1 when it could not start or was killed (*how says which:
// "killed by SIGSEGV").
int RunCaptured(const std::string& path, const std::vector<std::string>& args, std::string* out,
                std::string* how, Error* err) {
  std::string file;
  if (!ScratchPath("gbench-list", &file, err)) return -1;
  std::vector<std::string> words = {path};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  ChildLaunch launch = PrepareChildLaunch();
  pid_t pid = ForkIntoRunCgroup();  // the child only execs
  if (pid < 0) {
    Fail(err, ErrorKind::kEnvironment, std::string("fork: ") + std::strerror(errno));
    return -1;
  }
  if (pid == 0) {
    SetUpChild(launch);
    int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int null = open("/dev/null", O_RDWR);
    if (fd < 0 || null < 0) _exit(127);
    dup2(fd, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    dup2(null, STDIN_FILENO);
    execve(path.c_str(), argv.data(), environ);
    _exit(127);
  }
  TrackChild(pid, launch);
  ChildEnd end = WaitChild(pid, 60);
  // What the binary printed: bounded, as anything a target writes (core/untrusted_file.h).
  // Output refused or missing is no output: the exit status below is what the caller reads.
  if (ReadUntrustedFile(file, kMaxTargetFileBytes, out, nullptr) != UntrustedRead::kRead)
    out->clear();
  unlink(file.c_str());
  *how = WaitStatusText(end.wait_status);
  if (!WIFEXITED(end.wait_status)) return -1;
  return WEXITSTATUS(end.wait_status);
}

bool IsBenchmarkName(const std::string& line) {
  if (line.empty()) return false;
  for (char c : line)
    if (c == ' ' || c == '\t' || static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}

}  // namespace

bool LooksLikeBenchmarkBinary(const std::string& path) { return IsGoogleBenchmarkBinary(path); }

bool LinksSharedBenchmarkLibrary(const std::string& path) {
  std::string text = ReadFileText(path);
  return text.find("libbenchmark.so") != std::string::npos;
}

bool ListBenchmarks(const std::string& path, const std::vector<std::string>& benchmark_args,
                    BenchmarkBinary* out, Error* err) {
  out->path = path;
  // Listing needs no --benchmark_min_time, and the user's may be in a syntax the library
  // refuses (MinTimeFor says so afterwards, with the reason).
  std::vector<std::string> args;
  for (const std::string& a : benchmark_args)
    if (a.rfind("--benchmark_min_time", 0) != 0) args.push_back(a);
  args.push_back("--benchmark_list_tests=true");
  std::string listed;
  // A library that takes "1x" answers with it; 1.7.1 exits 1 on it and is asked again without.
  std::vector<std::string> probe = args;
  probe.push_back("--benchmark_min_time=1x");
  std::string how;
  int status = RunCaptured(path, probe, &listed, &how, err);
  if (status == 0) {
    out->min_time_takes_suffix = true;
  } else {
    if (!err->message.empty()) return false;
    status = RunCaptured(path, args, &listed, &how, err);
    if (!err->message.empty()) return false;
  }
  // A crash is the binary's, not a sign that it is no Google Benchmark binary.
  if (status < 0)
    return Fail(err, ErrorKind::kTargetFailed,
                path + " " + how +
                    " while listing its benchmarks (--benchmark_list_tests=true);"
                    " run it alone with that option to see why");
  std::istringstream lines(listed);
  std::string line;
  bool all_names = true;
  while (std::getline(lines, line)) {
    if (IsBenchmarkName(line))
      out->instances.push_back(line);
    else if (!line.empty())
      all_names = false;
  }
  const std::string what = path +
                           " does not answer --benchmark_list_tests as a Google Benchmark "
                           "binary does";
  if (status != 0)
    return Fail(err, ErrorKind::kUsage,
                what + " (exit " + std::to_string(status) +
                    "); rprof measures a Google Benchmark binary (built with BENCHMARK_MAIN) "
                    "benchmark by benchmark, and its --benchmark_* options must be ones it "
                    "knows");
  if (!all_names)
    return Fail(err, ErrorKind::kUsage,
                what +
                    " (it printed other lines than benchmark names); drop --gbench to "
                    "profile it as a program");
  if (out->instances.empty() && !LooksLikeBenchmarkBinary(path))
    return Fail(err, ErrorKind::kUsage,
                what +
                    " (it listed nothing and does not link libbenchmark); drop --gbench to "
                    "profile it as a program");
  if (out->instances.empty()) {
    std::string filter;
    for (const std::string& a : benchmark_args)
      if (a.rfind("--benchmark_filter=", 0) == 0) filter = a.substr(19);
    return Fail(err, ErrorKind::kUsage,
                filter.empty() ? path + " holds no benchmarks"
                               : "--benchmark_filter=" + filter + " matches no benchmark in " +
                                     path + "; `rprof kernels " + path + "` lists them");
  }
  return true;
}

std::string ExactFilter(const std::string& instance) {
  std::string regex = "^";
  for (char c : instance) {
    if (std::strchr("\\^$.|?*+()[]{}", c)) regex += '\\';
    regex += c;
  }
  return regex + "$";
}

bool MinTimeFor(const BenchmarkBinary& binary, const std::string& text, std::string* value,
                Error* err) {
  if (text.empty()) return Fail(err, ErrorKind::kUsage, "an empty --benchmark_min_time");
  char last = text.back();
  std::string number = (last == 's' || last == 'x') ? text.substr(0, text.size() - 1) : text;
  char* end = nullptr;
  double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(v > 0))
    return Fail(
        err, ErrorKind::kUsage,
        "--benchmark_min_time=" + text + ": expected seconds (0.5 or 0.5s) or iterations (10x)");
  if (binary.min_time_takes_suffix) {
    *value = last == 'x' || last == 's' ? text : text + "s";
    return true;
  }
  if (last == 'x')
    return Fail(err, ErrorKind::kUsage,
                "--benchmark_min_time=" + text + ": " + binary.path +
                    "'s Google Benchmark (before 1.8.0) takes seconds only; give seconds (0.5)");
  *value = number;
  return true;
}

std::string FewestMinTime(const BenchmarkBinary& binary) {
  // 1e-9 s: less than any iteration takes under valgrind, so the first trial (1 iteration)
  // already runs long enough.
  return binary.min_time_takes_suffix ? "1x" : "1e-9";
}

KeyValues BenchmarkParams(const std::string& instance) {
  KeyValues params;
  std::istringstream parts(instance);
  std::string part;
  int position = 0;
  bool first = true;
  while (std::getline(parts, part, '/')) {
    if (first) {  // the family name
      first = false;
      continue;
    }
    size_t colon = part.find(':');
    std::string key = colon == std::string::npos ? "" : part.substr(0, colon);
    // Google Benchmark's own options in the name, after the arguments; an argument named with
    // ArgNames keeps its position.
    bool option = part == "real_time" || part == "manual_time" || key == "threads" ||
                  key == "min_time" || key == "min_warmup_time" || key == "iterations" ||
                  key == "repeats";
    if (part == "real_time" || part == "manual_time") {
      params.emplace_back(part, "true");
    } else if (colon != std::string::npos) {
      params.emplace_back(key, part.substr(colon + 1));
    } else {
      params.emplace_back("arg" + std::to_string(position), part);
    }
    if (!option) ++position;
  }
  return params;
}

}  // namespace rprof
