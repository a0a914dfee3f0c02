/* fake_pmu_check LIBRARY [PAPI_PROGRAM]: proves librprof-fake-pmu.so works on this machine.
 *
 * The driver (this program with those arguments) never loads the library itself: it re-runs
 * itself as `fake_pmu_check --case NAME` (or runs PAPI_PROGRAM, tests/fake_pmu/fake_pmu_papi.c)
 * with LD_PRELOAD, RPROF_FAKE_PMU and RPROF_FAKE_PMU_LOG in that child's environment only, and
 * checks the child's exit status, its output and the log. A case prints `expect-log: TEXT` for
 * each line fragment the log must hold, and `expect-log-lines: N` where it knows the count.
 *
 * Exit status: 0 every case passed, 1 one failed, 77 (skip) where this machine forbids even
 * software perf events (the fake has nothing to stand on), with the reason on stdout. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kSkip = 77 };

static int failures;

static void Check(int ok, const char* format, ...) {
  va_list args;
  va_start(args, format);
  printf("  %s: ", ok ? "ok" : "FAIL");
  vprintf(format, args);
  putchar('\n');
  va_end(args);
  if (!ok) ++failures;
}

/* ---- What a case does: open, count, read, through glibc's syscall() as PAPI and rprof do. ---- */

static const char* ErrnoName(int error) {
  switch (error) {
    case 0:
      return "no error";
    case ENOENT:
      return "ENOENT";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
    case ENODEV:
      return "ENODEV";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case EINVAL:
      return "EINVAL";
    case EBUSY:
      return "EBUSY";
    default:
      return strerror(error);
  }
}

/* A disabled event counting user time only (allowed at perf_event_paranoid 2), read with the
 * times a multiplexed count is scaled by. */
static struct perf_event_attr Attr(uint32_t type, uint64_t config) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return attr;
}

