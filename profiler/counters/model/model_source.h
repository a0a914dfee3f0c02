// The model counter source: what the target declares it does. A kernel's own FLOP and
// compulsory-byte formulas (kernel_model.h), or the FLOPs and bytes a user declared for one
// execution of a program. Nothing runs: its values exist before the target does.
#ifndef RPROF_COUNTERS_MODEL_MODEL_SOURCE_H_
#define RPROF_COUNTERS_MODEL_MODEL_SOURCE_H_

#include "counters/counter_source.h"

namespace rprof {

const CounterSource& ModelCounterSource();

}  // namespace rprof

#endif  // RPROF_COUNTERS_MODEL_MODEL_SOURCE_H_
