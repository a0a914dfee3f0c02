#include "machine/topology.h"

#include <cpuid.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/text.h"

namespace rprof {
namespace {

// The first line of a small text file, trimmed; empty when it cannot be read.
std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  return std::string(Trim(line));
}

bool ReadInt(const std::string& path, long long* value) {
  std::string text = ReadLine(path);
  if (text.empty()) return false;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str()) return false;
  *value = v;
  return true;
}

// sysfs cache sizes: "32K", "512K", "32768K", "1M".
uint64_t ParseSize(const std::string& text) {
  if (text.empty()) return 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return 0;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case 'K':
      return v << 10;
    case 'M':
      return v << 20;
    case 'G':
      return v << 30;
    default:
      return v;
  }
}

struct CpuidRegs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidRegs Cpuid(unsigned leaf, unsigned subleaf = 0) {
  CpuidRegs r;
  if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx)) r = CpuidRegs();
  return r;
}

// XCR0 through xgetbv; only valid when cpuid says OSXSAVE. Written as bytes so the file needs no
// target("xsave") attribute.
uint64_t Xgetbv0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

bool Bit(unsigned reg, int bit) { return (reg >> bit) & 1u; }

void ReadCpuid(Topology* t) {
  CpuidRegs r0 = Cpuid(0);
  unsigned max_leaf = r0.eax;
  char vendor[13] = {};
  std::memcpy(vendor + 0, &r0.ebx, 4);
  std::memcpy(vendor + 4, &r0.edx, 4);
  std::memcpy(vendor + 8, &r0.ecx, 4);
  t->vendor = vendor;

  CpuidRegs r1 = Cpuid(1);
  int base_family = (r1.eax >> 8) & 0xf;
  int base_model = (r1.eax >> 4) & 0xf;
  t->stepping = r1.eax & 0xf;
  t->family = base_family == 0xf ? base_family + ((r1.eax >> 20) & 0xff) : base_family;
  t->model = (base_family == 0x6 || base_family == 0xf) ? base_model + (((r1.eax >> 16) & 0xf) << 4)
                                                        : base_model;
  t->hypervisor = Bit(r1.ecx, 31);

  IsaFlags& f = t->isa;
  f.sse2 = Bit(r1.edx, 26);
  f.sse3 = Bit(r1.ecx, 0);
  f.ssse3 = Bit(r1.ecx, 9);
  f.sse4_1 = Bit(r1.ecx, 19);
  f.sse4_2 = Bit(r1.ecx, 20);
  bool osxsave = Bit(r1.ecx, 27);
  bool cpu_avx = Bit(r1.ecx, 28);
  bool cpu_fma = Bit(r1.ecx, 12);
  CpuidRegs r7 = max_leaf >= 7 ? Cpuid(7, 0) : CpuidRegs();
  bool cpu_avx2 = Bit(r7.ebx, 5);
  bool cpu_avx512f = Bit(r7.ebx, 16);

  // The OS must save the YMM state (XCR0 bits 1, 2) for AVX and the opmask and ZMM state
  // (bits 5, 6, 7) for AVX-512; a CPU flag alone is not enough (a kernel booted with
  // noxsave, some hypervisors).
  uint64_t xcr0 = osxsave ? Xgetbv0() : 0;
  bool os_avx = (xcr0 & 0x6) == 0x6;
  bool os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;
  f.avx = cpu_avx && os_avx;
  f.fma = cpu_fma && os_avx;
  f.avx2 = cpu_avx2 && os_avx;
  f.avx512f = cpu_avx512f && os_avx512;
  f.avx512dq = f.avx512f && Bit(r7.ebx, 17);
  f.avx512cd = f.avx512f && Bit(r7.ebx, 28);
  f.avx512bw = f.avx512f && Bit(r7.ebx, 30);
  f.avx512vl = f.avx512f && Bit(r7.ebx, 31);
  f.avx512_fp16 = f.avx512f && Bit(r7.edx, 23);
  f.cpu_avx_without_os = cpu_avx && !os_avx;
  f.cpu_avx512_without_os = cpu_avx512f && !os_avx512;

  unsigned max_ext = Cpuid(0x80000000).eax;
  if (max_ext >= 0x80000004) {
    char brand[49] = {};
    for (unsigned i = 0; i < 3; ++i) {
      CpuidRegs r = Cpuid(0x80000002 + i);
      std::memcpy(brand + 16 * i + 0, &r.eax, 4);
      std::memcpy(brand + 16 * i + 4, &r.ebx, 4);
      std::memcpy(brand + 16 * i + 8, &r.ecx, 4);
      std::memcpy(brand + 16 * i + 12, &r.edx, 4);
    }
    t->model_name = std::string(Trim(brand));
  }
  // Intel's leaf 0x16: base frequency in MHz (0 on CPUs and hypervisors that do not fill it).
  if (max_leaf >= 0x16) {
    unsigned mhz = Cpuid(0x16).eax & 0xffff;
    if (mhz > 0) {
      t->nominal_ghz = mhz / 1000.0;
      t->nominal_ghz_source = "cpuid_0x16";
    }
  }
}

