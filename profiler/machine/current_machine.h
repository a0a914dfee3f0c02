// The machine record a run is stored with, read from this machine's topology.
#ifndef RPROF_MACHINE_CURRENT_MACHINE_H_
#define RPROF_MACHINE_CURRENT_MACHINE_H_

#include "core/run.h"

namespace rprof {

MachineRecord CurrentMachine();

}  // namespace rprof

#endif  // RPROF_MACHINE_CURRENT_MACHINE_H_