/* Returns the fd, or -1 with *error set (0 on success). */
static int OpenAttr(struct perf_event_attr* attr, pid_t pid, int group_fd, int* error) {
  long fd = syscall(SYS_perf_event_open, attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
  *error = fd < 0 ? errno : 0;
  return (int)fd;
}

static int Open(uint32_t type, uint64_t config, pid_t pid, int* error) {
  struct perf_event_attr attr = Attr(type, config);
  return OpenAttr(&attr, pid, -1, error);
}

static double ThreadCpuSeconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Integer work for `seconds` of this thread's CPU time. */
static void Spin(double seconds) {
  volatile unsigned long x = 0;
  const double end = ThreadCpuSeconds() + seconds;
  while (ThreadCpuSeconds() < end)
    for (int i = 0; i < 10000; ++i) x = x * 6364136223846793005ul + 1;
}

struct Reading {
  uint64_t value, enabled, running;
};

/* Reads an fd opened with Attr's read_format; returns 0 on a short read. */
static int ReadCount(int fd, struct Reading* reading) {
  return read(fd, reading, sizeof *reading) == (ssize_t)sizeof *reading;
}

/* A forked child that spins until it is killed: a process to attach to. */
static pid_t ForkSpinner(void) {
  pid_t pid = fork();
  if (pid == 0) {
    for (;;) Spin(1.0);
  }
  return pid;
}

static void KillChild(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* The log line of an open that gave `fd` (none for a failed open: its Check has failed). */
static void ExpectLog(int fd, uint32_t type, uint64_t config, pid_t target, const char* kind) {
  if (fd < 0) return;
  printf("expect-log: pid=%d type=%u config=0x%llx target=%d cpu=-1 group=-1 -> %d %s\n",
         (int)getpid(), type, (unsigned long long)config, (int)target, fd, kind);
}

static void ExpectRefusedLog(uint32_t type, uint64_t config, pid_t target, const char* errno_name) {
  printf("expect-log: pid=%d type=%u config=0x%llx target=%d cpu=-1 group=-1 -> -%s refused\n",
         (int)getpid(), type, (unsigned long long)config, (int)target, errno_name);
}

/* Opens, enables for `seconds` of this thread's work, reads; checks a count above zero. */
static void CheckCounts(const char* what, uint32_t type, uint64_t config) {
  int error;
  int fd = Open(type, config, 0, &error);
  Check(fd >= 0, "%s opens (%s)", what, ErrnoName(error));
  if (fd < 0) return;
  ExpectLog(fd, type, config, 0, "rewritten");
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  Spin(0.02);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  struct Reading r = {0, 0, 0};
  const int read_ok = ReadCount(fd, &r);
  Check(read_ok && r.value > 0 && r.enabled > 0 && r.running > 0,
        "%s counts: value %llu, enabled %llu ns, running %llu ns", what,
        (unsigned long long)r.value, (unsigned long long)r.enabled, (unsigned long long)r.running);
  close(fd);
}

static void CheckRefused(const char* what, uint32_t type, uint64_t config, pid_t pid, int expected,
                         const char* expected_name) {
  int error;
  int fd = Open(type, config, pid, &error);
  Check(fd < 0 && error == expected, "%s refused with %s (got %s)", what, expected_name,
        fd < 0 ? ErrnoName(error) : "an fd");
  if (fd >= 0)
    close(fd);
  else if (error == expected)
    ExpectRefusedLog(type, config, pid, expected_name);
}

static void CheckOpens(const char* what, uint32_t type, uint64_t config, pid_t pid) {
  int error;
  int fd = Open(type, config, pid, &error);
  Check(fd >= 0, "%s opens (%s)", what, ErrnoName(error));
  if (fd >= 0) close(fd);
}

#define HW_CACHE_L1D_READ_MISS                                    \
  (PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) | \
   (PERF_COUNT_HW_CACHE_RESULT_MISS << 16))
/* A type no kernel has handed out here: a dynamic PMU the machine lacks. */
enum { kDynamicType = 4242, kRawConfig = 0xc0 };

/* No rules: every PMU event opens as the task clock and counts; software events pass; other
 * syscalls are forwarded; the marker symbol is there. */
static void CaseCounts(void) {
  const int* active = dlsym(RTLD_DEFAULT, "rprof_fake_pmu_active");
  Check(active != NULL && *active == 1, "rprof_fake_pmu_active is exported and 1");
  Check(syscall(SYS_getpid) == getpid(), "syscall(SYS_getpid) is forwarded");
  errno = 0;
  Check(syscall(SYS_close, -1) == -1 && errno == EBADF, "a failing syscall keeps its errno");

  CheckCounts("PERF_TYPE_HARDWARE instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  CheckCounts("PERF_TYPE_HARDWARE cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  CheckCounts("PERF_TYPE_HW_CACHE L1D read misses", PERF_TYPE_HW_CACHE, HW_CACHE_L1D_READ_MISS);
  CheckCounts("PERF_TYPE_RAW 0xc0", PERF_TYPE_RAW, kRawConfig);
  CheckCounts("dynamic PMU type 4242", kDynamicType, 0x1234);

  int error;
  int fd = Open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, &error);
  Check(fd >= 0, "PERF_TYPE_SOFTWARE task-clock opens (%s)", ErrnoName(error));
  ExpectLog(fd, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, "passed");
  if (fd >= 0) close(fd);

  /* What belongs to a PMU is cleared: precise_ip, config1/2, a sampled branch stack. */
  struct perf_event_attr attr = Attr(PERF_TYPE_RAW, kRawConfig);
  attr.precise_ip = 2;
  attr.config1 = 0x1;
  attr.config2 = 0x2;
  attr.exclude_guest = 1;
  attr.sample_period = 100000;
  attr.sample_type =
      PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_AUX;
  attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
  attr.sample_regs_user = 0xff;
  attr.aux_sample_size = 4096;
  attr.aux_output = 1;
  fd = OpenAttr(&attr, 0, -1, &error);
  Check(fd >= 0,
        "a sampling raw event with precise_ip, config1/2, exclude_guest, a branch "
        "stack, user registers and AUX fields opens (%s)",
        ErrnoName(error));
  if (fd >= 0) close(fd);
  attr = Attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  attr.exclude_host = 1;
  fd = OpenAttr(&attr, 0, -1, &error);
  Check(fd >= 0, "exclude_host passes the rewrite (%s)", ErrnoName(error));
  if (fd >= 0) close(fd);

  /* A group as PAPI builds one: a hardware leader, a cache member, one read. */
  struct perf_event_attr leader_attr = Attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  leader_attr.read_format |= PERF_FORMAT_GROUP;
  int leader = OpenAttr(&leader_attr, 0, -1, &error);
  Check(leader >= 0, "a group leader opens (%s)", ErrnoName(error));
  if (leader >= 0) {
    struct perf_event_attr member_attr = Attr(PERF_TYPE_HW_CACHE, HW_CACHE_L1D_READ_MISS);
    member_attr.disabled = 0;
    member_attr.read_format |= PERF_FORMAT_GROUP;
    int member = OpenAttr(&member_attr, 0, leader, &error);
    Check(member >= 0, "a group member opens (%s)", ErrnoName(error));
    if (member >= 0)
      printf("expect-log: type=3 config=0x%x target=0 cpu=-1 group=%d -> %d rewritten\n",
             (unsigned)HW_CACHE_L1D_READ_MISS, leader, member);
    ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    Spin(0.02);
    ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    uint64_t group[5] = {0, 0, 0, 0, 0}; /* nr, enabled, running, value, value */
    const int read_ok = read(leader, group, sizeof group) == (ssize_t)sizeof group;
    Check(read_ok && group[0] == 2 && group[3] > 0 && group[4] > 0,
          "the group reads as one: nr %llu, values %llu and %llu", (unsigned long long)group[0],
          (unsigned long long)group[3], (unsigned long long)group[4]);
    if (member >= 0) close(member);
    close(leader);
  }

  /* Inheritance, as rprof counts a program and its children: a child's count is added to the
   * parent's event when the child exits. The parent only waits (no task clock of its own). */
  attr = Attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  attr.inherit = 1;
  fd = OpenAttr(&attr, 0, -1, &error);
  Check(fd >= 0, "an inherited hardware event opens (%s)", ErrnoName(error));
  if (fd >= 0) {
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    pid_t child = fork();
    if (child == 0) {
      Spin(0.05);
      _exit(0);
    }
    waitpid(child, NULL, 0);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    struct Reading r = {0, 0, 0};
    const int read_ok = ReadCount(fd, &r);
    Check(read_ok && r.value >= 25000000,
          "the child's 50 ms of work reach the parent's inherited event: %llu ns",
          (unsigned long long)r.value);
    close(fd);
  }

  /* Attached to another process, as PAPI_attach and rprof's kernel worker do. */
  pid_t child = ForkSpinner();
  fd = Open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, child, &error);
  Check(fd >= 0, "instructions open on a forked child (%s)", ErrnoName(error));
  ExpectLog(fd, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, child, "rewritten");
  if (fd >= 0) {
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    /* Up to 2 s for the child to be scheduled: the machine may be busy with other builds. */
    struct Reading r = {0, 0, 0};
    int read_ok = 0;
    for (int i = 0; i < 40 && r.value == 0; ++i) {
      struct timespec pause = {0, 50 * 1000 * 1000};
      nanosleep(&pause, NULL);
      read_ok = ReadCount(fd, &r);
    }
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    Check(read_ok && r.value > 0, "the child's count reads %llu", (unsigned long long)r.value);
    close(fd);
  }
  KillChild(child);
}

