/* librprof-fake-pmu.so: a fake PMU for tests, loaded with LD_PRELOAD.
 *
 * Our test machines are KVM guests without a hardware PMU; users have one. This library lets the
 * suite run rprof's hardware-counter path end to end there (libpfm4 encoding, PAPI event sets,
 * PAPI_attach to a forked worker, inheritance to a program's children, reads): it defines
 * glibc's `syscall`, through which PAPI 7.0 (Debian 12's libpapi imports it) and rprof both
 * reach perf_event_open, and opens every PMU event as the software task clock.
 * What it gives is structure and flow, never values: a run under it is no measurement, which
 * rprof learns from the exported symbol rprof_fake_pmu_active.
 *
 * Environment (each read once, when the library is loaded):
 *   RPROF_FAKE_PMU      comma-separated rules, first match wins:  refuse=CLASS:ERRNO
 *                       CLASS  instructions  PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS
 *                              cycles        PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES
 *                              hardware      any PERF_TYPE_HARDWARE
 *                              cache         PERF_TYPE_HW_CACHE
 *                              raw           PERF_TYPE_RAW and every dynamic PMU type
 *                              counters      hardware + cache + raw: a machine without a PMU
 *                              attach        any event (software too) opened on another process
 *                                            (pid > 0, neither getpid() nor the caller's tid)
 *                              all           every open
 *                       ERRNO  ENOENT EOPNOTSUPP ENODEV EACCES EPERM EINVAL EBUSY
 *                       A refused open returns -1 with that errno and never reaches the kernel.
 *                       Without a rule, every type but software, tracepoint and breakpoint is
 *                       opened as the task clock: dynamic types too, kprobe/uprobe/msr among
 *                       them (telling them from a PMU would need sysfs in the open path).
 *                       A malformed value makes the first perf_event_open print one line to
 *                       stderr and _exit(3), so that a test cannot pass on a typo.
 *   RPROF_FAKE_PMU_LOG  a file to which every perf_event_open call appends one line:
 *                       pid=P type=T config=0xC target=PID cpu=CPU group=FD -> RESULT KIND
 *                       RESULT is the fd or -ENAME; KIND is rewritten, refused or passed.
 *
 * The open path allocates nothing and uses no stdio: it runs in forked children of
 * multithreaded programs and wherever a program opens counters. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Non-zero in every process that has this library loaded: rprof looks it up with
 * dlsym(RTLD_DEFAULT, "rprof_fake_pmu_active") to mark such a run as no measurement. */
__attribute__((visibility("default"))) int rprof_fake_pmu_active = 1;

typedef long (*SyscallFn)(long, ...);

enum EventClass {
  kClassInstructions,
  kClassCycles,
  kClassHardware,
  kClassCache,
  kClassRaw,
  kClassCounters,
  kClassAttach,
  kClassAll,
};

static const struct {
  const char* name;
  enum EventClass event_class;
} kClasses[] = {
    {"instructions", kClassInstructions},
    {"cycles", kClassCycles},
    {"hardware", kClassHardware},
    {"cache", kClassCache},
    {"raw", kClassRaw},
    {"counters", kClassCounters},
    {"attach", kClassAttach},
    {"all", kClassAll},
};

/* The errnos a rule may name: those perf_event_open gives where a PMU or a permission is
 * missing. The log names these and a few more. */
static const struct {
  const char* name;
  int value;
  int refusable;
} kErrnos[] = {
    {"ENOENT", ENOENT, 1}, {"EOPNOTSUPP", EOPNOTSUPP, 1}, {"ENODEV", ENODEV, 1},
    {"EACCES", EACCES, 1}, {"EPERM", EPERM, 1},           {"EINVAL", EINVAL, 1},
    {"EBUSY", EBUSY, 1},   {"E2BIG", E2BIG, 0},           {"EMFILE", EMFILE, 0},
    {"ESRCH", ESRCH, 0},   {"EFAULT", EFAULT, 0},         {"ENOSPC", ENOSPC, 0},
    {"EBADF", EBADF, 0},   {"EOVERFLOW", EOVERFLOW, 0},   {"ENOMEM", ENOMEM, 0},
    {"EINTR", EINTR, 0},
};

