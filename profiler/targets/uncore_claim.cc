#include "targets/uncore_claim.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <set>

namespace rprof {

std::string SocketOfThisProcess() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::set<int> packages;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (!CPU_ISSET(cpu, &set)) continue;
      std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                       "/topology/physical_package_id");
      int package = 0;
      if (in >> package) packages.insert(package);
    }
  if (packages.empty()) return "socket 0";
  if (packages.size() == 1) return "socket " + std::to_string(*packages.begin());
  return "sockets " + std::to_string(*packages.begin()) + "-" + std::to_string(*packages.rbegin());
}

bool ClaimSocket(const std::string& dir, const JobRank& job, const std::string& socket,
                 int* holder) {
  *holder = job.rank;
  std::string name;
  for (char c : job.job_id + "-" + socket)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  std::string path = dir + "/rprof-uncore-" + name;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd >= 0) {
    std::string text = std::to_string(job.rank) + "\n";
    ssize_t written = write(fd, text.data(), text.size());
    close(fd);
    return written == static_cast<ssize_t>(text.size());
  }
  if (errno != EEXIST) return true;
  // Held: by whom. A claim being written this instant reads empty; wait for it briefly.
  for (int attempt = 0; attempt < 50; ++attempt) {
    std::ifstream in(path);
    int rank = -1;
    if (in >> rank) {
      *holder = rank;
      return rank == job.rank;
    }
    usleep(10000);
  }
  return true;
}

std::string ApplyUncoreClaim(const JobRank& job, const std::string& socket, int holder,
                             std::vector<Metric>* metrics) {
  std::string names;
  for (Metric& m : *metrics) {
    if (!m.socket_wide || !m.value) continue;
    names += (names.empty() ? "" : ", ") + m.name;
    if (holder == job.rank) continue;
    m.value.reset();
    m.note = "socket-wide: rank " + std::to_string(holder) + " of job " + job.job_id + " counts " +
             socket + " for the job, so this rank leaves it out";
  }
  if (names.empty()) return "";
  if (holder == job.rank)
    return names + ": this rank counts " + socket + "'s uncore for job " + job.job_id +
           " (one rank per socket: its other ranks there leave theirs out)";
  return names + ": left out, rank " + std::to_string(holder) + " counts " + socket +
         "'s uncore for job " + job.job_id + " (one rank per socket)";
}

}  // namespace rprof
