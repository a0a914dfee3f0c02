#include "process/cpu_list.h"

#include <dirent.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rprof {

namespace {

// A CPU number: decimal digits only (no sign, no spaces, no 0x), below kMaxCpus.
bool ParseCpu(const std::string& text, int* cpu, Error* why) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    Fail(why, ErrorKind::kUsage, "'" + text + "' is not a CPU number; write CPUs as 0,2-3");
    return false;
  }
  if (text.size() > 6 || std::atoi(text.c_str()) >= CpuList::kMaxCpus) {
    Fail(why, ErrorKind::kUsage,
         "CPU " + text + " is past the " + std::to_string(CpuList::kMaxCpus) +
             " CPUs rprof can pin");
    return false;
  }
  *cpu = std::atoi(text.c_str());
  return true;
}

cpu_set_t ToSet(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  return set;
}

}  // namespace

bool CpuList::Parse(const std::string& text, CpuList* out, Error* why) {
  out->cpus_.clear();
  if (text.empty()) {
    Fail(why, ErrorKind::kUsage, "no CPU named; write CPUs as 0,2-3");
    return false;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) {
      Fail(why, ErrorKind::kUsage, "an empty item in '" + text + "'; write CPUs as 0,2-3");
      return false;
    }
    size_t dash = item.find('-');
    int first = 0, last = 0;
    if (!ParseCpu(item.substr(0, dash), &first, why)) return false;
    last = first;
    if (dash != std::string::npos && !ParseCpu(item.substr(dash + 1), &last, why)) return false;
    if (last < first) {
      Fail(why, ErrorKind::kUsage,
           "the range " + item + " ends before it starts; write " + std::to_string(last) + "-" +
               std::to_string(first));
      return false;
    }
    for (int cpu = first; cpu <= last; ++cpu) out->cpus_.push_back(cpu);
  }
  std::sort(out->cpus_.begin(), out->cpus_.end());
  out->cpus_.erase(std::unique(out->cpus_.begin(), out->cpus_.end()), out->cpus_.end());
  return true;
}

CpuList CpuList::Allowed() {
  CpuList out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int cpu = 0; cpu < kMaxCpus; ++cpu)
    if (CPU_ISSET(cpu, &set)) out.cpus_.push_back(cpu);
  return out;
}

std::string CpuList::Text() const {
  std::string out;
  for (size_t i = 0; i < cpus_.size();) {
    size_t j = i;
    while (j + 1 < cpus_.size() && cpus_[j + 1] == cpus_[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus_[i]);
    if (j > i) {
      out += '-';  // appended apart: "-" + to_string trips GCC 12's -Wrestrict
      out += std::to_string(cpus_[j]);
    }
    i = j + 1;
  }
  return out;
}

bool CpuList::Usable(Error* why) const {
  CpuList allowed = Allowed();
  CpuList outside;
  for (int cpu : cpus_)
    if (!std::binary_search(allowed.cpus_.begin(), allowed.cpus_.end(), cpu))
      outside.cpus_.push_back(cpu);
  if (outside.empty()) return true;
  Fail(why, ErrorKind::kUsage,
       "this process may not use " + std::string(outside.cpus_.size() == 1 ? "CPU " : "CPUs ") +
           outside.Text() + " (it may use " + allowed.Text() +
           ": its affinity mask, within its cpuset); " + "choose among those");
  return false;
}

bool CpuList::PinThisProcess(Error* why) const {
  cpu_set_t set = ToSet(cpus_);
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) {
    // Without /proc, the calling thread at least: what it starts inherits the mask.
    if (sched_setaffinity(0, sizeof set, &set) == 0) return true;
    Fail(why, ErrorKind::kEnvironment, std::string("cannot pin: ") + std::strerror(errno));
    return false;
  }
  bool ok = true;
  while (dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
    // A thread that ended since the directory was read is no failure.
    if (sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH) {
      Fail(why, ErrorKind::kEnvironment,
           "cannot pin thread " + std::string(entry->d_name) + ": " + std::strerror(errno));
      ok = false;
      break;
    }
  }
  closedir(tasks);
  return ok;
}

}  // namespace rprof
