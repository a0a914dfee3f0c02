#include "targets/plugin_loader.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>

#include "process/child_process.h"
#include "process/worker_pipe.h"
#include "targets/plugin_descriptor.h"

namespace rprof {

namespace {

// What the probing child answers, one message.
constexpr char kTable = 'T';       // the encoded kernel table
constexpr char kCannotLoad = 'L';  // dlopen's error
constexpr char kNoSymbol = 'N';    // no rprof_kernels
constexpr char kNoSet = 'Z';       // rprof_kernels() returned NULL

// Loading runs the plugin's constructors: a plugin that hangs there is stopped after this long.
constexpr double kProbeSeconds = 30;
// A kernel table is small; more than this is garbage (a count past the table).
constexpr size_t kMaxTableBytes = 16u << 20;

// The tables of every plugin probed: catalogs point into them for the life of the process.
std::deque<std::unique_ptr<PluginDescriptor>>& Descriptors() {
  static std::deque<std::unique_ptr<PluginDescriptor>> descriptors;
  return descriptors;
}

std::string FileToOpen(const std::string& path) {
  // dlopen searches the library path for a bare name; a plugin is always a file the user named.
  return path.find('/') == std::string::npos ? "./" + path : path;
}

// The probing child: load, ask for the table, write it, leave without running rprof's exit
// handlers (they belong to the parent).
[[noreturn]] void Probe(const std::string& file, int out) {
  prctl(PR_SET_NAME, "rprof-probe");
  // Whatever the plugin prints belongs on stderr: stdout may be a JSON listing.
  dup2(STDERR_FILENO, STDOUT_FILENO);
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    WriteMessage(out, kCannotLoad, why ? why : "unknown reason");
    _exit(0);
  }
  auto entry = reinterpret_cast<rprof_kernels_fn>(dlsym(handle, RPROF_KERNELS_SYMBOL));
  if (!entry) {
    WriteMessage(out, kNoSymbol, "");
    _exit(0);
  }
  const rprof_kernel_set* set = entry();
  if (!set) {
    WriteMessage(out, kNoSet, "");
    _exit(0);
  }
  WriteMessage(out, kTable, EncodeKernelSet(set));
  _exit(0);
}

}  // namespace

bool LoadPlugin(const std::string& path, KernelCatalog* catalog, Error* err) {
  if (access(path.c_str(), R_OK) != 0)
    return Fail(err, ErrorKind::kUsage, path + ": " + std::strerror(errno));
  std::string file = FileToOpen(path);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    return Fail(err, ErrorKind::kEnvironment, std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);  // a child that calls exit() must not print rprof's buffers again
  ChildLaunch launch = PrepareChildLaunch();
  pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return Fail(err, ErrorKind::kEnvironment, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(pipe_fds[0]);
    SetUpChild(launch);
    Probe(file, pipe_fds[1]);
  }
  TrackChild(pid, launch);
  close(pipe_fds[1]);
  char kind = 0;
  std::string payload;
  ReadOutcome read =
      ReadMessage(pipe_fds[0], kProbeSeconds, kMaxTableBytes, nullptr, &kind, &payload);
  close(pipe_fds[0]);
  if (read != ReadOutcome::kMessage) kill(pid, SIGKILL);
  // A child that closed the pipe but lingers is stopped after a few seconds.
  ChildEnd end = WaitChild(pid, 5);
  const std::string advice =
      "; the plugin's constructors or its rprof_kernels() are at fault: run it under gdb or "
      "valgrind, or check it with `nm -D " +
      path + "`";
  switch (read) {
    case ReadOutcome::kMessage:
      break;
    case ReadOutcome::kTimedOut:
      return Fail(err, ErrorKind::kEnvironment,
                  path + ": loading it did not finish within " +
                      std::to_string(static_cast<int>(kProbeSeconds)) + " s, stopped" + advice);
    case ReadOutcome::kTooLarge:
      return Fail(err, ErrorKind::kEnvironment,
                  path + ": its kernel table is over " + std::to_string(kMaxTableBytes >> 20) +
                      " MiB (a kernel count past its table?)" + advice);
    default:
      return Fail(err, ErrorKind::kEnvironment,
                  path + ": " + WaitStatusText(end.wait_status) +
                      " while being loaded (no kernel table came back)" + advice);
  }
  switch (kind) {
    case kCannotLoad:
      return Fail(err, ErrorKind::kEnvironment, path + ": cannot load: " + payload);
    case kNoSymbol:
      return Fail(err, ErrorKind::kUsage,
                  path + ": not an rprof kernel plugin: it exports no `" RPROF_KERNELS_SYMBOL
                         "` function; see the plugin template in README");
    case kNoSet:
      return Fail(err, ErrorKind::kEnvironment, path + ": rprof_kernels() returned no kernel set");
    case kTable:
      break;
    default:
      return Fail(err, ErrorKind::kEnvironment, path + ": the probe answered garbage" + advice);
  }
  std::unique_ptr<PluginDescriptor> descriptor;
  if (!DecodeKernelSet(payload, path, &descriptor, err)) return false;
  const rprof_kernel_set* set = &descriptor->set();
  Descriptors().push_back(std::move(descriptor));
  return catalog->AddSet(set, path, err);
}

const rprof_kernel* LoadPluginKernelHere(const std::string& path, uint32_t index,
                                         const std::string& name, Error* err) {
  void* handle = dlopen(FileToOpen(path).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* reason = dlerror();
    Fail(err, ErrorKind::kEnvironment,
         path + ": cannot load: " + (reason ? reason : "unknown reason"));
    return nullptr;
  }
  auto entry = reinterpret_cast<rprof_kernels_fn>(dlsym(handle, RPROF_KERNELS_SYMBOL));
  const rprof_kernel_set* set = entry ? entry() : nullptr;
  if (!set || set->abi_version != RPROF_KERNEL_ABI_VERSION || !set->kernels ||
      index >= set->kernel_count || !set->kernels[index].name || name != set->kernels[index].name) {
    Fail(err, ErrorKind::kEnvironment,
         path + ": its kernel table changed since it was listed (kernel " + name +
             " is no longer number " + std::to_string(index + 1) + ")");
    return nullptr;
  }
  return &set->kernels[index];
}

}  // namespace rprof
