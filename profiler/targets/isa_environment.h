// run --isa: one ISA for the timed runs and the sim replay. valgrind 3.19 cannot execute
// AVX-512 and its CPUID hides it, so libraries that pick their kernels by CPU feature (OpenBLAS,
// MKL, NumPy, glibc's string functions, PyTorch, oneDNN) run AVX-512 code natively and AVX2 code
// under the replay: the counts would belong to other code than the times
// (functions/replay_coverage.h notices it afterwards). --isa avx2 sets, in rprof's own
// environment while the program is measured, the switches these libraries read, so that every
// execution of the program (timed, sampled, replayed) inherits them.
//
//   IsaDecision isa = DecideIsa(requested, topology.isa.avx512f, replays);
//   IsaEnvironment env(PlanIsaEnvironment(isa.choice, avx512, ProcessEnvironment()));
//   AddNote(&run.note, IsaNote(isa, env.settings(), replays));   // then measure
#ifndef RPROF_TARGETS_ISA_ENVIRONMENT_H_
#define RPROF_TARGETS_ISA_ENVIRONMENT_H_

#include <optional>
#include <string>
#include <vector>

#include "targets/rank_identity.h"

namespace rprof {

enum class IsaChoice { kNative, kAvx2 };

// "native", "avx2" / false for any other word.
const char* IsaChoiceName(IsaChoice choice);
bool ParseIsaChoice(const std::string& text, IsaChoice* choice);

// What --isa comes to, and whether the user asked for it or it is the default.
struct IsaDecision {
  IsaChoice choice = IsaChoice::kNative;
  bool by_default = true;
};

// --isa as given (nullopt: not given) wins; else avx2 where a replay will run on a CPU with
// AVX-512 (the replay cannot run that code, so both runs keep to AVX2), native elsewhere.
IsaDecision DecideIsa(std::optional<IsaChoice> requested, bool cpu_has_avx512, bool replays);

// One environment variable --isa avx2 sets: which library reads it, and how.
struct IsaSwitch {
  const char* variable;
  const char* value;
  const char* library;  // who reads it, for the note and --help
  // Appended to a value the user set, after `separator` (GLIBC_TUNABLES holds several
  // tunables), unless theirs names `key` already; "" : a value the user set is kept whole.
  const char* separator;
  const char* key;
  // Set only on a CPU with AVX-512: the library warns on stderr about names the CPU lacks.
  bool needs_avx512;
};

// The switches of --isa avx2, in the order they are set (isa_environment.cc has the table).
const std::vector<IsaSwitch>& Avx2Switches();

// A variable as --isa leaves it.
struct IsaSetting {
  std::string variable;
  std::string value;       // what the program sees
  bool user_kept = false;  // the user's own value was kept (theirs wins)
};

// The settings `choice` makes, given the environment as it is (`env`): none for native; for
// avx2 every switch of the table (those needing AVX-512 only where the CPU has it), a variable
// the user set already kept as theirs, or, for GLIBC_TUNABLES, ours appended.
std::vector<IsaSetting> PlanIsaEnvironment(IsaChoice choice, bool cpu_has_avx512,
                                           const EnvironmentLookup& env);

// The run's note: "--isa avx2 (the default with sim on an AVX-512 CPU; --isa native turns it
// off): OPENBLAS_CORETYPE=Haswell, ... for the timed runs and the replay; kept as set:
// OPENBLAS_CORETYPE=Zen". "" for native.
std::string IsaNote(const IsaDecision& decision, const std::vector<IsaSetting>& settings,
                    bool replays);

// The settings in rprof's own environment while it lives (the program, its replay and all they
// start inherit them); the previous values restored when it goes out of scope.
class IsaEnvironment {
 public:
  explicit IsaEnvironment(std::vector<IsaSetting> settings);
  ~IsaEnvironment();
  IsaEnvironment(const IsaEnvironment&) = delete;
  IsaEnvironment& operator=(const IsaEnvironment&) = delete;

  const std::vector<IsaSetting>& settings() const { return settings_; }

 private:
  std::vector<IsaSetting> settings_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace rprof

#endif  // RPROF_TARGETS_ISA_ENVIRONMENT_H_
