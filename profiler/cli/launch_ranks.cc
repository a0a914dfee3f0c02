#include "cli/launch_ranks.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "core/text.h"
#include "process/child_process.h"
#include "process/interruption.h"
#include "store/job_database.h"
#include "store/network_filesystem.h"
#include "store/run_store.h"
#include "targets/rank_identity.h"

extern char** environ;

namespace rprof {

namespace {

// The launcher's options that take their value as the next word (or words: Open MPI's
// `--mca KEY VALUE`). Options written `--name=value` need no entry, nor flags.
struct ValueOption {
  const char* name;
  int values;
};
constexpr ValueOption kOpenMpiOptions[] = {
    {"-n", 1},
    {"--n", 1},
    {"-np", 1},
    {"--np", 1},
    {"-c", 1},
    {"-H", 1},
    {"-host", 1},
    {"--host", 1},
    {"-hostfile", 1},
    {"--hostfile", 1},
    {"-machinefile", 1},
    {"--machinefile", 1},
    {"--default-hostfile", 1},
    {"-map-by", 1},
    {"--map-by", 1},
    {"-rank-by", 1},
    {"--rank-by", 1},
    {"-bind-to", 1},
    {"--bind-to", 1},
    {"-x", 1},
    {"-mca", 2},
    {"--mca", 2},
    {"-gmca", 2},
    {"--gmca", 2},
    {"-wdir", 1},
    {"--wdir", 1},
    {"-wd", 1},
    {"--prefix", 1},
    {"-npernode", 1},
    {"--npernode", 1},
    {"-N", 1},
    {"-npersocket", 1},
    {"--npersocket", 1},
    {"--cpus-per-proc", 1},
    {"--cpus-per-rank", 1},
    {"-output-filename", 1},
    {"--output-filename", 1},
    {"--timeout", 1},
    {"--stdin", 1},
    {"-am", 1},
    {"--am", 1},
    {"--tune", 1},
    {"--path", 1},
    {"--preload-files", 1},
    {"-ppn", 1},
    {"-f", 1},
    {"-hosts", 1},
    {"-genv", 2},
    {"-env", 2},
    {"-genvlist", 1},
    {"-envlist", 1},
    {"-configfile", 1},
    {"-iface", 1},
    {"-launcher", 1},
    {"-rmk", 1},
};
constexpr ValueOption kSrunOptions[] = {
    {"-n", 1},
    {"-N", 1},
    {"-c", 1},
    {"-p", 1},
    {"-t", 1},
    {"-J", 1},
    {"-w", 1},
    {"-x", 1},
    {"-A", 1},
    {"-q", 1},
    {"-m", 1},
    {"-o", 1},
    {"-e", 1},
    {"-i", 1},
    {"-D", 1},
    {"-G", 1},
    {"-C", 1},
    {"-d", 1},
    {"-L", 1},
    {"-r", 1},
    {"-T", 1},
    {"--ntasks", 1},
    {"--nodes", 1},
    {"--cpus-per-task", 1},
    {"--partition", 1},
    {"--time", 1},
    {"--job-name", 1},
    {"--nodelist", 1},
    {"--exclude", 1},
    {"--account", 1},
    {"--qos", 1},
    {"--mpi", 1},
    {"--cpu-bind", 1},
    {"--distribution", 1},
    {"--mem", 1},
    {"--mem-per-cpu", 1},
    {"--gres", 1},
    {"--export", 1},
    {"--ntasks-per-node", 1},
    {"--chdir", 1},
    {"--constraint", 1},
    {"--output", 1},
    {"--error", 1},
    {"--input", 1},
};

bool IsSrun(const std::string& launcher) { return BaseName(launcher) == "srun"; }

// Open MPI's launcher forwards only the variables named with -x to other nodes' ranks.
bool IsOpenMpi(const std::string& launcher_path) {
  char resolved[PATH_MAX];
  std::string real = realpath(launcher_path.c_str(), resolved) ? resolved : launcher_path;
  std::string base(BaseName(real));
  return base == "orterun" || base == "prterun" || base == "prun";
}

int ValuesOf(const std::string& launcher, const std::string& word) {
  if (word.find('=') != std::string::npos) return 0;
  auto find = [&](const auto& table) {
    for (const ValueOption& o : table)
      if (word == o.name) return o.values;
    return 0;
  };
  return IsSrun(launcher) ? find(kSrunOptions) : find(kOpenMpiOptions);
}

std::string SelfPath() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "rprof";
  self[n] = '\0';
  return self;
}

std::string Absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return path;
  return std::string(cwd) + "/" + path;
}

}  // namespace

bool IsRankLauncher(const std::string& program) {
  static const char* const kLaunchers[] = {"mpirun",  "mpiexec",       "orterun",
                                           "prterun", "mpiexec.hydra", "srun"};
  std::string base(BaseName(program));
  return std::any_of(std::begin(kLaunchers), std::end(kLaunchers),
                     [&](const char* name) { return base == name; });
}