// "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz" -> 2.9.
double GhzFromBrand(const std::string& brand) {
  size_t at = brand.rfind('@');
  if (at == std::string::npos) return 0;
  double v = std::strtod(brand.c_str() + at + 1, nullptr);
  if (brand.find("GHz", at) != std::string::npos) return v;
  if (brand.find("MHz", at) != std::string::npos) return v / 1000.0;
  return 0;
}

// The first processor block of a /proc/cpuinfo ("key\t: value" lines up to the first blank
// line), read when first asked for: live, most readers never need it.
class CpuinfoBlock {
 public:
  explicit CpuinfoBlock(std::string path) : path_(std::move(path)) {}

  // The value of `key` ("model name", "flags", ...), trimmed; "" when absent.
  const std::string& Get(const std::string& key) {
    if (!read_) Read();
    static const std::string kNone;
    auto it = values_.find(key);
    return it == values_.end() ? kNone : it->second;
  }

 private:
  void Read() {
    read_ = true;
    std::ifstream in(path_);
    std::string line;
    while (std::getline(in, line)) {
      if (Trim(line).empty()) {
        if (values_.empty()) continue;
        break;  // the end of the first CPU's block: the others repeat it
      }
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string_view view(line);
      values_.emplace(std::string(Trim(view.substr(0, colon))),
                      std::string(Trim(view.substr(colon + 1))));
    }
  }

  std::string path_;
  bool read_ = false;
  std::map<std::string, std::string> values_;
};

int CpuinfoInt(CpuinfoBlock& cpuinfo, const std::string& key) {
  return static_cast<int>(std::strtol(cpuinfo.Get(key).c_str(), nullptr, 10));
}

// The ISA flags, in IsaString's order: each one's name as rprof prints it, and as the `flags` line
// of /proc/cpuinfo spells it (the kernel's "pni", Prescott New Instructions, is SSE3).
struct IsaFlagName {
  bool IsaFlags::*flag;
  const char* name;
  const char* cpuinfo_name;
};

constexpr std::array<IsaFlagName, 14> kIsaFlagNames = {{
    {&IsaFlags::sse2, "sse2", "sse2"},
    {&IsaFlags::sse3, "sse3", "pni"},
    {&IsaFlags::ssse3, "ssse3", "ssse3"},
    {&IsaFlags::sse4_1, "sse4_1", "sse4_1"},
    {&IsaFlags::sse4_2, "sse4_2", "sse4_2"},
    {&IsaFlags::avx, "avx", "avx"},
    {&IsaFlags::avx2, "avx2", "avx2"},
    {&IsaFlags::fma, "fma", "fma"},
    {&IsaFlags::avx512f, "avx512f", "avx512f"},
    {&IsaFlags::avx512dq, "avx512dq", "avx512dq"},
    {&IsaFlags::avx512cd, "avx512cd", "avx512cd"},
    {&IsaFlags::avx512bw, "avx512bw", "avx512bw"},
    {&IsaFlags::avx512vl, "avx512vl", "avx512vl"},
    {&IsaFlags::avx512_fp16, "avx512_fp16", "avx512_fp16"},
}};

// Identity, hypervisor and ISA from a recorded /proc/cpuinfo, for a tree where cpuid cannot be
// run (ReadTopologyFrom says which names map to which fields). The flags line is what the
// kernel enables, so no xgetbv check is needed or possible.
void ReadCpuinfoIdentity(CpuinfoBlock& cpuinfo, Topology* t) {
  t->vendor = cpuinfo.Get("vendor_id");
  t->family = CpuinfoInt(cpuinfo, "cpu family");
  t->model = CpuinfoInt(cpuinfo, "model");
  t->stepping = CpuinfoInt(cpuinfo, "stepping");
  t->model_name = cpuinfo.Get("model name");
  std::set<std::string> flags;
  std::istringstream words(cpuinfo.Get("flags"));
  for (std::string word; words >> word;) flags.insert(word);
  auto has = [&flags](const char* name) { return flags.count(name) > 0; };
  t->hypervisor = has("hypervisor");
  for (const IsaFlagName& row : kIsaFlagNames) t->isa.*(row.flag) = has(row.cpuinfo_name);
}

