// The machine record a run is stored with, read from this machine's topology.
#ifndef RPROF_CLI_CURRENT_MACHINE_H_
#define RPROF_CLI_CURRENT_MACHINE_H_

#include "store/run_record.h"

namespace rprof {

MachineRecord CurrentMachine();

}  // namespace rprof

#endif  // RPROF_CLI_CURRENT_MACHINE_H_
