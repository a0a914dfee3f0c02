#include "machine/system_load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "machine/thread_team.h"

namespace rprof {

double ReadLoadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  if (!(in >> load)) return -1;
  return load;
}

CpuActivity ReadCpuActivity() {
  CpuActivity a;
  a.wall_seconds = NowSeconds();
  std::ifstream in("/proc/stat");
  std::string line;
  if (std::getline(in, line) && line.rfind("cpu ", 0) == 0) {
    std::istringstream fields(line.substr(4));
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                       steal = 0;
    fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    if (tick <= 0) tick = 100;
    a.busy_seconds = static_cast<double>(user + nice + system + irq + softirq) / tick;
    a.steal_seconds = static_cast<double>(steal) / tick;
    a.valid = true;
  }
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    a.own_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                    1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  }
  return a;
}

CompetingLoad Competition(const CpuActivity& before, const CpuActivity& after) {
  CompetingLoad c;
  c.valid = before.valid && after.valid;
  c.wall_seconds = after.wall_seconds - before.wall_seconds;
  if (!c.valid || c.wall_seconds <= 0) return c;
  double busy = after.busy_seconds - before.busy_seconds;
  double own = after.own_seconds - before.own_seconds;
  c.other_cpu_seconds = std::max(0.0, busy - own);
  c.steal_seconds = std::max(0.0, after.steal_seconds - before.steal_seconds);
  c.other_cpus = c.other_cpu_seconds / c.wall_seconds;
  return c;
}

}  // namespace rprof