void ReadNominalFrequency(const std::string& root, CpuinfoBlock& cpuinfo, Topology* t) {
  if (t->nominal_ghz > 0) return;
  double ghz = GhzFromBrand(t->model_name);
  if (ghz > 0) {
    t->nominal_ghz = ghz;
    t->nominal_ghz_source = "brand_string";
    return;
  }
  long long khz = 0;
  const std::string cpufreq = root + "/sys/devices/system/cpu/cpu0/cpufreq/";
  if (ReadInt(cpufreq + "base_frequency", &khz) && khz > 0) {
    t->nominal_ghz = khz / 1e6;
    t->nominal_ghz_source = "sysfs_base_frequency";
    return;
  }
  if (ReadInt(cpufreq + "cpuinfo_max_freq", &khz) && khz > 0) {
    t->nominal_ghz = khz / 1e6;
    t->nominal_ghz_source = "sysfs_max_freq";
    return;
  }
  // Last resort, and only a guess: the current clock the kernel last saw (in a VM, the TSC rate).
  double mhz = std::strtod(cpuinfo.Get("cpu MHz").c_str(), nullptr);
  if (mhz > 0) {
    t->nominal_ghz = mhz / 1000.0;
    t->nominal_ghz_source = "cpuinfo_mhz";
  }
}

std::vector<int> OnlineCpus(const std::string& root) {
  std::vector<int> cpus;
  for (const char* list : {"online", "present"}) {
    if (ParseCpuList(ReadLine(root + "/sys/devices/system/cpu/" + list), &cpus) && !cpus.empty())
      return cpus;
  }
  if (!root.empty()) return {};  // a recording without either list has no CPUs to read
  cpus.clear();                  // what a malformed list left
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < n; ++i) cpus.push_back(static_cast<int>(i));
  return cpus;
}

void ReadCores(const std::string& root, const std::vector<int>& online, Topology* t) {
  // A core is (package, die, core_id); its hardware threads share it.
  std::map<std::tuple<long long, long long, long long>, std::vector<int>> cores;
  std::set<long long> packages;
  for (int cpu : online) {
    std::string dir = root + "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    long long pkg = 0, die = 0, core = cpu;
    ReadInt(dir + "physical_package_id", &pkg);
    ReadInt(dir + "die_id", &die);
    if (!ReadInt(dir + "core_id", &core)) core = cpu;
    cores[{pkg, die, core}].push_back(cpu);
    packages.insert(pkg);
  }
  t->logical_cpus = static_cast<int>(online.size());
  t->physical_cores = std::max<int>(1, static_cast<int>(cores.size()));
  t->threads_per_core = std::max(1, t->logical_cpus / t->physical_cores);
  t->packages = std::max<int>(1, static_cast<int>(packages.size()));

  // Rank of each CPU among the allowed hardware threads of its core. This process's affinity
  // limits only the live machine's list: a recording's CPUs are all allowed.
  cpu_set_t mask;
  CPU_ZERO(&mask);
  bool have_mask = root.empty() && sched_getaffinity(0, sizeof(mask), &mask) == 0;
  std::vector<std::pair<int, int>> ranked;  // (rank within core, cpu)
  for (auto& [key, cpus] : cores) {
    std::sort(cpus.begin(), cpus.end());
    int rank = 0;
    for (int cpu : cpus) {
      if (have_mask && !CPU_ISSET(cpu, &mask)) continue;
      ranked.push_back({rank++, cpu});
    }
  }
  std::sort(ranked.begin(), ranked.end());
  t->cpu_order.clear();
  for (auto& [rank, cpu] : ranked) t->cpu_order.push_back(cpu);
}

