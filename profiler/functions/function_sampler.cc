#include "functions/function_sampler.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/text.h"
#include "functions/function_names.h"
#include "functions/sampled_time.h"
#include "functions/source_line.h"

namespace rprof {
namespace {

// Per CPU: 256 KiB (about 10,000 samples at 24 B each, or a program's burst of mapping records
// at start-up), read by a thread of rprof's while the program runs (Impl::Drainer) whenever a
// quarter of it is written and at least every 50 ms: long runs lose nothing, and mapping it costs
// a quarter of what a buffer for a whole run did (1 MiB held 20 s of one CPU's samples, then
// dropped every later one; `rprof run /bin/true` paid 0.3 ms per CPU to map it). What the kernel
// still drops is counted in FunctionSamples::lost, never silently.
constexpr size_t kDataPages = 64;
constexpr int kDrainEveryMs = 50;
// x86-64's kernel half of the address space: samples there are the kernel's.
constexpr uint64_t kKernelStart = 0xffff800000000000ull;

struct Mapping {
  uint32_t pid = 0;
  uint64_t start = 0, length = 0, file_offset = 0;
  std::string path;
};

struct Sample {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t ip = 0;
  uint64_t time_ns = 0;  // perf's clock: only differences between samples mean anything
};

// How many threads ran side by side, as sampling sees it: the samples cut into windows of
// `window_ns`, the threads with samples in each counted, the median over the windows that have
// any (a window where one process hands over to the next counts two, and is one of many).
// Counting every thread id of an execution took a script run through a shell wrapper (pyenv's
// python3: 35 short processes one after the other) for 36 threads side by side, and its 0.5
// CPUs utilized for 99 % off the CPU.
uint64_t ThreadsSideBySide(const std::vector<Sample>& samples, uint64_t window_ns) {
  if (samples.empty() || window_ns == 0) return 0;
  std::unordered_map<uint64_t, std::unordered_set<uint32_t>> windows;  // window -> its threads
  for (const Sample& s : samples) windows[s.time_ns / window_ns].insert(s.tid);
  std::vector<uint64_t> counts;
  counts.reserve(windows.size());
  for (const auto& [window, tids] : windows) counts.push_back(tids.size());
  std::nth_element(counts.begin(), counts.begin() + counts.size() / 2, counts.end());
  return counts[counts.size() / 2];
}

// One ELF file's loadable segments, which map a file offset (a sample's, through its mapping) to
// the link-time address FunctionNames and the line table take.
struct ElfSegments {
  struct Segment {
    uint64_t offset = 0, size = 0, vaddr = 0;
  };
  std::vector<Segment> segments;

  void Load(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
    size_t count = 0;
    if (elf != nullptr && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &count) == 0) {
      for (size_t i = 0; i < count; ++i) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, static_cast<int>(i), &ph) != nullptr && ph.p_type == PT_LOAD)
          segments.push_back({ph.p_offset, ph.p_filesz, ph.p_vaddr});
      }
    }
    if (elf != nullptr) elf_end(elf);
    close(fd);
  }

  std::optional<uint64_t> LinkAddress(uint64_t file_offset) const {
    for (const Segment& s : segments)
      if (file_offset >= s.offset && file_offset < s.offset + s.size)
        return s.vaddr + (file_offset - s.offset);
    return std::nullopt;
  }
};

long PerfEventOpen(perf_event_attr* attr, pid_t pid, int cpu) {
  return syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

}  // namespace

struct FunctionSampler::Impl {
  struct Buffer {
    int fd = -1;
    void* map = nullptr;
    size_t size = 0;
  };
  std::vector<Buffer> buffers;
  std::vector<Mapping> mappings;
  std::vector<Sample> samples;
  uint64_t lost = 0;
  // While the program runs, only the drainer touches buffers' tails, samples, mappings and lost;
  // Collect joins it before reading them.
  std::thread drainer;
  std::atomic<bool> stop{false};
  // The sampled addresses whose source lines are not looked up yet, per (module path,
  // function): only a function whose samples could make it hot (HasShareOfItsOwn) gets lines.
  // Looking one up opens its module's DWARF, and for a short program's few samples in ld.so
  // and libc that was most of rprof's own time (inflating libc's debug file: 35 % of rprof's
  // CPU samples for `rprof run /bin/true`). Kept over executions: a function rarely sampled in
  // each of several repetitions may still be hot over all of them.
  std::map<std::pair<std::string, std::string>, std::map<uint64_t, uint64_t>> unlined;
  // The functions whose lines were looked up: their later samples get theirs too, whatever
  // share a later execution gives them, so that their lines' shares stay whole.
  std::set<std::pair<std::string, std::string>> lined;

