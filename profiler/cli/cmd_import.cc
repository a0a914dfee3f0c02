// rprof import FILE...: runs saved as JSON stored in the database: a recovery file (a run the
// database could not take when it was measured), `rprof show N --format json` or
// `rprof history --format json` of another database. Each file is stored in one transaction,
// and a run already stored (the same uid) is stored once, so importing twice is harmless.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/options.h"
#include "report/run_from_json.h"
#include "store/recovery_file.h"
#include "store/run_store.h"

namespace rprof {

namespace {

// Far above any run's JSON (a run of many regions is a few MiB), far below what would exhaust
// memory: a file this large is not a run.
constexpr uintmax_t kLargestRunFile = 256u << 20;

struct RunFile {
  std::string path;
  std::vector<RunRecord> runs;
};

const char kWhatImportTakes[] =
    "import takes the JSON of `rprof show N --format json`, of `rprof history --format json` or "
    "a recovery file";

bool ReadRunFile(const std::string& path, RunFile* out, Error* err) {
  out->path = path;
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return Fail(err, ErrorKind::kUsage, path + ": cannot read it: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return Fail(err, ErrorKind::kUsage, path + ": not a file; " + kWhatImportTakes);
  if (static_cast<uintmax_t>(st.st_size) > kLargestRunFile)
    return Fail(err, ErrorKind::kUsage,
                path + ": not a run JSON (" + std::to_string(st.st_size >> 20) +
                    " MiB, larger than any run); " + kWhatImportTakes);
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof())
    return Fail(err, ErrorKind::kUsage, path + ": cannot read it: " + std::strerror(errno));
  Error why;
  if (!RunsFromJsonText(text, &out->runs, &why))
    return Fail(err, ErrorKind::kUsage,
                path + ": not a run JSON (" + why.message + "); " + kWhatImportTakes);
  return true;
}

// "FILE: stored as run 12", one line per run; the run's place in the file when it holds many.
void PrintOutcome(const RunFile& file, const std::vector<RunStore::Imported>& results) {
  bool recovery = InRecoveryDirectory(file.path);
  for (size_t i = 0; i < results.size(); ++i) {
    const RunStore::Imported& r = results[i];
    std::cout << file.path;
    if (results.size() > 1) std::cout << " [" << i + 1 << "/" << results.size() << "]";
    std::cout << (r.already_stored ? ": already stored as run " : ": stored as run ") << r.run_id;
    if (r.placement_dropped)
      std::cout << " (without its stored placement: its machine profile is not in this database;"
                   " `rprof show` places it against this database's)";
    std::cout << "\n";
  }
  // Kept, not deleted: the user may have imported into the wrong database, and a second
  // import of the file is harmless.
  if (recovery) std::cout << file.path << ": stored; this recovery file can be deleted now\n";
}

}  // namespace

bool ImportCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("import", "FILE...",
                 "Stores runs saved as JSON: recovery files (runs measured when the database "
                 "could not take them, under " +
                     RecoveryDirectory() +
                     "), or the JSON of `rprof show N --format json` and `rprof history --format "
                     "json` from another database. Each file is stored in one transaction; a run "
                     "already stored (the same uid) is not stored again.",
                 CommandLine::Format::kNone);
  std::vector<std::string> paths;
  cl.AddPositional("file", po::value(&paths)->composing(), "run JSON files", -1);
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  if (paths.empty())
    return Fail(
        err, ErrorKind::kUsage,
        "import: name the files to import, e.g. rprof import " + RecoveryDirectory() + "/*.json");

  // Every file is read before the database is opened: a wrong one stores nothing and creates
  // no database.
  std::vector<RunFile> files(paths.size());
  for (size_t i = 0; i < paths.size(); ++i)
    if (!ReadRunFile(paths[i], &files[i], err)) return false;

  RunStore* opened = context.Store(err);
  if (!opened) return false;
  RunStore& store = *opened;
  for (size_t i = 0; i < files.size(); ++i) {
    std::vector<RunStore::Imported> results;
    if (!store.Import(&files[i].runs, &results, err)) {
      err->message += "; nothing of " + files[i].path + " was stored" +
                      (i > 0 ? " (the " + std::to_string(i) + " files before it were)" : "") +
                      ": import it again once the database can take it";
      return false;
    }
    PrintOutcome(files[i], results);
  }
  return true;
}

}  // namespace rprof
