// Programs whose work depends on how fast they run: a benchmark harness repeats its loop until a
// time has passed, so under valgrind (tens of times slower) it does a fraction of the native
// work. Counts from such a replay cannot be divided by the native time.
#ifndef RPROF_COUNTERS_TIME_ADAPTIVE_H_
#define RPROF_COUNTERS_TIME_ADAPTIVE_H_

#include <optional>
#include <string>

namespace rprof {

// Whether the executable at `path` is a Google Benchmark binary (it links libbenchmark, or has
// its command-line flags built in); false when the file cannot be read.
bool IsGoogleBenchmarkBinary(const std::string& path);

// The replay's instructions against the native run's, when both are known: a ratio far from 1
// means the program did other work under the simulator. nullopt when they agree within a factor
// of 2 (or either is unknown); else the sentence saying how far apart they are.
std::optional<std::string> WorkMismatch(std::optional<double> native_instructions,
                                        std::optional<double> replay_instructions);

}  // namespace rprof

#endif  // RPROF_COUNTERS_TIME_ADAPTIVE_H_