enum { kMaxRules = 16, kMaxText = 256, kMaxAttrSize = 512 };

struct Rule {
  enum EventClass event_class;
  int error;
};

/* Written once by Init before any thread can call syscall (the constructor, or the first call if
 * another library's constructor calls first), read without locks afterwards. */
static struct {
  atomic_int state; /* 0 not yet, 1 being read, 2 ready */
  _Atomic(SyscallFn) real_syscall;
  struct Rule rules[kMaxRules];
  int rule_count;
  int bad_rule; /* RPROF_FAKE_PMU did not parse: bad_rule_text says where */
  char bad_rule_text[kMaxText];
  char log_path[4096]; /* empty: no log */
} g;

/* The next `syscall` in lookup order (glibc's). An atomic pointer rather than pthread_once:
 * the lookup is idempotent, so a race only repeats it, and a child forked while another thread
 * was inside a once-block cannot deadlock on it. Returns NULL where there is none. */
static SyscallFn RealSyscall(void) {
  SyscallFn fn = atomic_load_explicit(&g.real_syscall, memory_order_acquire);
  if (fn == NULL) {
    fn = (SyscallFn)dlsym(RTLD_NEXT, "syscall");
    atomic_store_explicit(&g.real_syscall, fn, memory_order_release);
  }
  return fn;
}

static void CopyText(char* to, size_t capacity, const char* from, size_t length) {
  if (length >= capacity) length = capacity - 1;
  memcpy(to, from, length);
  to[length] = '\0';
}

/* Parses one `refuse=CLASS:ERRNO` item of length `length`; returns 0 if it is not one. */
static int ParseRule(const char* item, size_t length, struct Rule* rule) {
  static const char kPrefix[] = "refuse=";
  const size_t prefix_length = sizeof kPrefix - 1;
  if (length <= prefix_length || memcmp(item, kPrefix, prefix_length) != 0) return 0;
  const char* class_name = item + prefix_length;
  const char* colon = memchr(class_name, ':', length - prefix_length);
  if (colon == NULL) return 0;
  const size_t class_length = (size_t)(colon - class_name);
  const char* errno_name = colon + 1;
  const size_t errno_length = (size_t)(item + length - errno_name);
  int found = 0;
  for (size_t i = 0; i < sizeof kClasses / sizeof kClasses[0]; ++i) {
    if (strlen(kClasses[i].name) == class_length &&
        memcmp(kClasses[i].name, class_name, class_length) == 0) {
      rule->event_class = kClasses[i].event_class;
      found = 1;
    }
  }
  if (!found) return 0;
  for (size_t i = 0; i < sizeof kErrnos / sizeof kErrnos[0]; ++i) {
    if (kErrnos[i].refusable && strlen(kErrnos[i].name) == errno_length &&
        memcmp(kErrnos[i].name, errno_name, errno_length) == 0) {
      rule->error = kErrnos[i].value;
      return 1;
    }
  }
  return 0;
}

/* Reads RPROF_FAKE_PMU into g.rules. An empty or unset variable is no rules; an empty item (a
 * stray comma) is a bad rule like any other typo. */
static void ParseRules(const char* text) {
  if (text == NULL || *text == '\0') return;
  const char* item = text;
  for (;;) {
    const char* comma = strchr(item, ',');
    const size_t length = comma != NULL ? (size_t)(comma - item) : strlen(item);
    struct Rule rule;
    if (g.rule_count == kMaxRules || !ParseRule(item, length, &rule)) {
      g.bad_rule = 1;
      CopyText(g.bad_rule_text, sizeof g.bad_rule_text, item, length);
      return;
    }
    g.rules[g.rule_count++] = rule;
    if (comma == NULL) return;
    item = comma + 1;
  }
}

/* Reads the environment once. The constructor calls it while the process has one thread; a
 * call that finds it under way elsewhere waits for it. Copies what it keeps, so that a later
 * setenv cannot change or free it. */
