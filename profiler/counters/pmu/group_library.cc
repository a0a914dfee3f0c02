#include "counters/pmu/group_library.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/spelling.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

constexpr const char* kExtension = ".txt";

// Group names found in one directory (files <NAME>.txt with a valid name).
std::set<std::string> GroupsIn(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return names;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != kExtension) continue;
    if (!entry.is_regular_file(ec)) continue;
    std::string stem = entry.path().stem().string();
    if (IsValidGroupName(stem)) names.insert(stem);
  }
  return names;
}

std::set<std::string> PmusIn(const std::string& root) {
  std::set<std::string> pmus;
  std::error_code ec;
  if (root.empty() || !fs::is_directory(root, ec)) return pmus;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.is_directory(ec) && !GroupsIn(entry.path()).empty())
      pmus.insert(entry.path().filename().string());
  }
  return pmus;
}

bool EqualsIgnoreCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

GroupLibrary::GroupLibrary(std::string data_dir, std::string user_dir)
    : data_dir_(std::move(data_dir)),
      user_dir_(user_dir.empty() ? DefaultUserDir() : std::move(user_dir)) {}

std::string GroupLibrary::DefaultUserDir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  // The XDG spec says a relative value is invalid and must be ignored.
  if (xdg && xdg[0] == '/') return (fs::path(xdg) / "rprof" / "groups").string();
  const char* home = std::getenv("HOME");
  if (home && home[0] != '\0') return (fs::path(home) / ".config" / "rprof" / "groups").string();
  return "";
}

std::string GroupLibrary::ResolvePmu(const std::string& host_pmu) const {
  if (!host_pmu.empty() && !ListGroups(host_pmu).empty()) return host_pmu;
  return std::string(kGenericPmu);
}

std::vector<std::string> GroupLibrary::ListPmus() const {
  std::set<std::string> pmus = PmusIn(data_dir_);
  pmus.merge(PmusIn(user_dir_));
  return {pmus.begin(), pmus.end()};
}

std::vector<std::string> GroupLibrary::ListGroups(const std::string& pmu) const {
  // A PMU name is one path component; anything else would let "../x" escape the data dir.
  if (pmu.empty() || pmu.find('/') != std::string::npos || pmu == "." || pmu == "..") return {};
  std::set<std::string> names = GroupsIn(fs::path(data_dir_) / pmu);
  if (!user_dir_.empty()) names.merge(GroupsIn(fs::path(user_dir_) / pmu));
  return {names.begin(), names.end()};
}

std::string GroupLibrary::PathOf(const std::string& pmu, const std::string& name) const {
  if (!IsValidGroupName(name) || ListGroups(pmu).empty()) return "";
  std::error_code ec;
  if (!user_dir_.empty()) {
    fs::path user = fs::path(user_dir_) / pmu / (name + kExtension);
    if (fs::is_regular_file(user, ec)) return user.string();
  }
  fs::path shipped = fs::path(data_dir_) / pmu / (name + kExtension);
  if (fs::is_regular_file(shipped, ec)) return shipped.string();
  return "";
}

std::string GroupLibrary::FindGroup(const std::string& pmu, const std::string& name) const {
  std::vector<std::string> groups = ListGroups(pmu);
  if (std::find(groups.begin(), groups.end(), name) != groups.end()) return name;
  std::string match;
  for (const auto& g : groups)
    if (EqualsIgnoreCase(g, name)) match = g;
  return match;
}

bool GroupLibrary::LoadGroup(const std::string& pmu, const std::string& name, MetricGroup* group,
                             Error* err) const {
  std::vector<std::string> groups = ListGroups(pmu);
  if (groups.empty()) {
    std::vector<std::string> pmus = ListPmus();
    return Fail(err, ErrorKind::kEnvironment,
                "no metric groups for PMU '" + pmu + "' in " + data_dir_ +
                    (user_dir_.empty() ? "" : " or " + user_dir_) + DidYouMean(pmu, pmus));
  }
  std::string match = FindGroup(pmu, name);
  if (match.empty()) {
    std::string list;
    for (const auto& g : groups) list += (list.empty() ? "" : ", ") + g;
    // Group names are upper case; compare the user's spelling the same way.
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return Fail(err, ErrorKind::kUsage,
                "unknown metric group '" + name + "' for " + pmu + " (groups: " + list + ")" +
                    DidYouMean(upper, groups));
  }
  std::string path = PathOf(pmu, match);
  if (!LoadMetricGroupFile(path, group, err)) return false;
  if (group->pmu != pmu) {
    return Fail(err, ErrorKind::kEnvironment,
                path + ": the file says PMU " + group->pmu + " but lives in the directory of " +
                    pmu + "; its events would not match this machine");
  }
  return true;
}

}  // namespace rprof
