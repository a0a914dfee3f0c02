// The database's copies of rprof's closed lists (schemas 018, 021, 023): target kinds, run
// statuses, sources and trust kinds, each a table the runs' columns reference; profile modes,
// ceiling kinds, level size rules, cache inclusions and size origins, which profiles' and
// simulated geometries' columns reference. rprof's own lists (core/target_kind.h, core/run.h,
// core/source.h, core/stored_names.h) are the truth; at every read-write open each table is
// brought up to them, so a new entry is a line of C++ and no migration.
#ifndef RPROF_STORE_CLOSED_LIST_SYNC_H_
#define RPROF_STORE_CLOSED_LIST_SYNC_H_

#include <string>

#include "core/error.h"
#include "store/database.h"

namespace rprof {

// Adds every entry the tables lack and updates a changed text or preference (the counting
// sources' order of preference, which run_summary sorts by; the clock after them). Never
// deletes: stored runs may name an entry a later rprof dropped. Reads only, when the tables are
// current (the usual open writes nothing). Fails as the database does (kEnvironment).
[[nodiscard]] bool SyncClosedLists(Database* db, Error* err);

}  // namespace rprof

#endif  // RPROF_STORE_CLOSED_LIST_SYNC_H_