bool SplitLauncherWords(const std::string& launcher, const std::vector<std::string>& args,
                        LauncherWords* out, Error* err) {
  *out = LauncherWords();
  size_t i = 0;
  while (i < args.size()) {
    const std::string& word = args[i];
    if (word == "--") {
      ++i;
      break;
    }
    if (word.size() < 2 || word[0] != '-') break;
    int values = ValuesOf(launcher, word);
    for (int k = 0; k <= values && i < args.size(); ++k) out->launcher_args.push_back(args[i++]);
  }
  out->program.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (out->program.empty())
    return Fail(err, ErrorKind::kUsage,
                std::string(BaseName(launcher)) +
                    ": no program after the launcher's options; name the program its ranks "
                    "run: rprof " +
                    std::string(BaseName(launcher)) + " -n 4 ./app");
  return true;
}

bool LaunchRanks(CommandContext& context, const std::string& launcher_path,
                 const std::string& launcher_typed, const std::vector<std::string>& launcher_args,
                 const std::vector<std::string>& run_options, const JobConsole& console,
                 Error* err) {
  LauncherWords words;
  if (!SplitLauncherWords(launcher_typed, launcher_args, &words, err)) return false;
  if (IsRankLauncher(words.program.front()))
    return Fail(err, ErrorKind::kUsage,
                words.program.front() + " inside " + std::string(BaseName(launcher_typed)) +
                    ": name the program the ranks run, once");
  // The job id every rank stores, made here: Hydra gives its ranks none, and a rank that reads
  // it from the environment needs no launcher's.
  const std::string job_id = NewJobId();
  setenv(kJobIdVariable, job_id.c_str(), 1);
  // The job's table is printed here when the launcher ends: no rank prints it.
  setenv(kJobConsoleVariable, "launcher", 1);

  std::vector<std::string> argv = {launcher_typed};
  argv.insert(argv.end(), words.launcher_args.begin(), words.launcher_args.end());
  if (IsOpenMpi(launcher_path)) {
    argv.insert(argv.end(), {"-x", kJobIdVariable, "-x", kJobConsoleVariable});
    // When a rank fails, Open MPI stops the others with SIGTERM and kills them a second later
    // (odls_base_sigkill_timeout): too soon for a rank's rprof to store its interrupted run.
    bool given = std::find(words.launcher_args.begin(), words.launcher_args.end(),
                           "odls_base_sigkill_timeout") != words.launcher_args.end();
    if (!given) argv.insert(argv.end(), {"--mca", "odls_base_sigkill_timeout", "10"});
  }
  argv.push_back(SelfPath());
  // Absolute: a rank may start in another directory (mpirun --wdir, srun --chdir).
  const std::string& given = context.global().db;
  std::string db = given.empty() ? "" : Absolute(given);
  if (!db.empty()) argv.insert(argv.end(), {"--db", db});
  argv.push_back("run");
  argv.insert(argv.end(), run_options.begin(), run_options.end());
  argv.push_back("--");
  argv.insert(argv.end(), words.program.begin(), words.program.end());

  std::vector<char*> c_argv;
  for (std::string& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  std::string shown;
  for (const std::string& a : argv) shown += (shown.empty() ? "" : " ") + a;
  std::cerr << "rprof: job " << job_id << ": " << shown << "\n";

  InterruptionScope interruption;
  ChildLaunch launch = PrepareChildLaunch();
  pid_t pid = fork();
  if (pid < 0)
    return Fail(err, ErrorKind::kEnvironment,
                std::string("cannot start ") + launcher_typed + ": fork: " + std::strerror(errno));
  if (pid == 0) {
    SetUpChild(launch);
    RestoreInheritedSignals();
    execve(launcher_path.c_str(), c_argv.data(), environ);
    std::fprintf(stderr, "rprof: error: cannot run %s: %s\n", launcher_path.c_str(),
                 std::strerror(errno));
    _exit(127);
  }
  TrackChild(pid, launch);
  ChildEnd end = WaitChild(pid, 0);
  // The ranks' runs are all stored or never will be: the launcher has ended.
  const DatabasePath& shared = context.database_path();
  JobRank any_rank;
  any_rank.job_id = job_id;
  any_rank.size = 1;
  std::string job_dir =
      ChooseJobDatabase(shared, any_rank, NetworkFilesystemOf(shared.path)).job_dir;
  // The ranks' runs, read where they are stored (the launcher stores none itself); a file that
  // no rank created is not created here either.
  Error unreadable;
  RunStore* ranks = job_dir.empty() ? context.StoreView(&unreadable) : nullptr;
  if (!PrintJobTable(ranks, shared, job_id, job_dir, console, err)) return false;
  int status = end.wait_status;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  std::string how = WIFSIGNALED(status)
                        ? "was killed by signal " + std::to_string(WTERMSIG(status))
                        : "exited with status " + std::to_string(WEXITSTATUS(status));
  return Fail(err, ErrorKind::kTargetFailed,
              std::string(BaseName(launcher_typed)) + " " + how +
                  ": a rank failed or could not start; the ranks' runs that ended are stored (" +
                  "rprof job " + job_id + ")");
}

}  // namespace rprof