/* refuse=instructions:ENOENT: instructions refused, the rest of the PMU opens. */
static void CaseRefuseInstructions(void) {
  CheckRefused("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, ENOENT, "ENOENT");
  CheckOpens("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
  /* A hybrid machine's instructions: the PMU type in config's upper half. */
  CheckRefused("instructions of PMU type 8 (hybrid)", PERF_TYPE_HARDWARE,
               (8ull << PERF_PMU_TYPE_SHIFT) | PERF_COUNT_HW_INSTRUCTIONS, 0, ENOENT, "ENOENT");
}

/* refuse=attach:EACCES: any event on another process refused, the caller's own open. */
static void CaseRefuseAttach(void) {
  pid_t child = ForkSpinner();
  CheckRefused("task-clock on a forked child", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, child,
               EACCES, "EACCES");
  CheckRefused("instructions on a forked child", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
               child, EACCES, "EACCES");
  KillChild(child);
  CheckOpens("task-clock on pid 0", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
  CheckOpens("task-clock on getpid()", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, getpid());
  CheckOpens("instructions on getpid()", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, getpid());
}

/* refuse=counters:ENOENT: the machine without a PMU; software still opens. */
static void CaseRefuseCounters(void) {
  CheckRefused("hardware instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, ENOENT,
               "ENOENT");
  CheckRefused("hw_cache", PERF_TYPE_HW_CACHE, HW_CACHE_L1D_READ_MISS, 0, ENOENT, "ENOENT");
  CheckRefused("raw", PERF_TYPE_RAW, kRawConfig, 0, ENOENT, "ENOENT");
  CheckRefused("dynamic type", kDynamicType, 0, 0, ENOENT, "ENOENT");
  CheckOpens("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
}

/* refuse=instructions:EPERM,refuse=hardware:ENODEV,refuse=raw:EOPNOTSUPP: the first match wins. */
static void CaseFirstMatch(void) {
  CheckRefused("instructions (first rule)", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0,
               EPERM, "EPERM");
  CheckRefused("cycles (second rule)", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, ENODEV,
               "ENODEV");
  CheckRefused("raw (third rule)", PERF_TYPE_RAW, kRawConfig, 0, EOPNOTSUPP, "EOPNOTSUPP");
  CheckOpens("hw_cache (no rule)", PERF_TYPE_HW_CACHE, HW_CACHE_L1D_READ_MISS, 0);
}

/* refuse=all:EBUSY: software too. */
static void CaseRefuseAll(void) {
  CheckRefused("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, EBUSY, "EBUSY");
  CheckRefused("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, EBUSY, "EBUSY");
}

/* One open: under a bad rule it must not return. */
static void CaseOpenOnce(void) {
  CheckOpens("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
}

/* Nothing opened: a bad rule is harmless until the first open. */
static void CaseNoOpen(void) { Check(1, "no perf_event_open call"); }

enum { kThreads = 4, kOpensPerThread = 50 };

static void* OpenMany(void* unused) {
  (void)unused;
  for (int i = 0; i < kOpensPerThread; ++i) {
    int error;
    int fd = Open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, &error);
    if (fd >= 0) close(fd);
  }
  return NULL;
}

/* Threads of two processes logging at once: every line whole (the driver checks the form). */
static void CaseConcurrentLog(void) {
  pid_t child = fork();
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, OpenMany, NULL);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  Check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the forked process opened too");
  printf("expect-log-lines: %d\n", 2 * kThreads * kOpensPerThread);
}

static const struct {
  const char* name;
  void (*run)(void);
} kCaseFunctions[] = {
    {"counts", CaseCounts},
    {"refuse_instructions", CaseRefuseInstructions},
    {"refuse_attach", CaseRefuseAttach},
    {"refuse_counters", CaseRefuseCounters},
    {"first_match", CaseFirstMatch},
    {"refuse_all", CaseRefuseAll},
    {"open_once", CaseOpenOnce},
    {"no_open", CaseNoOpen},
    {"concurrent_log", CaseConcurrentLog},
};

static int RunCase(const char* name) {
  setvbuf(stdout, NULL, _IONBF, 0); /* forked children must not repeat buffered lines */
  for (size_t i = 0; i < sizeof kCaseFunctions / sizeof kCaseFunctions[0]; ++i) {
    if (strcmp(kCaseFunctions[i].name, name) == 0) {
      kCaseFunctions[i].run();
      return failures == 0 ? 0 : 1;
    }
  }
  fprintf(stderr, "fake_pmu_check: no case '%s'\n", name);
  return 2;
}

/* ---- The driver: each case in a child under the preload, then its output and log checked. ---- */

struct CaseSpec {
  const char* name;
  const char* title;
  int preload;
  const char* rules;        /* RPROF_FAKE_PMU, or NULL for unset */
  int papi;                 /* run PAPI_PROGRAM with `program_arg` instead of a case */
  const char* program_arg;  /* the case name, or PAPI's event */
  int expected_status;      /* -1: any (informational) */
  const char* expected_out; /* a fragment of stdout, or NULL */
  const char* expected_err; /* a fragment of stderr, or NULL */
};

static const struct CaseSpec kCases[] = {
    {"counts", "no rules: PMU events open as the task clock and count", 1, NULL, 0, "counts", 0,
     NULL, NULL},
    {"refuse_instructions", "refuse=instructions:ENOENT", 1, "refuse=instructions:ENOENT", 0,
     "refuse_instructions", 0, NULL, NULL},
    {"refuse_attach", "refuse=attach:EACCES", 1, "refuse=attach:EACCES", 0, "refuse_attach", 0,
     NULL, NULL},
    {"refuse_counters", "refuse=counters:ENOENT", 1, "refuse=counters:ENOENT", 0, "refuse_counters",
     0, NULL, NULL},
    {"first_match", "the first matching rule wins", 1,
     "refuse=instructions:EPERM,refuse=hardware:ENODEV,refuse=raw:EOPNOTSUPP", 0, "first_match", 0,
     NULL, NULL},
    {"refuse_all", "refuse=all:EBUSY", 1, "refuse=all:EBUSY", 0, "refuse_all", 0, NULL, NULL},
    {"bad_class", "a misspelt class exits 3 at the first open", 1, "refuse=instrctions:ENOENT", 0,
     "open_once", 3, NULL,
     "librprof-fake-pmu: bad RPROF_FAKE_PMU rule 'refuse=instrctions:ENOENT'\n"},
    {"bad_errno", "an errno outside the list exits 3", 1, "refuse=cycles:EAGAIN", 0, "open_once", 3,
     NULL, "librprof-fake-pmu: bad RPROF_FAKE_PMU rule 'refuse=cycles:EAGAIN'\n"},
    {"bad_second_rule", "a stray comma is a bad rule", 1, "refuse=cycles:ENOENT,", 0, "open_once",
     3, NULL, "librprof-fake-pmu: bad RPROF_FAKE_PMU rule ''\n"},
    {"bad_rule_no_open", "a bad rule in a process that opens nothing is harmless", 1, "nonsense", 0,
     "no_open", 0, NULL, NULL},
    {"concurrent_log", "threads of two processes log whole lines", 1, NULL, 0, "concurrent_log", 0,
     NULL, NULL},
    {"papi_attach", "PAPI: a hardware event attached to a forked child", 1, NULL, 1,
     "perf::INSTRUCTIONS", 0, "attach: 0 No error", NULL},
    {"papi_attach_task_clock", "PAPI: papi-attach.md's reproducer under the fake", 1, NULL, 1,
     "perf::TASK-CLOCK", 0, "attach: 0 No error", NULL},
    {"papi_no_pmu", "PAPI under refuse=counters:ENOENT fails as on the PMU-less Intel guest", 1,
     "refuse=counters:ENOENT", 1, "perf::TASK-CLOCK", 1,
     "add perf::TASK-CLOCK: No error\nattach: -7 Event does not exist\n", NULL},
    {"papi_bare", "PAPI without the preload (this machine as it is; not judged)", 0, NULL, 1,
     "perf::TASK-CLOCK", -1, NULL, NULL},
};

static char* ReadFile(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return strdup("");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)size + 1);
  size_t got = fread(text, 1, (size_t)size, f);
  text[got] = '\0';
  fclose(f);
  return text;
}

static void PrintIndented(const char* label, const char* text) {
  if (*text == '\0') return;
  printf("  [%s]\n", label);
  for (const char* line = text; *line != '\0';) {
    const char* end = strchr(line, '\n');
    int length = end != NULL ? (int)(end - line) : (int)strlen(line);
    printf("    %.*s\n", length, line);
    line += length + (end != NULL);
  }
}

static int StartsWith(const char* text, const char* prefix) {
  return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* Every line as LogOpen writes it: "pid=... -> RESULT KIND", nothing interleaved. */
static int WellFormedLogLine(const char* line, int length) {
  static const char* const kKinds[] = {" rewritten", " refused", " passed"};
  if (length < 5 || strncmp(line, "pid=", 4) != 0) return 0;
  if (memmem(line, (size_t)length, " -> ", 4) == NULL) return 0;
  if (memmem(line + 4, (size_t)length - 4, "pid=", 4) != NULL) return 0;
  for (int i = 0; i < 3; ++i) {
    int kind_length = (int)strlen(kKinds[i]);
    if (length > kind_length && memcmp(line + length - kind_length, kKinds[i], kind_length) == 0)
      return 1;
  }
  return 0;
}

/* Checks the log against the case's `expect-log` lines and the form of every line. */
static void CheckLog(const char* out, const char* log) {
  int lines = 0, bad = 0;
  for (const char* line = log; *line != '\0';) {
    const char* end = strchr(line, '\n');
    if (end == NULL) {
      ++bad;
      break;
    }
    ++lines;
    if (!WellFormedLogLine(line, (int)(end - line))) ++bad;
    line = end + 1;
  }
  Check(bad == 0, "%d log lines, all well formed", lines);
  for (const char* line = out; *line != '\0';) {
    const char* end = strchr(line, '\n');
    int length = end != NULL ? (int)(end - line) : (int)strlen(line);
    char fragment[512];
    snprintf(fragment, sizeof fragment, "%.*s", length, line);
    if (StartsWith(fragment, "expect-log: ")) {
      const char* want = fragment + strlen("expect-log: ");
      Check(strstr(log, want) != NULL, "log has '%s'", want);
    } else if (StartsWith(fragment, "expect-log-lines: ")) {
      int want = atoi(fragment + strlen("expect-log-lines: "));
      Check(lines == want, "log has %d lines (want %d)", lines, want);
    }
    line += length + (end != NULL);
  }
}

extern char** environ;

/* Runs the case in a child whose environment is ours without any fake PMU variable, plus the
 * case's. Returns the wait status. */
static int RunChild(const struct CaseSpec* spec, const char* self, const char* library,
                    const char* papi_program, const char* dir, char* out_path, char* err_path,
                    char* log_path) {
  /* A path cut short would name another file: stop instead. */
  if (snprintf(out_path, 4096, "%s/%s.out", dir, spec->name) >= 4096 ||
      snprintf(err_path, 4096, "%s/%s.err", dir, spec->name) >= 4096 ||
      snprintf(log_path, 4096, "%s/%s.log", dir, spec->name) >= 4096) {
    fprintf(stderr, "fake_pmu_check: %s: a path in it is longer than 4095 bytes\n", dir);
    exit(1);
  }
  static char preload[4200], rules[1024], log_env[4200];
  snprintf(preload, sizeof preload, "LD_PRELOAD=%s", library);
  snprintf(rules, sizeof rules, "RPROF_FAKE_PMU=%s", spec->rules != NULL ? spec->rules : "");
  snprintf(log_env, sizeof log_env, "RPROF_FAKE_PMU_LOG=%s", log_path);
  size_t count = 0;
  while (environ[count] != NULL) ++count;
  char** env = calloc(count + 4, sizeof *env);
  size_t n = 0;
  for (size_t i = 0; i < count; ++i)
    if (!StartsWith(environ[i], "LD_PRELOAD=") && !StartsWith(environ[i], "RPROF_FAKE_PMU"))
      env[n++] = environ[i];
  if (spec->preload) {
    env[n++] = preload;
    env[n++] = log_env;
  }
  if (spec->rules != NULL) env[n++] = rules;
  env[n] = NULL;

  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    if (spec->papi) {
      char* argv[] = {(char*)papi_program, (char*)spec->program_arg, NULL};
      execve(papi_program, argv, env);
    } else {
      char* argv[] = {(char*)self, (char*)"--case", (char*)spec->program_arg, NULL};
      execve(self, argv, env);
    }
    _exit(127);
  }
  free(env);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

/* Before judging the fake: can this machine open the software event it stands on, on itself
 * and on a child? Returns 0 with a reason where it cannot. */
static int SoftwareEventsWork(char* reason, size_t capacity) {
  int error;
  int fd = Open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, &error);
  if (fd < 0) {
    snprintf(reason, capacity,
             "perf_event_open of a software event (task-clock) fails here: %s "
             "(perf_event_paranoid, or a seccomp profile without perf_event_open)",
             strerror(error));
    return 0;
  }
  close(fd);
  pid_t child = ForkSpinner();
  fd = Open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, child, &error);
  KillChild(child);
  if (fd < 0) {
    snprintf(reason, capacity, "perf_event_open of task-clock on a forked child fails here: %s",
             strerror(error));
    return 0;
  }
  close(fd);
  return 1;
}

static int Drive(const char* library, const char* papi_program) {
  if (access(library, R_OK) != 0) {
    printf("FAIL: no library at %s\n", library);
    return 1;
  }
  char reason[512];
  if (!SoftwareEventsWork(reason, sizeof reason)) {
    printf("skip: %s\n", reason);
    return kSkip;
  }
  int error;
  int fd = Open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, &error);
  printf("without the preload, PERF_TYPE_HARDWARE instructions: %s (either is fine)\n",
         fd >= 0 ? "opens (a PMU is here)" : ErrnoName(error));
  if (fd >= 0) close(fd);

  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) {
    printf("FAIL: cannot read /proc/self/exe\n");
    return 1;
  }
  self[length] = '\0';
  const char* tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/fake_pmu_check.XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
  if (mkdtemp(dir) == NULL) {
    printf("FAIL: mkdtemp %s: %s\n", dir, strerror(errno));
    return 1;
  }

  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) {
    const struct CaseSpec* spec = &kCases[i];
    if (spec->papi && papi_program == NULL) {
      printf("\n== %s: not built (no libpapi)\n", spec->name);
      continue;
    }
    printf("\n== %s: %s\n", spec->name, spec->title);
    if (spec->preload)
      printf("   RPROF_FAKE_PMU=%s\n", spec->rules != NULL ? spec->rules : "(unset)");
    char out_path[4096], err_path[4096], log_path[4096];
    int status = RunChild(spec, self, library, papi_program, dir, out_path, err_path, log_path);
    char* out = ReadFile(out_path);
    char* err = ReadFile(err_path);
    char* log = ReadFile(log_path);
    PrintIndented("output", out);
    PrintIndented("stderr", err);
    if (spec->expected_status >= 0) {
      int exited = WIFEXITED(status);
      Check(exited && WEXITSTATUS(status) == spec->expected_status, "exit status %d (want %d)",
            exited ? WEXITSTATUS(status) : -WTERMSIG(status), spec->expected_status);
    }
    if (spec->expected_out != NULL)
      Check(strstr(out, spec->expected_out) != NULL, "output has '%s'", spec->expected_out);
    if (spec->expected_err != NULL)
      Check(strcmp(err, spec->expected_err) == 0, "stderr is exactly '%.*s'",
            (int)strlen(spec->expected_err) - 1, spec->expected_err);
    if (spec->preload && spec->expected_status == 0) CheckLog(out, log);
    int shown = 0;
    for (const char* line = log; *line != '\0' && shown < 6; ++shown) {
      const char* end = strchr(line, '\n');
      int line_length = end != NULL ? (int)(end - line) : (int)strlen(line);
      printf("  log: %.*s\n", line_length, line);
      line += line_length + (end != NULL);
    }
    free(out);
    free(err);
    free(log);
    unlink(out_path);
    unlink(err_path);
    unlink(log_path);
  }
  rmdir(dir);
  printf("\n%s: %d failed check%s\n", failures == 0 ? "PASS" : "FAIL", failures,
         failures == 1 ? "" : "s");
  return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--case") == 0) return RunCase(argv[2]);
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: fake_pmu_check LIBRARY [PAPI_PROGRAM]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  return Drive(argv[1], argc == 3 ? argv[2] : NULL);
}
