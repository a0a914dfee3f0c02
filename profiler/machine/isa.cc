#include "machine/isa.h"

#include <array>
#include <optional>

#include "core/closed_list.h"

namespace rprof {

namespace {

// The closed list, narrowest first: each ISA's name, vector width and the CPU flag its plain
// kernels need (scalar code runs in SSE2's registers, as on every x86-64).
struct IsaInfo {
  Isa isa;
  const char* name;
  int vector_bytes;  // 8 for scalar: one fp64 (fp32 scalar code still uses one lane)
  bool IsaFlags::*needs;
};

constexpr std::array<IsaInfo, 4> kIsas = {{
    {Isa::kScalar, "scalar", 8, &IsaFlags::sse2},
    {Isa::kSse, "sse", 16, &IsaFlags::sse2},
    {Isa::kAvx2, "avx2", 32, &IsaFlags::avx2},
    {Isa::kAvx512, "avx512", 64, &IsaFlags::avx512f},
}};

// nullptr for a value not in the list (a cast from a wider integer).
const IsaInfo* FindIsa(Isa isa) {
  for (const IsaInfo& info : kIsas)
    if (info.isa == isa) return &info;
  return nullptr;
}

}  // namespace

// NameIn's view is of the row's literal (or of "?"), so its data() is a C string.
const char* IsaName(Isa isa) { return NameIn<&IsaInfo::isa>(kIsas, isa).data(); }

const char* PrecisionName(Precision precision) {
  return precision == Precision::kFp64 ? "fp64" : "fp32";
}

bool ParseIsa(const std::string& name, Isa* isa) {
  std::optional<Isa> found = ParseIn<&IsaInfo::isa>(kIsas, name);
  if (found) *isa = *found;
  return found.has_value();
}

int IsaVectorBytes(Isa isa) {
  const IsaInfo* info = FindIsa(isa);
  return info ? info->vector_bytes : 8;
}

int IsaLanes(Isa isa, Precision precision) {
  if (isa == Isa::kScalar) return 1;
  int element = precision == Precision::kFp64 ? 8 : 4;
  return IsaVectorBytes(isa) / element;
}

bool IsaUsable(const IsaFlags& flags, Isa isa) {
  const IsaInfo* info = FindIsa(isa);
  return info && flags.*(info->needs);
}

bool IsaFmaUsable(const IsaFlags& flags, Isa isa) { return IsaUsable(flags, isa) && flags.fma; }

std::vector<Isa> UsableIsas(const IsaFlags& flags) {
  std::vector<Isa> out;
  for (const IsaInfo& info : kIsas) {
    if (flags.*(info.needs)) out.push_back(info.isa);
  }
  return out;
}

Isa WidestIsa(const IsaFlags& flags) {
  if (flags.avx512f) return Isa::kAvx512;
  if (flags.avx2) return Isa::kAvx2;
  return Isa::kSse;
}

}  // namespace rprof