void ReadCaches(const std::string& root, const std::vector<int>& online, Topology* t) {
  const std::string base = root + "/sys/devices/system/cpu/cpu0/cache/index";
  for (int index = 0; index < 16; ++index) {
    std::string dir = base + std::to_string(index) + "/";
    long long level = 0;
    if (!ReadInt(dir + "level", &level)) break;
    CacheLevel c;
    c.level = static_cast<int>(level);
    std::string type = ReadLine(dir + "type");
    std::transform(type.begin(), type.end(), type.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    c.type = type;
    c.size_bytes = ParseSize(ReadLine(dir + "size"));
    long long v = 0;
    if (ReadInt(dir + "coherency_line_size", &v)) c.line_bytes = static_cast<int>(v);
    if (ReadInt(dir + "ways_of_associativity", &v)) c.ways = static_cast<int>(v);
    c.shared_cpu_list = ReadLine(dir + "shared_cpu_list");
    std::vector<int> shared;
    if (ParseCpuList(c.shared_cpu_list, &shared))
      c.shared_cpu_count = static_cast<int>(shared.size());
    std::set<std::string> instances;
    for (int cpu : online) {
      std::string list = ReadLine(root + "/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                                  "/cache/index" + std::to_string(index) + "/shared_cpu_list");
      if (!list.empty()) instances.insert(list);
    }
    c.instances = std::max<int>(1, static_cast<int>(instances.size()));
    t->caches.push_back(c);
  }
}

uint64_t Fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

bool ParseCpuList(const std::string& text, std::vector<int>* cpus) {
  cpus->clear();
  std::string s = std::string(Trim(text));
  if (s.empty()) return false;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    part = std::string(Trim(part));
    if (part.empty()) return false;
    int a = 0, b = 0;
    char dash = 0;
    int n = std::sscanf(part.c_str(), "%d%c%d", &a, &dash, &b);
    if (n == 1) {
      b = a;
    } else if (n != 3 || dash != '-' || b < a) {
      return false;
    }
    if (a < 0) return false;
    for (int i = a; i <= b; ++i) cpus->push_back(i);
  }
  return true;
}

const Topology& ReadTopology() {
  static const Topology topology = ReadTopologyFrom("");
  return topology;
}

Topology ReadTopologyFrom(const std::string& root) {
  const bool live = root.empty();
  Topology t;
  CpuinfoBlock cpuinfo(root + "/proc/cpuinfo");
  if (live) {
    ReadCpuid(&t);
    if (t.model_name.empty()) t.model_name = cpuinfo.Get("model name");
  } else {
    ReadCpuinfoIdentity(cpuinfo, &t);
  }
  ReadNominalFrequency(root, cpuinfo, &t);
  std::vector<int> online = OnlineCpus(root);
  ReadCores(root, online, &t);
  ReadCaches(root, online, &t);
  std::vector<int> nodes;
  if (ParseCpuList(ReadLine(root + "/sys/devices/system/node/has_memory"), &nodes))
    t.memory_nodes = static_cast<int>(nodes.size());
  struct utsname u;
  if (live && uname(&u) == 0) {
    t.hostname = u.nodename;
    t.kernel_release = u.release;
  }
  return t;
}

std::vector<CacheLevel> DataCaches(const Topology& topology) {
  std::map<int, CacheLevel> by_level;
  for (const CacheLevel& c : topology.caches) {
    if (c.type == "instruction") continue;
    by_level.emplace(c.level, c);  // the first data/unified entry of each level
  }
  std::vector<CacheLevel> out;
  for (auto& [level, c] : by_level) out.push_back(c);
  return out;
}

uint64_t AggregateCacheBytes(const Topology& topology, int level, int threads) {
  for (const CacheLevel& c : DataCaches(topology)) {
    if (c.level != level) continue;
    // Threads go one per core first (cpu_order), and cores sharing an instance are numbered
    // next to each other on the machines we know, so `threads` threads reach this many.
    int tpc = std::max(1, topology.threads_per_core);
    int cores_per_instance = std::max(1, c.shared_cpu_count / tpc);
    int cores_used = std::min(threads, std::max(1, topology.physical_cores));
    int used = (cores_used + cores_per_instance - 1) / cores_per_instance;
    used = std::max(1, std::min(used, c.instances));
    return c.size_bytes * static_cast<uint64_t>(used);
  }
  return 0;
}

std::string Fingerprint(const Topology& t) {
  std::ostringstream key;
  key << t.vendor << '|' << t.model_name << '|' << t.family << '|' << t.model << '|' << t.stepping
      << '|' << t.logical_cpus << '|' << t.physical_cores << '|' << t.packages;
  for (const CacheLevel& c : t.caches) {
    key << "|L" << c.level << c.type << ':' << c.size_bytes << '/' << c.line_bytes;
  }
  key << '|' << t.hostname << '|' << t.kernel_release;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(Fnv1a(key.str())));
  return hex;
}

std::string IsaString(const IsaFlags& f) {
  std::string s;
  for (const IsaFlagName& row : kIsaFlagNames) {
    if (!(f.*(row.flag))) continue;
    if (!s.empty()) s += ' ';
    s += row.name;
  }
  return s;
}

}  // namespace rprof