static void Init(void) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&g.state, &expected, 1)) {
    while (atomic_load(&g.state) != 2) {
    }
    return;
  }
  RealSyscall();
  ParseRules(getenv("RPROF_FAKE_PMU"));
  const char* log_path = getenv("RPROF_FAKE_PMU_LOG");
  if (log_path != NULL) CopyText(g.log_path, sizeof g.log_path, log_path, strlen(log_path));
  atomic_store(&g.state, 2);
}

__attribute__((constructor)) static void FakePmuLoad(void) { Init(); }

static int IsSoftwareType(__u32 type) {
  return type == PERF_TYPE_SOFTWARE || type == PERF_TYPE_TRACEPOINT || type == PERF_TYPE_BREAKPOINT;
}

/* A hybrid machine's PERF_TYPE_HARDWARE config carries the PMU type in its upper 32 bits. */
static int IsHardwareEvent(const struct perf_event_attr* attr, __u64 event) {
  return attr->type == PERF_TYPE_HARDWARE && (attr->config & PERF_HW_EVENT_MASK) == event;
}

static int InClass(enum EventClass event_class, const struct perf_event_attr* attr, pid_t target) {
  switch (event_class) {
    case kClassInstructions:
      return IsHardwareEvent(attr, PERF_COUNT_HW_INSTRUCTIONS);
    case kClassCycles:
      return IsHardwareEvent(attr, PERF_COUNT_HW_CPU_CYCLES);
    case kClassHardware:
      return attr->type == PERF_TYPE_HARDWARE;
    case kClassCache:
      return attr->type == PERF_TYPE_HW_CACHE;
    case kClassRaw:
      return attr->type == PERF_TYPE_RAW ||
             (attr->type >= PERF_TYPE_MAX && !IsSoftwareType(attr->type));
    case kClassCounters:
      return !IsSoftwareType(attr->type);
    /* The calling thread's own tid is itself too, not another process. */
    case kClassAttach:
      return target > 0 && target != getpid() && target != gettid();
    case kClassAll:
      return 1;
  }
  return 0;
}

/* The errno of the first rule that matches, or 0. */
static int RefusalOf(const struct perf_event_attr* attr, pid_t target) {
  for (int i = 0; i < g.rule_count; ++i)
    if (InClass(g.rules[i].event_class, attr, target)) return g.rules[i].error;
  return 0;
}

/* The attr as the software task clock, counting while the event would have counted (the same
 * task, cpu, exclude_* bits, inherit, enable_on_exec, disabled) and read the same way
 * (read_format, sampling and wakeup fields, pinned, exclusive). Cleared: what names a PMU's
 * event (config1..3, precise_ip), and what the kernel (6.18) refuses on a software event: a
 * branch stack (EOPNOTSUPP), aux_output (EOPNOTSUPP) and AUX samples (EINVAL: they need an AUX
 * leader). Without PERF_SAMPLE_BRANCH_STACK or PERF_SAMPLE_AUX a sample record is shorter than
 * the caller asked; every other sample_type bit is kept, sampled
 * registers too (the kernel samples them on any event), so that records keep their layout.
 * `size` is the caller's: fields past it are zero in the copy. */
static void RewriteToTaskClock(struct perf_event_attr* attr, size_t size) {
  attr->type = PERF_TYPE_SOFTWARE;
  attr->config = PERF_COUNT_SW_TASK_CLOCK;
  attr->config1 = 0;
  attr->config2 = 0;
  /* config3 (PERF_ATTR_SIZE_VER8, 136 bytes) is newer than some linux headers. */
  if (size >= 136) memset((unsigned char*)attr + 128, 0, 8);
  attr->precise_ip = 0;
  attr->branch_sample_type = 0;
  attr->sample_type &= ~(__u64)(PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_AUX);
  attr->aux_output = 0;
  attr->aux_sample_size = 0;
}

/* Appends "-ENAME" (or "-errno N") for `error` to `out`. */
static int FormatErrno(char* out, size_t capacity, int error) {
  for (size_t i = 0; i < sizeof kErrnos / sizeof kErrnos[0]; ++i)
    if (kErrnos[i].value == error) return snprintf(out, capacity, "-%s", kErrnos[i].name);
  return snprintf(out, capacity, "-errno %d", error);
}

