#include "store/closed_list_sync.h"

#include <array>
#include <cstddef>
#include <map>
#include <string_view>
#include <utility>

#include "core/run.h"
#include "core/source.h"
#include "core/stored_names.h"
#include "core/target_kind.h"

namespace rprof {

namespace {

// name -> its second column (text, or preference as text), as wanted or as stored.
using Rows = std::map<std::string, std::string>;

bool Stored(Database* db, const std::string& table, const std::string& column, Rows* rows,
            Error* err) {
  return db->ForEachRow("SELECT name, " + column + " FROM " + table, err,
                        [&](const Statement& s) { (*rows)[s.Text(0)] = s.Text(1); });
}

// Upserts what differs: one transaction, only when something does.
bool Bring(Database* db, const std::string& table, const std::string& column, const Rows& wanted,
           Error* err) {
  Rows stored;
  if (!Stored(db, table, column, &stored, err)) return false;
  std::vector<std::pair<std::string, std::string>> changes;
  for (const auto& [name, value] : wanted) {
    auto it = stored.find(name);
    if (it == stored.end() || it->second != value) changes.emplace_back(name, value);
  }
  if (changes.empty()) return true;
  Transaction txn(db);
  if (!txn.Begin(err)) return false;
  const std::string sql = "INSERT INTO " + table + " (name, " + column + ") VALUES (?, ?) " +
                          "ON CONFLICT(name) DO UPDATE SET " + column + " = excluded." + column;
  for (const auto& [name, value] : changes)
    if (!db->Run(sql, err, name, value)) return false;
  return txn.Commit(err);
}

template <size_t N>
Rows Named(const std::array<StoredName, N>& list) {
  Rows rows;
  for (const StoredName& entry : list) rows[std::string(entry.name)] = std::string(entry.text);
  return rows;
}

}  // namespace

bool SyncClosedLists(Database* db, Error* err) {
  Rows kinds, statuses, sources, trust_kinds;
  for (const TargetKindInfo& k : kTargetKinds) kinds[std::string(k.name)] = std::string(k.text);
  for (const RunStatusInfo& s : kRunStatuses) statuses[s.name] = s.text;
  // run_summary prefers a metric's value by this order: the counting sources as core/source.h
  // lists them, then the clock.
  int preference = 0;
  for (Source source : CountingSources())
    sources[std::string(SourceName(source))] = std::to_string(++preference);
  sources[std::string(SourceName(Source::kClock))] = std::to_string(++preference);
  for (const TrustKindInfo& k : kTrustKinds) trust_kinds[k.name] = k.text;
  return Bring(db, "target_kinds", "text", kinds, err) &&
         Bring(db, "trust_kinds", "text", trust_kinds, err) &&
         Bring(db, "run_statuses", "text", statuses, err) &&
         Bring(db, "sources", "preference", sources, err) &&
         Bring(db, "profile_modes", "text", Named(kProfileModes), err) &&
         Bring(db, "ceiling_kinds", "text", Named(kCeilingKinds), err) &&
         Bring(db, "level_size_rules", "text", Named(kLevelSizeRules), err) &&
         Bring(db, "cache_inclusions", "text", Named(kCacheInclusions), err) &&
         Bring(db, "cache_size_origins", "text", Named(kCacheSizeOrigins), err);
}

}  // namespace rprof
