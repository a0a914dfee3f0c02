#include "core/target_kind.h"

namespace rprof {

std::string_view TargetKindName(TargetKind kind) {
  for (const TargetKindInfo& k : kTargetKinds)
    if (k.kind == kind) return k.name;
  return "?";
}

std::optional<TargetKind> ParseTargetKind(std::string_view name) {
  for (const TargetKindInfo& k : kTargetKinds)
    if (k.name == name) return k.kind;
  return std::nullopt;
}

std::string TargetKindChoices() {
  std::string text;
  for (size_t i = 0; i < kTargetKinds.size(); ++i)
    text += std::string(i == 0 ? "" : i + 1 == kTargetKinds.size() ? " or " : ", ") +
            std::string(kTargetKinds[i].name);
  return text;
}

}  // namespace rprof
