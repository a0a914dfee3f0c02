#include "store/query_guard.h"

#include <sqlite3.h>

#include <cstring>
#include <string_view>

namespace rprof {

namespace {

// Functions that act outside the database: loading code, a tokenizer given by its address,
// the shell's file functions where an extension adds them.
bool ReachesOutside(std::string_view function) {
  for (std::string_view name :
       {"load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "sqlite_dbpage"})
    if (sqlite3_stricmp(std::string(function).c_str(), std::string(name).c_str()) == 0) return true;
  return false;
}

// PRAGMAs that take an argument and still only read: the schema's description.
bool ReadsWithArgument(std::string_view pragma) {
  for (std::string_view name :
       {"table_info", "table_xinfo", "table_list", "index_info", "index_xinfo", "index_list",
        "foreign_key_list", "function_list", "pragma_list", "collation_list", "module_list"})
    if (sqlite3_stricmp(std::string(pragma).c_str(), std::string(name).c_str()) == 0) return true;
  return false;
}

}  // namespace

QueryGuard::QueryGuard(Database* db) : db_(db) {
  sqlite3_set_authorizer(db_->handle(), &QueryGuard::Authorize, this);
}

QueryGuard::~QueryGuard() { sqlite3_set_authorizer(db_->handle(), nullptr, nullptr); }

int QueryGuard::Authorize(void* self, int action, const char* a, const char* b, const char*,
                          const char*) {
  auto* guard = static_cast<QueryGuard*>(self);
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
    case SQLITE_TRANSACTION:
    case SQLITE_SAVEPOINT:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      if (b == nullptr || !ReachesOutside(b)) return SQLITE_OK;
      guard->refused_ = std::string("the function ") + b;
      return SQLITE_DENY;
    case SQLITE_PRAGMA:
      // "PRAGMA name" reads; "PRAGMA name = value" sets, unless it only describes the schema.
      if (a != nullptr && (b == nullptr || ReadsWithArgument(a))) return SQLITE_OK;
      guard->refused_ = std::string("PRAGMA ") + (a ? a : "") + " = " + (b ? b : "");
      return SQLITE_DENY;
    case SQLITE_ATTACH:
      guard->refused_ = "ATTACH";
      return SQLITE_DENY;
    default:
      guard->refused_write_ = true;
      return SQLITE_DENY;
  }
}

}  // namespace rprof
