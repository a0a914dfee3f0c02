// Is anything else running? The load average before a measurement and the CPU time other
// processes used during it: a busy machine halves ceilings silently.
#ifndef RPROF_MACHINE_SYSTEM_LOAD_H_
#define RPROF_MACHINE_SYSTEM_LOAD_H_

namespace rprof {

// 1-minute load average from /proc/loadavg; -1 when unreadable.
double ReadLoadAverage();

// CPU time counters at one moment.
struct CpuActivity {
  double busy_seconds = 0;   // all CPUs, /proc/stat: user+nice+system+irq+softirq
  double steal_seconds = 0;  // all CPUs: time the hypervisor gave to other guests
  double own_seconds = 0;    // this process, user + system (getrusage)
  double wall_seconds = 0;   // CLOCK_MONOTONIC
  bool valid = false;        // /proc/stat was readable
};

CpuActivity ReadCpuActivity();

// Between two snapshots: CPU-seconds other processes used (busy minus our own), and stolen.
struct CompetingLoad {
  double other_cpu_seconds = 0;
  double steal_seconds = 0;
  double wall_seconds = 0;
  // other_cpu_seconds / wall_seconds: 1.0 = one CPU fully used by someone else.
  double other_cpus = 0;
  bool valid = false;
};

CompetingLoad Competition(const CpuActivity& before, const CpuActivity& after);

}  // namespace rprof

#endif  // RPROF_MACHINE_SYSTEM_LOAD_H_
