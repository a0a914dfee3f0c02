// What main() hands a command: the global options, the database path resolved once, and the
// store opened the way the command's table row (cli/commands.cc) declares, on first use. A
// command never opens the runs database itself, so what it may do to the file is read off the
// table, and `--help` or a usage error, found before the first use, never touches the file.
#ifndef RPROF_CLI_COMMAND_CONTEXT_H_
#define RPROF_CLI_COMMAND_CONTEXT_H_

#include <memory>
#include <string>

#include "cli/command.h"
#include "core/error.h"
#include "store/run_store.h"

namespace rprof {

class CommandContext {
 public:
  // `command` is a row of Commands(), which outlives the context.
  CommandContext(const GlobalOptions& global, DatabasePath db, const Command& command);
  CommandContext(const CommandContext&) = delete;
  CommandContext& operator=(const CommandContext&) = delete;

  const GlobalOptions& global() const { return global_; }
  // The runs database's path, for what works with the path rather than the store: a run's
  // session (a rank stores into its job's database, chosen from it), the ranks' launcher.
  const DatabasePath& database_path() const { return db_; }
  // What the command needs now: its row's, or its mode's once EnterMode named one.
  Needs needs() const { return needs_; }

  // A subcommand (`machine measure`) or a mode option (`calibrate --show`) whose needs differ
  // from its command's, as the row's `modes` lists them; a name not listed keeps the
  // command's. Call before Store().
  void EnterMode(const std::string& mode);

  // The runs database, opened on the first call as needs() says (store/run_store.h: Open for
  // a writable store, created if missing; OpenExisting; OpenReadOnly) and the same store after.
  // Null with *err on failure (kEnvironment, naming the path), or when the command declared
  // no store (an internal error: its row is wrong).
  [[nodiscard]] RunStore* Store(Error* err);

  // doctor's look: the database opened read-only when the file exists, whatever the row
  // declares; null both when it does not (*exists false, *err untouched) and when it cannot
  // be read (*exists true, *err says why). Creates nothing. A command uses this or Store(),
  // not both: the store stays open the way it was first opened.
  [[nodiscard]] RunStore* StoreIfExists(bool* exists, Error* err);

  // What other processes stored in the runs database (a parallel job's ranks), for a command
  // whose own writes go through another connection (run: its session's store, and its
  // launcher, which stores nothing): a connection of its own beside Store()'s, whatever the
  // row declares, opened as an existing store is (RunStore::OpenExisting: never creating the
  // file; query-only once its schema is current), on the first call that finds the file, and
  // the same after. Each read sees what was committed before it. Null with *err (kEnvironment,
  // naming the path) while the file is missing or cannot be read: a later call tries again.
  [[nodiscard]] RunStore* StoreView(Error* err);

 private:
  GlobalOptions global_;
  DatabasePath db_;
  const Command* command_;
  Needs needs_;
  RunStore store_;
  bool opened_ = false;
  std::unique_ptr<RunStore> view_;  // StoreView()'s, once opened
};

}  // namespace rprof

#endif  // RPROF_CLI_COMMAND_CONTEXT_H_
