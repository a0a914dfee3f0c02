#include "cli/command_context.h"

#include <unistd.h>

#include <utility>

namespace rprof {

CommandContext::CommandContext(const GlobalOptions& global, DatabasePath db, const Command& command)
    : global_(global), db_(std::move(db)), command_(&command), needs_(command.needs) {}

void CommandContext::EnterMode(const std::string& mode) {
  for (const CommandMode& m : command_->modes)
    if (mode == m.name) needs_ = m.needs;
}

RunStore* CommandContext::Store(Error* err) {
  if (opened_) return &store_;
  bool ok = false;
  switch (needs_) {
    case Needs::kNothing:
      Fail(err, ErrorKind::kEnvironment,
           std::string("internal: the command table says ") + command_->name +
               " needs no database, yet it asked for one");
      return nullptr;
    case Needs::kReadOnlyStore:
      ok = store_.OpenReadOnly(db_, err);
      break;
    case Needs::kExistingStore:
      ok = store_.OpenExisting(db_, err);
      break;
    case Needs::kWritableStore:
      ok = store_.Open(db_, err);
      break;
  }
  opened_ = ok;
  return ok ? &store_ : nullptr;
}

RunStore* CommandContext::StoreIfExists(bool* exists, Error* err) {
  *exists = opened_ || access(db_.path.c_str(), F_OK) == 0;
  if (!*exists) return nullptr;
  if (opened_) return &store_;
  opened_ = store_.OpenReadOnly(db_, err);
  return opened_ ? &store_ : nullptr;
}

RunStore* CommandContext::StoreView(Error* err) {
  if (view_) return view_.get();
  // A store whose opening failed is dropped whole (its connection closed), so a later call
  // opens a fresh one.
  auto view = std::make_unique<RunStore>();
  if (!view->OpenExisting(db_, err)) return nullptr;
  view_ = std::move(view);
  return view_.get();
}

}  // namespace rprof
