#include "machine/current_machine.h"

#include "machine/topology.h"

namespace rprof {

namespace {

std::string SizeText(uint64_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

}  // namespace

MachineRecord CurrentMachine() {
  Topology topology = ReadTopology();
  MachineRecord m;
  m.fingerprint = Fingerprint(topology);
  m.cpu_model = topology.model_name;
  m.cores = topology.logical_cpus;
  for (const CacheLevel& c : topology.caches) {
    std::string name = "L";
    name += std::to_string(c.level);
    if (c.type == "data") name += "d";
    if (c.type == "instruction") name += "i";
    if (!m.caches.empty()) m.caches += ", ";
    m.caches += name + " " + SizeText(c.size_bytes);
  }
  m.kernel = topology.kernel_release;
  m.hostname = topology.hostname;
  return m;
}

}  // namespace rprof
