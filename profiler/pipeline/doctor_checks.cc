// What `rprof doctor` finds (pipeline/doctor_checks.h).
#include "pipeline/doctor_checks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "calibrate/calibration_store.h"
#include "counters/counting_probe.h"
#include "counters/groups_location.h"
#include "counters/papi/papi_info.h"
#include "counters/papi/papi_session.h"
#include "counters/pmu/group_library.h"
#include "counters/pmu/pfm_events.h"
#include "counters/pmu_diagnosis.h"
#include "counters/sim_source.h"
#include "counters/source_registry.h"
#include "machine/current_machine.h"
#include "machine/topology.h"
#include "store/profile_store.h"
#include "targets/kernel_catalog.h"
#include "targets/target_path.h"

namespace rprof {

namespace {

namespace fs = std::filesystem;

std::string ReadFirstLine(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// "Key:\tvalue" of /proc/self/status.
std::string ProcStatus(const std::string& key) {
  std::ifstream file("/proc/self/status");
  std::string line;
  while (std::getline(file, line))
    if (line.rfind(key + ":", 0) == 0) {
      std::string value = line.substr(key.size() + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  return "";
}

struct Privileges {
  bool perfmon = false;    // CAP_PERFMON (38) in the effective set
  bool sys_admin = false;  // CAP_SYS_ADMIN (21)
  bool root = false;
  bool any() const { return perfmon || sys_admin; }
  std::string Text() const {
    std::string caps = perfmon && sys_admin ? "CAP_PERFMON and CAP_SYS_ADMIN"
                       : perfmon            ? "CAP_PERFMON"
                       : sys_admin          ? "CAP_SYS_ADMIN"
                                            : "neither CAP_PERFMON nor CAP_SYS_ADMIN";
    return (root ? "root, " : "not root, ") + caps;
  }
};

Privileges ReadPrivileges() {
  Privileges p;
  p.root = geteuid() == 0;
  unsigned long long eff = 0;
  std::istringstream(ProcStatus("CapEff")) >> std::hex >> eff;
  p.perfmon = (eff >> 38) & 1;
  p.sys_admin = (eff >> 21) & 1;
  return p;
}

std::vector<std::string> EventSourceDevices() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/bus/event_source/devices", ec))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string ListText(const std::vector<std::string>& items, size_t max_items = 6) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max_items) out += ", … (" + std::to_string(items.size()) + " in all)";
  return out;
}

// --- the checks, in the order they are shown ---

DoctorCheck ParanoidCheck(const PmuDiagnosis& pmu, const Privileges& priv) {
  DoctorCheck c{"perf_event_paranoid", CheckStatus::kOk, "", ""};
  int level = pmu.paranoid;
  std::string allows;
  if (level < 0 && level != -1) level = -2;  // unreadable
  switch (level) {
    case -2:
      c.status = CheckStatus::kMissing;
      c.detail =
          "/proc/sys/kernel/perf_event_paranoid cannot be read: this kernel may have no "
          "perf_event support";
      c.remedy = "use a kernel built with CONFIG_PERF_EVENTS";
      return c;
    case -1:
      allows = "every user may count everything";
      break;
    case 0:
      allows = "every user may count processes and CPUs (uncore), no raw tracepoints";
      break;
    case 1:
      allows =
          "every user may count processes (user and kernel); CPU-wide (uncore) needs "
          "CAP_PERFMON";
      break;
    case 2:
      allows =
          "every user may count processes in user space (what rprof needs); kernel and "
          "CPU-wide (uncore) need CAP_PERFMON";
      break;
    default:
      allows = "perf_event_open is refused to users without CAP_PERFMON (a Debian/Ubuntu patch)";
      break;
  }
  c.detail = std::to_string(level) + ": " + allows;
  if (priv.any()) {
    c.detail += "; no limit for this process (" + priv.Text() + ")";
    return c;
  }
  if (level >= 3) {
    c.status = CheckStatus::kMissing;
    c.remedy =
        "sudo sysctl kernel.perf_event_paranoid=2 (persist in /etc/sysctl.d/"
        "99-perf.conf), or grant CAP_PERFMON";
  } else if (level >= 1) {
    c.status = CheckStatus::kLimited;
    c.remedy =
        "for uncore (DRAM) counts: sudo sysctl kernel.perf_event_paranoid=0, or "
        "sudo setcap cap_perfmon=ep on rprof";
  }
  return c;
}

DoctorCheck ContainerCheck(const Privileges& priv, bool software_events_work) {
  DoctorCheck c{"container", CheckStatus::kOk, "", ""};
  std::vector<std::string> hints;
  for (const char* file : {"/.dockerenv", "/run/.containerenv"})
    if (Exists(file)) hints.push_back(file);
  std::ifstream cgroup("/proc/1/cgroup");
  std::string line;
  while (std::getline(cgroup, line)) {
    bool hit = false;
    for (const char* word : {"docker", "kubepods", "containerd", "libpod", "lxc"})
      if (line.find(word) != std::string::npos) {
        hints.push_back(std::string("/proc/1/cgroup mentions ") + word);
        hit = true;
        break;
      }
    if (hit) break;
  }
  std::string seccomp = ProcStatus("Seccomp");
  std::string seccomp_text = seccomp == "2"   ? "a seccomp filter is active"
                             : seccomp == "1" ? "strict seccomp is active"
                                              : "no seccomp filter";
  std::string state = seccomp_text + ", " + priv.Text();
  if (hints.empty()) {
    c.detail = "no container hints (/.dockerenv, /run/.containerenv, /proc/1/cgroup); " + state;
    return c;
  }
  c.detail = "container hints: " + ListText(hints) + "; " + state;
  if (!software_events_work) {
    c.status = CheckStatus::kMissing;
    c.detail += "; perf_event_open is refused";
    c.remedy =
        "start the container with --cap-add PERFMON and a seccomp profile that allows "
        "perf_event_open (docker/podman --security-opt seccomp=PROFILE.json; Kubernetes: "
        "securityContext.capabilities.add: [PERFMON])";
  } else {
    c.detail += "; perf_event_open is allowed";
    if (!priv.any()) {
      c.status = CheckStatus::kLimited;
      c.remedy = "for uncore (DRAM) counts: --cap-add PERFMON";
    }
  }
  return c;
}

DoctorCheck PmuCheck(const PmuDiagnosis& pmu) {
  DoctorCheck c{std::string(SourceName(Source::kPmu)), CheckStatus::kOk, "", ""};
  if (pmu.hardware_counters && pmu.fake) {
    c.status = CheckStatus::kLimited;
    c.detail = std::string(kFakePmuNote).substr(5);  // without its "pmu: "
    c.remedy = "unset LD_PRELOAD: the fake PMU is for rprof's own tests";
    return c;
  }
  if (pmu.hardware_counters) {
    c.detail = std::string("hardware counters open (a hardware event was opened)") +
               (pmu.virtual_machine ? " in a virtual machine with a vPMU" : "");
    return c;
  }
  c.status = CheckStatus::kMissing;
  c.detail = pmu.cause + (pmu.virtual_machine ? " (CPUID has the hypervisor bit)" : "");
  c.remedy = pmu.remedy;
  return c;
}

DoctorCheck CorePmuCheck(const PmuDiagnosis& pmu) {
  DoctorCheck c{"core_pmu", CheckStatus::kOk, "", ""};
  Error err;
  if (!InitPfm(&err)) {
    c.status = CheckStatus::kMissing;
    c.detail = err.message;
    c.remedy = "install libpfm4 (apt-get install libpfm4-dev) and rebuild rprof";
    return c;
  }
  // (PfmVersion() is libpfm4's ABI version, "4.0" on every 4.x release: not shown.)
  std::string cpuid = CpuidCorePmuName();
  Error why;
  std::string host = HostCorePmuName(&why);
  if (!host.empty()) {
    c.detail = "libpfm4 reads the CPU as " + host + " (CPUID) and the kernel exposes its PMU";
    return c;
  }
  c.status = CheckStatus::kMissing;
  if (cpuid.empty()) {
    c.detail = why.message;
    c.remedy =
        "a newer libpfm4 (and PAPI built with it) that knows this CPU; until then the "
        "generic groups on PAPI presets apply";
    return c;
  }
  c.detail = "libpfm4 reads the CPU as " + cpuid +
             " (CPUID), but the kernel exposes no CPU PMU (event sources: " +
             ListText(EventSourceDevices()) + ")";
  c.remedy = pmu.hardware_counters ? "see pmu" : "see pmu: " + pmu.cause;
  return c;
}

DoctorCheck HybridCheck() {
  DoctorCheck c{"hybrid", CheckStatus::kOk, "", ""};
  bool core = Exists("/sys/devices/cpu_core"), atom = Exists("/sys/devices/cpu_atom");
  if (!(core && atom)) {
    c.detail = "not a hybrid CPU (no /sys/devices/cpu_core + cpu_atom pair)";
    return c;
  }
  std::string p_cpus = ReadFirstLine("/sys/devices/cpu_core/cpus");
  std::string e_cpus = ReadFirstLine("/sys/devices/cpu_atom/cpus");
  c.status = CheckStatus::kLimited;
  c.detail = "hybrid CPU: P-cores " + p_cpus + " (cpu_core) and E-cores " + e_cpus +
             " (cpu_atom) have different PMUs; rprof's groups use the P-core PMU";
  c.remedy = "pin the target to the P-cores: taskset -c " + p_cpus + " rprof …";
  return c;
}

DoctorCheck UncoreCheck(const PmuDiagnosis& pmu, const Privileges& priv) {
  DoctorCheck c{"uncore", CheckStatus::kOk, "", ""};
  std::vector<std::string> uncore;
  for (const std::string& name : EventSourceDevices())
    if (name.rfind("uncore_", 0) == 0 || name.rfind("amd_df", 0) == 0 ||
        name.rfind("amd_l3", 0) == 0 || name.rfind("amd_umc", 0) == 0)
      uncore.push_back(name);
  if (uncore.empty()) {
    c.status = CheckStatus::kMissing;
    c.detail =
        "no uncore PMU (uncore_*, amd_df, amd_l3, amd_umc) in "
        "/sys/bus/event_source/devices: no measured DRAM traffic from the PMU";
    c.remedy = pmu.virtual_machine
                   ? "hypervisors do not give guests uncore PMUs: measure DRAM traffic on bare "
                     "metal, or use --counters sim (simulated LL misses)"
                   : "load the uncore driver (modprobe intel_uncore / amd_uncore)";
    return c;
  }
  c.detail = "uncore PMUs: " + ListText(uncore);
  if (!priv.any() && pmu.paranoid > 0) {
    c.status = CheckStatus::kLimited;
    c.detail += "; CPU-wide counting is refused at perf_event_paranoid " +
                std::to_string(pmu.paranoid) + " without CAP_PERFMON";
    c.remedy = "sudo sysctl kernel.perf_event_paranoid=0, or sudo setcap cap_perfmon=ep on rprof";
  }
  return c;
}

DoctorCheck RdpmcCheck() {
  DoctorCheck c{"rdpmc", CheckStatus::kOk, "", ""};
  std::string path;
  for (const char* pmu : {"cpu", "cpu_core"}) {
    std::string p = std::string("/sys/bus/event_source/devices/") + pmu + "/rdpmc";
    if (Exists(p)) {
      path = p;
      break;
    }
  }
  if (path.empty()) {
    c.status = CheckStatus::kMissing;
    c.detail = "no /sys/bus/event_source/devices/cpu/rdpmc: no CPU PMU to read from user space";
    c.remedy = "comes with the PMU (see pmu)";
    return c;
  }
  std::string value = ReadFirstLine(path);
  if (value == "0") {
    c.status = CheckStatus::kLimited;
    c.detail = path +
               " = 0: user-space reads disabled; counters are read with read(2) "
               "(slower per read, same counts)";
    c.remedy = "echo 1 | sudo tee " + path;
  } else {
    c.detail = path + " = " + value + ": user-space counter reads allowed" +
               (value == "2" ? " for every process" : " for processes with counters open");
  }
  return c;
}

DoctorCheck PapiCheck() {
  DoctorCheck c{"papi", CheckStatus::kOk, "", ""};
  PapiInfo papi = ReadPapiInfo();
  if (!papi.built) {
    c.status = CheckStatus::kMissing;
    c.detail = "this rprof was built without PAPI: no pmu source";
    c.remedy = "apt-get install libpapi-dev libpfm4-dev and rebuild (scripts/bootstrap)";
    return c;
  }
  if (!papi.started) {
    c.status = CheckStatus::kMissing;
    c.detail = papi.error;
    c.remedy = "reinstall libpapi (the library must match the headers rprof was built with)";
    return c;
  }
  std::vector<std::string> active, disabled;
  bool perf_event = false;
  std::string perf_event_why;
  for (const PapiComponent& component : papi.components) {
    if (component.disabled) {
      disabled.push_back(component.name);
      if (component.name == "perf_event") perf_event_why = component.disabled_reason;
      continue;
    }
    if (component.name == "perf_event") perf_event = true;
    active.push_back(component.name + " (" + std::to_string(component.native_events) + " native, " +
                     std::to_string(component.preset_events) + " presets)");
  }
  c.detail = "PAPI " + papi.version +
             "; components: " + (active.empty() ? "none active" : ListText(active, 8));
  if (!disabled.empty()) c.detail += "; disabled: " + ListText(disabled, 8);
  if (!perf_event) {
    c.status = CheckStatus::kMissing;
    c.detail += "; perf_event is disabled" +
                (perf_event_why.empty() ? std::string() : " (" + perf_event_why + ")");
    c.remedy = "see perf_event_paranoid and container; papi_component_avail shows PAPI's view";
    // PAPI switches its CPU component off when libpfm4 does not know the CPU (a CPU newer than
    // the distribution's libpfm4): the kernel still counts, and rprof opens the events itself.
    if (perf_event_why.find("libpfm4") != std::string::npos) {
      c.status = CheckStatus::kLimited;
      c.detail +=
          ": this libpfm4 does not know this CPU; rprof counts through perf_event_open itself "
          "(software events, and the perf:: generic hardware events where a PMU exists)";
      c.remedy = "a newer libpfm4 and PAPI bring this CPU's own events and metric groups";
    }
  }
  return c;
}

// Counts perf::TASK-CLOCK for real on the paths runs take: a kernel's (counters attached to a
// forked worker) and a program's (counters from its exec on). Both must count for rprof to do its
// job: a kernel run that cannot be counted fails.
DoctorCheck SoftwareEventsCheck(const PmuDiagnosis& pmu, bool* works) {
  DoctorCheck c{"software_events", CheckStatus::kOk, "", ""};
  const CountingProbe& probe = ProbeCounting();
  *works = probe.ok();
  std::string through = "through " + probe.backend +
                        (probe.why_not_papi.empty() ? "" : " (" + probe.why_not_papi + ")");
  c.detail =
      "kernels: " + probe.kernel_detail + "; programs: " + probe.program_detail + "; " + through;
  if (probe.ok()) return c;
  c.status = CheckStatus::kMissing;
  c.remedy = pmu.paranoid >= 3 ? "sudo sysctl kernel.perf_event_paranoid=2"
                               : "in a container, allow perf_event_open in its seccomp profile; "
                                 "a kernel.yama.ptrace_scope above 1 forbids counting another "
                                 "process";
  return c;
}

DoctorCheck GroupsCheck(const PmuDiagnosis& pmu) {
  DoctorCheck c{"metric_groups", CheckStatus::kOk, "", ""};
  GroupLibrary library(GroupsDataDir());
  if (library.ListPmus().empty()) {
    c.status = CheckStatus::kMissing;
    c.detail = "no metric-group files in " + library.data_dir() + " nor in " +
               (library.user_dir().empty() ? std::string("a user folder") : library.user_dir());
    c.remedy =
        "reinstall rprof, or set RPROF_GROUPS_DIR to the source tree's "
        "profiler/counters/groups";
    return c;
  }
  std::string host = HostCorePmuName(), cpuid = CpuidCorePmuName();
  std::string set = library.ResolvePmu(host);
  std::string groups;
  for (const std::string& g : library.ListGroups(set)) groups += (groups.empty() ? "" : " ") + g;
  c.detail = set + " (" + groups + ") in " + library.data_dir();
  if (set == kGenericPmu) {
    if (host.empty() && !cpuid.empty() && !library.ListGroups(cpuid).empty())
      c.detail += ", not " + cpuid + "'s own: the kernel exposes no PMU";
    else if (!host.empty())
      c.detail += ": no groups for " + host + " yet";
  }
  if (!pmu.hardware_counters) {
    c.status = CheckStatus::kMissing;
    c.detail += "; none can count here (" + pmu.cause + ")";
    c.remedy = "see pmu; --counters sim gives flops and bytes without a PMU";
  } else if (set == kGenericPmu) {
    c.status = CheckStatus::kLimited;
    c.remedy = "the generic groups have no DRAM bytes: add groups for " + host + " under " +
               GroupLibrary::DefaultUserDir() + "/" + host + "/ (format: " + library.data_dir() +
               "/README.md)";
  }
  return c;
}

DoctorCheck SimCheck(bool* available) {
  DoctorCheck c{std::string(SourceName(Source::kSim)), CheckStatus::kOk, "", ""};
  Availability sim = FindCounterSource(Source::kSim)->Probe();
  *available = sim.available;
  if (!*available) {
    c.status = CheckStatus::kMissing;
    c.detail = sim.cause;
    c.remedy = sim.remedy;
    return c;
  }
  std::string version;
  if (std::FILE* pipe = popen("valgrind --version 2>/dev/null", "r")) {
    char line[128] = {};
    if (std::fgets(line, sizeof line, pipe)) version = line;
    pclose(pipe);
    while (!version.empty() && (version.back() == '\n' || version.back() == ' '))
      version.pop_back();
  }
  bool simtool = false;
  std::string backend = SimBackend(&simtool);
  c.detail = (version.empty() ? std::string("valgrind") : version) +
             " + Zydis: exact flops and bytes_l1, " +
             (simtool ? "a write-back hierarchy of every cache level (bytes_l2, bytes_l3, "
                        "bytes_dram)"
                      : "simulated L2/DRAM bytes (callgrind: D1 and LL only)") +
             " (of an AVX2 build); tool: " + backend;
  if (std::string limit = SimIsaLimit(ReadTopology()); !limit.empty()) {
    c.status = CheckStatus::kLimited;
    c.detail += "; " + limit;
    c.remedy =
        "build what sim replays with -mavx2 -mfma; for libraries, compare sim's hot "
        "functions with the native run's (rprof show)";
  }
  return c;
}

DoctorCheck ModelCheck() {
  DoctorCheck c{std::string(SourceName(Source::kModel)), CheckStatus::kOk, "", ""};
  size_t kernels = BuiltinCatalog().entries().size();
  if (kernels == 0) {
    c.status = CheckStatus::kMissing;
    c.detail = "no built-in kernels";
    c.remedy = "rebuild rprof";
    return c;
  }
  c.detail = std::to_string(kernels) +
             " built-in kernels declare their FLOPs and bytes; wall time is always measured";
  return c;
}

DoctorCheck GnuplotCheck() {
  DoctorCheck c{"gnuplot", CheckStatus::kOk, "", ""};
  if (OnPath("gnuplot")) {
    c.detail = "on PATH: rprof plot draws svg, png, pdf and the terminal";
    return c;
  }
  c.status = CheckStatus::kMissing;
  c.detail = "gnuplot is not on PATH: rprof plot cannot draw";
  c.remedy = "apt-get install gnuplot-nox";
  return c;
}

// The nearest directory that exists at or above path's directory.
std::string ExistingAncestor(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  while (!fs::exists(dir, ec) && dir.has_parent_path() && dir != dir.parent_path())
    dir = dir.parent_path();
  return dir.string();
}

DoctorCheck DatabaseCheck(const DatabasePath& db, bool* exists) {
  DoctorCheck c{"database", CheckStatus::kOk, "", ""};
  *exists = access(db.path.c_str(), F_OK) == 0;
  std::string dir = fs::path(db.path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (*exists) {
    // SQLite in WAL mode writes -wal and -shm files next to the database.
    bool writable = access(db.path.c_str(), W_OK) == 0 && access(dir.c_str(), W_OK) == 0;
    std::error_code ec;
    auto size = fs::file_size(db.path, ec);
    c.detail = db.path + " (" + (ec ? std::string("?") : std::to_string(size / 1024)) + " KiB), " +
               (writable ? "writable" : "not writable");
    if (!writable) {
      c.status = CheckStatus::kMissing;
      c.remedy = "make it and its directory writable, or use --db PATH / RPROF_DB";
    }
    return c;
  }
  std::string ancestor = ExistingAncestor(db.path);
  bool dir_exists = Exists(dir);
  bool writable = access(ancestor.c_str(), W_OK) == 0;
  c.detail = db.path + " does not exist yet (doctor does not create it); ";
  if (!dir_exists && !db.is_default) {
    c.status = CheckStatus::kMissing;
    c.detail += "its directory " + dir + " does not exist";
    c.remedy = "mkdir -p " + dir + ", or choose another --db";
  } else if (!writable) {
    c.status = CheckStatus::kMissing;
    c.detail += ancestor + " is not writable";
    c.remedy = "use --db PATH or RPROF_DB for a writable place";
  } else {
    c.detail += "the first run creates it (" + ancestor + " is writable)";
  }
  return c;
}

// `store`: the database read-only, or null with why in `open_err` (empty: there is none yet).
DoctorCheck ProfileCheck(const DatabasePath& db, RunStore* store, const Error& open_err) {
  DoctorCheck c{"machine_profile", CheckStatus::kMissing, "", ""};
  std::string fingerprint = CurrentMachine().fingerprint;
  c.remedy = "rprof machine measure (about 5 s): runs are then placed on this machine's roofline";
  if (!store && open_err.message.empty()) {
    c.detail = "no database yet, so no profile for this machine (" + fingerprint + ")";
    return c;
  }
  Error err = open_err;
  StoredProfile profile;
  bool found = false;
  if (!store || !LoadNewestProfile(store, fingerprint, &profile, &found, &err)) {
    c.detail = "cannot read profiles: " + err.message;
    // An older schema lacks the profile tables; the next rprof that writes migrates it.
    c.remedy = "rprof machine measure (it first brings an older database up to date)";
    return c;
  }
  if (!found) {
    c.detail = "no profile for this machine (" + fingerprint + ") in " + db.path;
    return c;
  }
  c.status = CheckStatus::kOk;
  c.remedy.clear();
  c.detail = "profile " + std::to_string(profile.id) + " of " + profile.created_at + " (" +
             fingerprint + ")";
  if (profile.profile.noisy()) {
    // Runs are placed against it all the same, each with a noisy_profile trust note.
    c.status = CheckStatus::kLimited;
    c.detail += " is noisy: " + profile.profile.noisy_reasons.front();
    if (profile.profile.noisy_reasons.size() > 1)
      c.detail += " (and " + std::to_string(profile.profile.noisy_reasons.size() - 1) + " more)";
    c.remedy =
        "rprof machine measure on a quiet machine (no build or other job running): runs "
        "are placed against the newest profile";
  }
  return c;
}

// Whether this machine's counters were checked against kernels of known counts (rprof
// calibrate), and what the newest calibration did not trust.
DoctorCheck CalibrationStateCheck(RunStore* store, const Error& open_err, const PmuDiagnosis& pmu) {
  DoctorCheck c{"calibration", CheckStatus::kMissing, "", ""};
  c.remedy = pmu.hardware_counters
                 ? "rprof calibrate (a minute): every later run then says which counts to trust"
                 : "no hardware counters to calibrate here; rprof calibrate --counters sim checks "
                   "the simulator";
  std::vector<MetricTrust> trust;
  if (store || !open_err.message.empty()) {
    Error err = open_err;
    if (!store || !LoadMetricTrust(store, CurrentMachine().fingerprint, &trust, &err)) {
      c.detail = "cannot read calibrations: " + err.message;
      return c;
    }
  }
  std::string pmu_untrusted, sim_untrusted;
  bool pmu_done = false, sim_done = false;
  // The sim source's verdicts are its simulator's: another one's calibration says nothing here.
  const std::string simulator = SimulatorName();
  for (const MetricTrust& t : trust) {
    bool is_pmu = t.source == Source::kPmu;
    if (!is_pmu && t.counter_set != simulator) continue;
    (is_pmu ? pmu_done : sim_done) = true;
    std::string& list = is_pmu ? pmu_untrusted : sim_untrusted;
    if (!t.trusted) list += (list.empty() ? "" : ", ") + t.metric;
  }
  auto summary = [](const std::string& source, bool done, const std::string& untrusted) {
    if (!done) return std::string(source) + " never calibrated";
    return std::string(source) + (untrusted.empty() ? ": every calibrated metric within tolerance"
                                                    : " untrusted: " + untrusted);
  };
  const std::string pmu_name(SourceName(Source::kPmu)), sim_name(SourceName(Source::kSim));
  c.detail = summary(pmu_name, pmu_done, pmu_untrusted) + "; " +
             summary(sim_name + " (" + simulator + ")", sim_done, sim_untrusted);
  bool relevant_done = pmu.hardware_counters ? pmu_done : sim_done;
  const std::string& relevant_untrusted = pmu.hardware_counters ? pmu_untrusted : sim_untrusted;
  if (relevant_done) {
    c.status = relevant_untrusted.empty() ? CheckStatus::kOk : CheckStatus::kLimited;
    c.remedy = relevant_untrusted.empty()
                   ? ""
                   : "rprof calibrate --show lists the ratios; runs here mark these metrics "
                     "untrusted";
  }
  return c;
}

}  // namespace

DoctorFindings RunDoctorChecks(const DatabasePath& db, const OpenStoreIfExists& open_store) {
  const PmuDiagnosis& pmu = DiagnosePmu();
  Privileges priv = ReadPrivileges();
  bool software_works = false, sim_works = false, db_exists = false;
  std::vector<DoctorCheck> checks;
  checks.push_back(ParanoidCheck(pmu, priv));
  DoctorCheck software = SoftwareEventsCheck(pmu, &software_works);
  checks.push_back(ContainerCheck(priv, software_works));
  checks.push_back(PmuCheck(pmu));
  checks.push_back(CorePmuCheck(pmu));
  checks.push_back(HybridCheck());
  checks.push_back(UncoreCheck(pmu, priv));
  checks.push_back(RdpmcCheck());
  checks.push_back(PapiCheck());
  checks.push_back(software);
  checks.push_back(GroupsCheck(pmu));
  DoctorCheck sim_check = SimCheck(&sim_works);
  checks.push_back(sim_check);
  DoctorCheck model_check = ModelCheck();
  checks.push_back(model_check);
  checks.push_back(GnuplotCheck());
  checks.push_back(DatabaseCheck(db, &db_exists));
  // Read-only, and only when the file is there: doctor creates nothing.
  Error open_err;
  RunStore* store = open_store(&db_exists, &open_err);
  checks.push_back(ProfileCheck(db, store, open_err));
  checks.push_back(CalibrationStateCheck(store, open_err, pmu));

  // The basic job: wall time (always), the model, FLOPs from sim or the PMU.
  bool model = model_check.status == CheckStatus::kOk;
  bool flops = pmu.hardware_counters || sim_works;
  bool basic = model && flops && software_works;
  std::string verdict;
  if (basic) {
    verdict = std::string("rprof can do its job here: wall time, the model, and FLOPs from ") +
              (pmu.hardware_counters && sim_works ? "the PMU and sim"
               : pmu.hardware_counters            ? "the PMU"
                                                  : "sim (no hardware counters)");
  } else {
    std::string missing;
    if (!software_works) missing += "counting of kernels and programs (" + software.detail + ")";
    if (!model)
      missing += std::string(missing.empty() ? "" : " and ") + "the kernel models (" +
                 model_check.detail + ")";
    if (!flops)
      missing += std::string(missing.empty() ? "" : " and ") + "FLOP counts: " + pmu.cause +
                 ", and no sim (" + sim_check.detail + ")";
    verdict = "rprof cannot do its basic job here: no " + missing;
  }
  std::string remedy;
  if (!basic)
    remedy = !software_works ? software.remedy
             : !model        ? model_check.remedy
                             : sim_check.remedy +
                            ", or give rprof a hardware PMU (the pmu "
                            "check says how)";
  return {std::move(checks), basic, std::move(verdict), std::move(remedy)};
}

}  // namespace rprof