  void StartDrainer() {
    stop = false;
    // rprof's signals (SIGINT, SIGCHLD) are for its main thread: blocked here while the thread
    // starts, so that it inherits a mask that blocks them all.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    drainer = std::thread([this] { DrainWhileRunning(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

  void StopDrainer() {
    if (!drainer.joinable()) return;
    stop = true;
    drainer.join();
  }

  // Woken by the kernel when a buffer is a quarter full (wakeup_watermark), else every
  // kDrainEveryMs; a buffer whose events are gone (the program exited) is polled no more.
  void DrainWhileRunning() {
    std::vector<pollfd> fds;
    for (const Buffer& b : buffers) fds.push_back({b.fd, POLLIN, 0});
    while (!stop.load()) {
      if (poll(fds.data(), fds.size(), kDrainEveryMs) < 0 && errno != EINTR) break;
      bool open = false;
      for (size_t i = 0; i < fds.size(); ++i) {
        if (fds[i].fd < 0) continue;
        Drain(buffers[i]);
        if (fds[i].revents & (POLLHUP | POLLERR | POLLNVAL))
          fds[i].fd = -1;
        else
          open = true;
      }
      if (!open) break;
    }
  }

  void Close() {
    StopDrainer();
    for (Buffer& b : buffers) {
      if (b.map != nullptr) munmap(b.map, b.size);
      if (b.fd >= 0) close(b.fd);
    }
    buffers.clear();
  }

  // Reads every whole record the kernel wrote into `b` so far, and gives their space back.
  void Drain(const Buffer& b) {
    auto* page = static_cast<perf_event_mmap_page*>(b.map);
    const size_t page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const uint8_t* data = static_cast<const uint8_t*>(b.map) + page_size;
    const uint64_t data_size = kDataPages * page_size;
    uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = page->data_tail;
    std::vector<uint8_t> record;
    while (tail + sizeof(perf_event_header) <= head) {
      perf_event_header header;
      for (size_t i = 0; i < sizeof header; ++i)
        reinterpret_cast<uint8_t*>(&header)[i] = data[(tail + i) % data_size];
      if (header.size < sizeof header || tail + header.size > head) break;
      record.resize(header.size);
      for (size_t i = 0; i < header.size; ++i) record[i] = data[(tail + i) % data_size];
      const uint8_t* body = record.data() + sizeof header;
      size_t body_size = header.size - sizeof header;
      if (header.type == PERF_RECORD_SAMPLE && body_size >= 24) {
        // PERF_SAMPLE_IP, _TID, _TIME, in that order.
        Sample s;
        std::memcpy(&s.ip, body, 8);
        std::memcpy(&s.pid, body + 8, 4);
        std::memcpy(&s.tid, body + 12, 4);
        std::memcpy(&s.time_ns, body + 16, 8);
        samples.push_back(s);
      } else if (header.type == PERF_RECORD_MMAP2 && body_size > 64) {
        // pid, tid, addr, len, pgoff, maj, min, ino, ino_generation, prot, flags, filename
        Mapping m;
        uint32_t prot = 0;
        std::memcpy(&m.pid, body, 4);
        std::memcpy(&m.start, body + 8, 8);
        std::memcpy(&m.length, body + 16, 8);
        std::memcpy(&m.file_offset, body + 24, 8);
        std::memcpy(&prot, body + 56, 4);
        const char* name = reinterpret_cast<const char*>(body + 64);
        m.path.assign(name, strnlen(name, body_size - 64));
        if (prot & PROT_EXEC) mappings.push_back(std::move(m));
      } else if (header.type == PERF_RECORD_LOST && body_size >= 16) {
        uint64_t n = 0;
        std::memcpy(&n, body + 8, 8);
        lost += n;
      }
      tail += header.size;
    }
    __atomic_store_n(&page->data_tail, tail, __ATOMIC_RELEASE);
  }
};

FunctionSampler::FunctionSampler(double period_s) : impl_(std::make_unique<Impl>()) {
  samples_.period_s = period_s;
  elf_version(EV_CURRENT);
}

FunctionSampler::~FunctionSampler() { impl_->Close(); }

bool FunctionSampler::Attach(pid_t pid) {
  impl_->Close();
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = static_cast<uint64_t>(std::llround(samples_.period_s * 1e9));
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  attr.disabled = 1;
  attr.enable_on_exec = 1;
  attr.inherit = 1;  // every thread and child; per CPU, as the kernel allows only then
  // Kernel time too where allowed (page faults, system calls: "[kernel]"), so that shares are
  // of all the CPU time the run's time stands for; user code only where perf_event_paranoid
  // forbids it, said.
  attr.exclude_kernel = 0;
  attr.exclude_hv = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.watermark = 1;  // wake the drainer by bytes written, a quarter of the buffer
  const size_t page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  attr.wakeup_watermark = static_cast<uint32_t>(kDataPages * page_size / 4);
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  std::string why;
  for (int cpu = 0; cpu < cpus; ++cpu) {
    long fd = PerfEventOpen(&attr, pid, cpu);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel) {
      attr.exclude_kernel = 1;
      samples_.user_only = true;
      fd = PerfEventOpen(&attr, pid, cpu);
    }
    if (fd < 0) {
      if (why.empty()) why = std::string("perf_event_open(cpu-clock): ") + std::strerror(errno);
      continue;  // an offline CPU
    }
    Impl::Buffer b;
    b.fd = static_cast<int>(fd);
    b.size = (1 + kDataPages) * page_size;
    b.map = mmap(nullptr, b.size, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
    if (b.map == MAP_FAILED) {
      if (why.empty()) why = std::string("mmap of the sample buffer: ") + std::strerror(errno);
      close(b.fd);
      continue;
    }
    impl_->buffers.push_back(b);
  }
  if (impl_->buffers.empty()) {
    samples_.why_not = why.empty() ? "no CPU to sample on" : why;
    return false;
  }
  impl_->StartDrainer();
  return true;
}

void FunctionSampler::Collect() {
  impl_->StopDrainer();
  for (const Impl::Buffer& b : impl_->buffers) impl_->Drain(b);
  impl_->Close();
  samples_.lost += impl_->lost;
  impl_->lost = 0;

  std::unordered_map<std::string, std::unique_ptr<ElfSegments>> files;
  FunctionNames names;
  // The newest mapping of the sample's process that covers its address; a forked child without
  // mappings of its own shares its parent's.
  auto find_mapping = [&](const Sample& s) -> const Mapping* {
    const Mapping* any = nullptr;
    for (auto it = impl_->mappings.rbegin(); it != impl_->mappings.rend(); ++it) {
      if (s.ip < it->start || s.ip - it->start >= it->length) continue;
      if (it->pid == s.pid) return &*it;
      if (any == nullptr) any = &*it;
    }
    return any;
  };
  ++samples_.executions;
  for (const Sample& s : impl_->samples) {
    ++samples_.total;
    const Mapping* m = find_mapping(s);
    std::string name = "[unknown]";
    if (s.ip >= kKernelStart) {
      ++samples_.by_function["[kernel]"];
      continue;
    }
    if (m != nullptr && !m->path.empty() && m->path[0] == '/') {
      auto& file = files[m->path];
      if (!file) {
        file = std::make_unique<ElfSegments>();
        file->Load(m->path);
      }
      std::optional<uint64_t> link = file->LinkAddress(m->file_offset + (s.ip - m->start));
      if (link) {
        name = names.Name(m->path, *link).name;
        ++samples_.by_module_function[{std::string(BaseName(m->path)), name}];
        ++impl_->unlined[{m->path, name}][*link];
        ++samples_.by_code_address[{m->path, *link}];
      }
    } else if (m != nullptr) {
      name = m->path.empty() ? "[unknown]" : m->path;  // [vdso], anonymous (JIT) code
    }
    ++samples_.by_function[name];
  }
  AddLinesOfFunctionsThatMayBeHot();
  // Ten sampling periods a window: a thread on a CPU throughout has about ten samples in each.
  const auto window_ns = static_cast<uint64_t>(std::llround(samples_.period_s * 1e10));
  samples_.threads =
      std::max<uint64_t>(samples_.threads, ThreadsSideBySide(impl_->samples, window_ns));
  impl_->samples.clear();
  impl_->mappings.clear();
}

void FunctionSampler::AddLinesOfFunctionsThatMayBeHot() {
  // A sample's line in its function: inlined code on its caller's line (source_line.h), as
  // the sim source puts its counts.
  SourceLines lines;
  for (auto it = impl_->unlined.begin(); it != impl_->unlined.end();) {
    const auto& [path, name] = it->first;
    const uint64_t own = samples_.by_module_function[{std::string(BaseName(path)), name}];
    if (!impl_->lined.count(it->first) && !HasLineShares(own, samples_.total)) {
      samples_.line_why_not[name] = std::to_string(own) + " samples: too few for its lines' shares";
      ++it;
      continue;
    }
    samples_.line_why_not.erase(name);
    impl_->lined.insert(it->first);
    for (const auto& [link, count] : it->second) {
      if (std::optional<CodeLine> where = lines.Find(path, link)) {
        samples_.by_line[{name, std::move(where->file), where->line}] += count;
      } else {
        std::string why = lines.WhyNot(path);
        samples_.line_why_not.emplace(
            name, !why.empty() ? why : "no line-table entry in " + path + " covers its samples");
      }
    }
    it = impl_->unlined.erase(it);
  }
}

}  // namespace rprof
