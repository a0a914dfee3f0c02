// The memory levels a run's bytes are counted at and a roofline has a bandwidth roof for: the
// closed list, nearest the core first, one table read by placement, calibration, the reports
// and the JSON alike (metrics bytes_<level>, gbs_<level>, ai_<level>; a placement's
// binding_level). A machine's hierarchy may have more (l4); roofs are drawn for these.
#ifndef RPROF_CORE_MEMORY_LEVEL_H_
#define RPROF_CORE_MEMORY_LEVEL_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/closed_list.h"

namespace rprof {

enum class MemoryLevel { kL1, kL2, kL3, kDram };

struct MemoryLevelInfo {
  MemoryLevel level;
  std::string_view name;   // as in metric names and stored rows: "l1", ..., "dram"
  std::string_view title;  // as reports print it: "L1", ..., "DRAM"
};

inline constexpr std::array<MemoryLevelInfo, 4> kMemoryLevels = {{
    {MemoryLevel::kL1, "l1", "L1"},
    {MemoryLevel::kL2, "l2", "L2"},
    {MemoryLevel::kL3, "l3", "L3"},
    {MemoryLevel::kDram, "dram", "DRAM"},
}};

inline std::string_view MemoryLevelName(MemoryLevel level) {
  return NameIn<&MemoryLevelInfo::level>(kMemoryLevels, level);
}
inline std::optional<MemoryLevel> ParseMemoryLevel(std::string_view name) {
  return ParseIn<&MemoryLevelInfo::level>(kMemoryLevels, name);
}
// "l1, l2, l3 or dram": the names, for "use ..." messages.
inline std::string MemoryLevelChoices() { return ChoicesIn(kMemoryLevels); }

}  // namespace rprof

#endif  // RPROF_CORE_MEMORY_LEVEL_H_
