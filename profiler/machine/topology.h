// What this machine is: CPU identity, cores, caches per level and the ISA extensions the CPU and
// the OS both support. Read from cpuid, xgetbv and sysfs, or from a recorded tree of another
// machine's sysfs and /proc/cpuinfo (ReadTopologyFrom); nothing here is measured.
#ifndef RPROF_MACHINE_TOPOLOGY_H_
#define RPROF_MACHINE_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <vector>

namespace rprof {

// One cache level as sysfs describes it (/sys/devices/system/cpu/cpu0/cache/indexN). Sizes are
// what the kernel reports, which in a virtual machine may be far from what a program gets (see
// hierarchy.h for the measured, effective size).
struct CacheLevel {
  int level = 0;                // 1, 2, 3, ...
  std::string type;             // "data", "instruction" or "unified"
  uint64_t size_bytes = 0;      // one instance
  int line_bytes = 0;           // coherency line size
  int ways = 0;                 // associativity; 0 when sysfs does not say
  std::string shared_cpu_list;  // CPUs sharing cpu0's instance, as sysfs writes it ("0-1")
  int shared_cpu_count = 0;     // how many logical CPUs share one instance
  int instances = 0;            // distinct instances over all online CPUs
};

// ISA extensions usable here: the CPU has them (cpuid) and, for AVX and AVX-512, the OS saves
// their register state (xgetbv). A flag that is false means "do not execute these instructions".
struct IsaFlags {
  bool sse2 = false;
  bool sse3 = false;
  bool ssse3 = false;
  bool sse4_1 = false;
  bool sse4_2 = false;
  bool avx = false;
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512dq = false;
  bool avx512cd = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512_fp16 = false;
  // What the CPU has although the OS does not enable it (cpuid without xgetbv); for messages.
  bool cpu_avx_without_os = false;
  bool cpu_avx512_without_os = false;
};

struct Topology {
  std::string vendor;      // cpuid vendor string: "GenuineIntel", "AuthenticAMD", ...
  std::string model_name;  // brand string ("AMD EPYC 7763 64-Core Processor"), trimmed
  int family = 0;          // display family (base + extended)
  int model = 0;           // display model (base + extended << 4)
  int stepping = 0;
  int logical_cpus = 0;      // online logical CPUs
  int physical_cores = 0;    // distinct (package, die, core) among online CPUs
  int threads_per_core = 0;  // logical_cpus / physical_cores
  int packages = 0;
  // NUMA nodes with memory (sysfs node/has_memory); 0 when sysfs does not say (no NUMA support).
  int memory_nodes = 0;
  // CPUs this process may run on (sched_getaffinity), ordered for pinning: the first hardware
  // thread of every core first, then the second ones, and so on. Pinning threads to a prefix of
  // this list puts them on distinct cores for as long as there are cores.
  std::vector<int> cpu_order;
  std::vector<CacheLevel> caches;  // in sysfs order (level 1 data, level 1 instruction, 2, 3)
  IsaFlags isa;
  double nominal_ghz = 0;          // 0 when no source knows it
  std::string nominal_ghz_source;  // "cpuid_0x16", "brand_string", "sysfs_base_frequency",
                                   // "sysfs_max_freq", "cpuinfo_mhz" (the current clock, a guess)
  std::string hostname;
  std::string kernel_release;
  bool hypervisor = false;  // cpuid says we run under a hypervisor
};

// Reads everything above about this machine: ReadTopologyFrom(""), once per process (the
// machine does not change under one command, and a run asked for it three times: 5-8 % of
// `rprof run /bin/true`'s own CPU time). Never fails: a part that cannot be read stays empty
// or 0 (a container without sysfs has no cache list, for instance).
const Topology& ReadTopology();

// Reads the topology from the files under `root`, a recorded tree laid out as the live system's
// (root + "/sys/devices/system/cpu/...", root + "/proc/cpuinfo"), so that the machines users bring
// can be read by this code on any machine (tests/machines/). root "" is the live machine and
// gives exactly ReadTopology(). Never fails, as ReadTopology; what the tree lacks stays empty or 0.
//
// The sysfs and procfs files are read and parsed the same way for both; only where the bytes come
// from differs, except for what a recording cannot hold:
// - CPU identity, hypervisor and ISA flags. Live: the cpuid instruction and xgetbv (the brand
//   string from /proc/cpuinfo only when cpuid has none). Recorded: the first processor block of
//   proc/cpuinfo: `vendor_id`, `cpu family`, `model`, `stepping`, `model name` (the kernel
//   prints the display family and model, as cpuid gives them here) and `flags`, where
//   `hypervisor` is the hypervisor bit, `pni` is SSE3, and sse2, ssse3, sse4_1, sse4_2, avx,
//   avx2, fma, avx512f, avx512dq, avx512cd, avx512bw, avx512vl, avx512_fp16 are the IsaFlags of
//   those names. The kernel prints only what the OS enables (it clears AVX and AVX-512 when XCR0
//   lacks their state), so a recorded flag is usable as it stands, and cpu_avx_without_os /
//   cpu_avx512_without_os stay false: a recording cannot tell what the CPU has beyond that.
// - nominal_ghz: cpuid leaf 0x16 is live only; then, for both, the brand string, the tree's
//   cpu0/cpufreq/base_frequency and cpuinfo_max_freq, and last the first `cpu MHz` line.
// - Logical CPUs: the tree's `online` list, else its `present` list (a recording that keeps only
//   one of them), else, live only, sysconf(_SC_NPROCESSORS_ONLN).
// - cpu_order: live, the CPUs this process may run on (sched_getaffinity). Recorded, every
//   CPU of the list above: this process's affinity describes the machine it runs on, not the
//   recorded one, whose users' processes may run anywhere it lets them.
// - memory_nodes: the tree's sys/devices/system/node/has_memory list.
// - hostname and kernel_release: uname, live only; empty for a recording (so its Fingerprint
//   names the recorded hardware only).
Topology ReadTopologyFrom(const std::string& root);

// The data or unified caches (instruction caches left out), one per level, level 1 first.
std::vector<CacheLevel> DataCaches(const Topology& topology);

// Bytes of cache level `level` that `threads` threads pinned to the first `threads` CPUs of
// cpu_order can use together: one instance per group of cores that shares it. 0 when sysfs does
// not report the level.
uint64_t AggregateCacheBytes(const Topology& topology, int level, int threads);

// A stable short name for this machine (16 hex digits): a hash of the CPU identity, core counts,
// cache sizes, host name and kernel release. The same machine gives the same fingerprint; a new
// kernel or another host gives another one. Measured values are not part of it.
std::string Fingerprint(const Topology& topology);

// "avx512f avx2 fma ..." for display.
std::string IsaString(const IsaFlags& isa);

// Parses a sysfs CPU list such as "0-3,8,10-11". Returns false on malformed text.
bool ParseCpuList(const std::string& text, std::vector<int>* cpus);

}  // namespace rprof

#endif  // RPROF_MACHINE_TOPOLOGY_H_