/* One line per call, one write() on an O_APPEND descriptor, so that lines of processes and
 * threads never interleave. The file is opened per call: a program may have closed or reused
 * any descriptor kept open since load (rprof's children close theirs before exec). */
static void LogOpen(const struct perf_event_attr* original, pid_t target, int cpu, int group_fd,
                    long result, int error, const char* kind) {
  if (g.log_path[0] == '\0') return;
  char outcome[32];
  if (result >= 0)
    snprintf(outcome, sizeof outcome, "%ld", result);
  else
    FormatErrno(outcome, sizeof outcome, error);
  char line[256];
  int length = snprintf(line, sizeof line,
                        "pid=%d type=%u config=0x%llx target=%d cpu=%d group=%d -> %s %s\n",
                        (int)getpid(), original->type, (unsigned long long)original->config,
                        (int)target, cpu, group_fd, outcome, kind);
  if (length <= 0) return;
  if ((size_t)length >= sizeof line) length = (int)sizeof line - 1;
  int fd = open(g.log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t ignored = write(fd, line, (size_t)length);
  (void)ignored;
  close(fd);
}

static long PerfEventOpen(SyscallFn real, struct perf_event_attr* attr, pid_t target, int cpu,
                          int group_fd, unsigned long flags) {
  if (g.bad_rule) {
    char line[kMaxText + 64];
    int length = snprintf(line, sizeof line, "librprof-fake-pmu: bad RPROF_FAKE_PMU rule '%s'\n",
                          g.bad_rule_text);
    if (length > 0) {
      ssize_t ignored = write(STDERR_FILENO, line,
                              (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
      (void)ignored;
    }
    _exit(3);
  }
  /* A bad pointer is the kernel's to report (EFAULT), as the real call would. */
  if (attr == NULL) return real(SYS_perf_event_open, attr, target, cpu, group_fd, flags);

  int refusal = RefusalOf(attr, target);
  if (refusal != 0) {
    LogOpen(attr, target, cpu, group_fd, -1, refusal, "refused");
    errno = refusal;
    return -1;
  }
  if (IsSoftwareType(attr->type)) {
    long fd = real(SYS_perf_event_open, attr, target, cpu, group_fd, flags);
    int error = errno;
    LogOpen(attr, target, cpu, group_fd, fd, error, "passed");
    errno = error;
    return fd;
  }

  size_t size = attr->size != 0 ? attr->size : PERF_ATTR_SIZE_VER0;
  if (size > kMaxAttrSize) {
    /* Larger than any perf_event_attr a kernel knows: the kernel's answer to an attr whose
     * unknown tail it cannot check. */
    LogOpen(attr, target, cpu, group_fd, -1, E2BIG, "refused");
    errno = E2BIG;
    return -1;
  }
  union {
    struct perf_event_attr attr;
    unsigned char bytes[kMaxAttrSize];
  } copy;
  memset(&copy, 0, sizeof copy);
  memcpy(copy.bytes, attr, size);
  RewriteToTaskClock(&copy.attr, size);
  long fd = real(SYS_perf_event_open, &copy.attr, target, cpu, group_fd, flags);
  int error = errno;
  LogOpen(attr, target, cpu, group_fd, fd, error, "rewritten");
  errno = error;
  return fd;
}

/* glibc's syscall(), with perf_event_open answered by the fake PMU. x86-64 passes up to six
 * integer arguments in registers, so reading six longs is what glibc's own syscall does; every
 * other call is forwarded unchanged (errno as glibc sets it). */
long syscall(long number, ...) {
  va_list args;
  va_start(args, number);
  long a1 = va_arg(args, long), a2 = va_arg(args, long), a3 = va_arg(args, long);
  long a4 = va_arg(args, long), a5 = va_arg(args, long), a6 = va_arg(args, long);
  va_end(args);

  SyscallFn real = RealSyscall();
  if (real == NULL) {
    errno = ENOSYS;
    return -1;
  }
  if (number != SYS_perf_event_open) return real(number, a1, a2, a3, a4, a5, a6);
  if (atomic_load(&g.state) != 2) Init();
  return PerfEventOpen(real, (struct perf_event_attr*)a1, (pid_t)a2, (int)a3, (int)a4,
                       (unsigned long)a5);
}
