// Finds metric-group files: <data_dir>/<pmu>/<GROUP>.txt as shipped, overridden file by file by
// <user_dir>/<pmu>/<GROUP>.txt (by default $XDG_CONFIG_HOME/rprof/groups, else
// ~/.config/rprof/groups). A user file with a new name adds a group; one with a shipped name
// replaces that group whole.
#ifndef RPROF_COUNTERS_PMU_GROUP_LIBRARY_H_
#define RPROF_COUNTERS_PMU_GROUP_LIBRARY_H_

#include <string>
#include <vector>

#include "core/error.h"
#include "counters/pmu/metric_group.h"

namespace rprof {

class GroupLibrary {
 public:
  // data_dir: the shipped groups (the source tree's profiler/counters/groups or the installed
  // <datadir>/rprof/groups). user_dir: the override root; "" means DefaultUserDir(). Neither has
  // to exist: a missing directory simply holds no groups.
  GroupLibrary(std::string data_dir, std::string user_dir = "");

  // $XDG_CONFIG_HOME/rprof/groups, or $HOME/.config/rprof/groups; "" when neither is set.
  static std::string DefaultUserDir();

  // The PMU whose groups apply: host_pmu when some group exists for it, else "generic". Pass
  // HostCorePmuName() ("" on a machine without a usable PMU, which gives "generic").
  std::string ResolvePmu(const std::string& host_pmu) const;

  // The PMU names that have at least one group (shipped or user), sorted.
  std::vector<std::string> ListPmus() const;

  // The group names for pmu (shipped and user, each once), sorted. Empty for an unknown pmu.
  std::vector<std::string> ListGroups(const std::string& pmu) const;

  // The file LoadGroup would read for (pmu, name): the user's when it exists, else the shipped
  // one; "" when there is none.
  std::string PathOf(const std::string& pmu, const std::string& name) const;

  // The group of pmu that `name` means, exactly or case-insensitively when that is unambiguous
  // ("flops_dp" finds FLOPS_DP); "" when pmu has no such group.
  std::string FindGroup(const std::string& pmu, const std::string& name) const;

  // Loads and validates group name of pmu. name matches exactly, or case-insensitively when that
  // is unambiguous ("flops_dp" finds FLOPS_DP). On failure *err says why: an unknown group (usage)
  // names the groups that exist with a "did you mean", a broken file gives its path and line, a
  // file whose PMU line differs from its directory is refused.
  [[nodiscard]] bool LoadGroup(const std::string& pmu, const std::string& name, MetricGroup* group,
                               Error* err) const;

  const std::string& data_dir() const { return data_dir_; }
  const std::string& user_dir() const { return user_dir_; }

 private:
  std::string data_dir_;
  std::string user_dir_;
};

}  // namespace rprof

#endif  // RPROF_COUNTERS_PMU_GROUP_LIBRARY_H_
