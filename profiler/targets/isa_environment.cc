#include "targets/isa_environment.h"

#include <cstdlib>

#include "core/text.h"

namespace rprof {

const char* IsaChoiceName(IsaChoice choice) {
  return choice == IsaChoice::kAvx2 ? "avx2" : "native";
}

bool ParseIsaChoice(const std::string& text, IsaChoice* choice) {
  if (text == "avx2")
    *choice = IsaChoice::kAvx2;
  else if (text == "native")
    *choice = IsaChoice::kNative;
  else
    return false;
  return true;
}

IsaDecision DecideIsa(std::optional<IsaChoice> requested, bool cpu_has_avx512, bool replays) {
  if (requested) return {*requested, false};
  return {cpu_has_avx512 && replays ? IsaChoice::kAvx2 : IsaChoice::kNative, true};
}

const std::vector<IsaSwitch>& Avx2Switches() {
  static const std::vector<IsaSwitch> kSwitches = {
      // OpenBLAS built with DYNAMIC_ARCH (Debian's, NumPy's and PyTorch's wheels): its kernels
      // for this core type instead of the detected one (SkylakeX, Cooperlake, SapphireRapids).
      {"OPENBLAS_CORETYPE", "Haswell", "OpenBLAS", "", "", false},
      // Intel MKL (and NumPy or PyTorch built on it): its dispatcher stops at AVX2.
      {"MKL_ENABLE_INSTRUCTIONS", "AVX2", "MKL", "", "", false},
      // glibc (2.26 and later, the dynamic loader at start-up): these CPU features count as
      // absent, so memcpy, strlen, ... take their AVX2 variants instead of the EVEX and AVX-512
      // ones (which need AVX512VL and AVX512BW, or AVX512F). Appended to the user's tunables.
      {"GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX512F,-AVX512CD,-AVX512BW,-AVX512DQ,-AVX512VL",
       "glibc", ":", "glibc.cpu.hwcaps", false},
      // NumPy 1.22 and later: its dispatched AVX-512 loops off (the names NumPy 1.24 dispatches
      // on x86; AVX512_KNL and AVX512_KNM are not dispatched, and naming them warns). NumPy
      // warns on stderr about each name the CPU lacks, so only on a CPU with AVX-512.
      {"NPY_DISABLE_CPU_FEATURES", "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL",
       "NumPy", "", "", true},
      // PyTorch (ATen's own CPU kernels): the AVX2 build of each.
      {"ATEN_CPU_CAPABILITY", "avx2", "PyTorch", "", "", false},
      // oneDNN 2.x and later (PyTorch's and TensorFlow's convolutions): JIT code up to AVX2.
      {"ONEDNN_MAX_CPU_ISA", "AVX2", "oneDNN", "", "", false},
  };
  return kSwitches;
}

std::vector<IsaSetting> PlanIsaEnvironment(IsaChoice choice, bool cpu_has_avx512,
                                           const EnvironmentLookup& env) {
  std::vector<IsaSetting> settings;
  if (choice == IsaChoice::kNative) return settings;
  for (const IsaSwitch& s : Avx2Switches()) {
    if (s.needs_avx512 && !cpu_has_avx512) continue;
    const char* user = env(s.variable);
    IsaSetting setting{s.variable, s.value, false};
    if (user != nullptr && *user != '\0') {
      std::string theirs = user;
      if (*s.separator == '\0' || theirs.find(s.key) != std::string::npos)
        setting = {s.variable, theirs, true};
      else
        setting.value = theirs + s.separator + s.value;
    }
    settings.push_back(std::move(setting));
  }
  return settings;
}

std::string IsaNote(const IsaDecision& decision, const std::vector<IsaSetting>& settings,
                    bool replays) {
  if (decision.choice == IsaChoice::kNative) return "";
  std::vector<std::string> set, kept;
  for (const IsaSetting& s : settings)
    (s.user_kept ? kept : set).push_back(s.variable + "=" + s.value);
  std::string note = std::string("--isa ") + IsaChoiceName(decision.choice);
  if (decision.by_default)
    note +=
        " (the default with sim on an AVX-512 CPU, whose AVX-512 code valgrind cannot "
        "run; --isa native turns it off)";
  note += ": " + (set.empty() ? std::string("nothing set") : Join(set, ", ")) + " for the timed " +
          (replays ? "runs and the replay" : "runs");
  if (!kept.empty()) note += ", kept as the user set it: " + Join(kept, ", ");
  return note;
}

IsaEnvironment::IsaEnvironment(std::vector<IsaSetting> settings) : settings_(std::move(settings)) {
  for (const IsaSetting& s : settings_) {
    if (s.user_kept) continue;
    const char* old = std::getenv(s.variable.c_str());
    saved_.emplace_back(s.variable, old ? std::optional<std::string>(old) : std::nullopt);
    setenv(s.variable.c_str(), s.value.c_str(), 1);
  }
}

IsaEnvironment::~IsaEnvironment() {
  for (const auto& [name, value] : saved_) {
    if (value)
      setenv(name.c_str(), value->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
}

}  // namespace rprof
