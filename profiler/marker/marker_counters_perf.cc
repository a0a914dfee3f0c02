// The perf_event backend, for the PAPI backend to fall back on where PAPI's CPU component is off
// (PAPI 7.0 turns it off when libpfm4 does not know the CPU: Debian 12's libpfm4 on AMD Zen 5),
// and with it the software events the kernel counts everywhere. Events are encoded by libpfm4
// (perf::TASK-CLOCK, perf::INSTRUCTIONS, native names it knows) and opened as one group per
// thread, read with one read() system call (PERF_FORMAT_GROUP), as PAPI's own component does.
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "marker/marker_counters.h"

namespace rprof::marker {

namespace {

long OpenEvent(perf_event_attr attr, int group_fd) {
  attr.size = sizeof attr;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.disabled = 0;  // counting from creation on: regions read totals, never start or stop
  attr.read_format = PERF_FORMAT_GROUP;
  return syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

// One thread's group: the first fd leads, a read of it returns every member's count.
class PerfThreadCounters : public ThreadCounters {
 public:
  explicit PerfThreadCounters(std::vector<int> fds) : fds_(std::move(fds)) {}

  ~PerfThreadCounters() override {
    if (abandoned_) return;
    for (int fd : fds_) close(fd);
  }

  bool Read(long long* values) override {
    uint64_t buffer[1 + kMaxEvents];  // the member count, then each member's count
    ssize_t want = static_cast<ssize_t>((1 + fds_.size()) * sizeof(uint64_t));
    if (read(fds_[0], buffer, sizeof buffer) != want || buffer[0] != fds_.size()) return false;
    for (size_t i = 0; i < fds_.size(); ++i) values[i] = static_cast<long long>(buffer[1 + i]);
    return true;
  }

  void Abandon() override { abandoned_ = true; }

 private:
  std::vector<int> fds_;
  bool abandoned_ = false;
};

class PerfEventBackend : public CounterBackend {
 public:
  explicit PerfEventBackend(std::string papi_off) : papi_off_(std::move(papi_off)) {}

  std::vector<EventStatus> Open(const std::vector<std::string>& names) override {
    std::vector<EventStatus> out;
    for (const std::string& name : names) out.push_back({name, false, ""});
    int code = pfm_initialize();
    std::vector<int> probe;
    for (EventStatus& status : out) {
      if (attrs_.size() == kMaxEvents) {
        status.reason = "more than " + std::to_string(kMaxEvents) + " events asked for";
        continue;
      }
      if (status.name.rfind("PAPI_", 0) == 0) {
        status.reason = "a PAPI preset, and PAPI cannot count here (" + papi_off_ + ")";
        continue;
      }
      perf_event_attr attr;
      std::memset(&attr, 0, sizeof attr);
      if (code == PFM_SUCCESS) {
        pfm_perf_encode_arg_t arg;
        std::memset(&arg, 0, sizeof arg);
        arg.attr = &attr;
        arg.size = sizeof arg;
        code =
            pfm_get_os_event_encoding(status.name.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
      }
      if (code != PFM_SUCCESS) {
        status.reason = std::string("libpfm4: ") + pfm_strerror(code);
        code = PFM_SUCCESS;
        continue;
      }
      // Opened in this thread beside the ones before it: the group must open whole.
      long fd = OpenEvent(attr, probe.empty() ? -1 : probe.front());
      if (fd < 0) {
        status.reason = std::string("perf_event_open: ") + std::strerror(errno) +
                        (attr.type == PERF_TYPE_SOFTWARE ? "" : " (no hardware PMU for it here?)");
        continue;
      }
      probe.push_back(static_cast<int>(fd));
      attrs_.push_back(attr);
      status.ok = true;
    }
    for (int fd : probe) close(fd);
    return out;
  }

  std::unique_ptr<ThreadCounters> StartThread(Error* err) override {
    std::vector<int> fds;
    for (const perf_event_attr& attr : attrs_) {
      long fd = OpenEvent(attr, fds.empty() ? -1 : fds.front());
      if (fd < 0) {
        Fail(err, ErrorKind::kEnvironment,
             std::string("perf_event_open in this thread: ") + std::strerror(errno));
        for (int open_fd : fds) close(open_fd);
        return nullptr;
      }
      fds.push_back(static_cast<int>(fd));
    }
    if (fds.empty()) {
      Fail(err, ErrorKind::kEnvironment, "no event to count");
      return nullptr;
    }
    return std::make_unique<PerfThreadCounters>(std::move(fds));
  }

 private:
  std::string papi_off_;
  std::vector<perf_event_attr> attrs_;  // the ok events, in order
};

}  // namespace

std::unique_ptr<CounterBackend> CreatePerfEventBackend(const std::string& papi_off) {
  return std::make_unique<PerfEventBackend>(papi_off);
}

}  // namespace rprof::marker
