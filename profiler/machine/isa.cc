#include "machine/isa.h"

namespace rprof {

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return "scalar";
    case Isa::kSse:
      return "sse";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
  }
  return "?";
}

const char* PrecisionName(Precision precision) {
  return precision == Precision::kFp64 ? "fp64" : "fp32";
}

bool ParseIsa(const std::string& name, Isa* isa) {
  for (Isa i : {Isa::kScalar, Isa::kSse, Isa::kAvx2, Isa::kAvx512}) {
    if (name == IsaName(i)) {
      *isa = i;
      return true;
    }
  }
  return false;
}

int IsaVectorBytes(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return 8;
    case Isa::kSse:
      return 16;
    case Isa::kAvx2:
      return 32;
    case Isa::kAvx512:
      return 64;
  }
  return 8;
}

int IsaLanes(Isa isa, Precision precision) {
  if (isa == Isa::kScalar) return 1;
  int element = precision == Precision::kFp64 ? 8 : 4;
  return IsaVectorBytes(isa) / element;
}

bool IsaUsable(const IsaFlags& flags, Isa isa) {
  switch (isa) {
    case Isa::kScalar:
    case Isa::kSse:
      return flags.sse2;
    case Isa::kAvx2:
      return flags.avx2;
    case Isa::kAvx512:
      return flags.avx512f;
  }
  return false;
}

bool IsaFmaUsable(const IsaFlags& flags, Isa isa) { return IsaUsable(flags, isa) && flags.fma; }

std::vector<Isa> UsableIsas(const IsaFlags& flags) {
  std::vector<Isa> out;
  for (Isa i : {Isa::kScalar, Isa::kSse, Isa::kAvx2, Isa::kAvx512}) {
    if (IsaUsable(flags, i)) out.push_back(i);
  }
  return out;
}

Isa WidestIsa(const IsaFlags& flags) {
  if (flags.avx512f) return Isa::kAvx512;
  if (flags.avx2) return Isa::kAvx2;
  return Isa::kSse;
}

}  // namespace rprof
