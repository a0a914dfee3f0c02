#include "pipeline/unstored_run.h"

#include <cstdio>

#include "report/run_report.h"
#include "store/recovery_file.h"

namespace rprof {

bool SaveUnstoredRun(const RunRecord& run, const DatabasePath& db, Error* err) {
  // The same JSON `rprof show --format json` writes, without a placement against the newest
  // profile: what import needs, nothing it would derive again.
  std::string json = FormatRun(run, OutputFormat::kJson);
  std::string path;
  Error why;
  // The import goes to the same database, also when --db named it.
  std::string import = db.is_default ? "rprof import " : "rprof --db " + db.path + " import ";
  std::string stored = err->message;
  if (WriteRecoveryFile(run, json, &path, &why))
    return Fail(err, ErrorKind::kEnvironment,
                stored +
                    "; the run was measured but not stored, and is NOT lost: it is saved "
                    "whole in " +
                    path + ", and `" + import + path + "` stores it once the database can take it");
  std::fprintf(stderr, "%s", json.c_str());
  return Fail(err, ErrorKind::kEnvironment,
              stored +
                  "; the run was measured but not stored, and could not be saved to a "
                  "recovery file either (" +
                  why.message + "): its JSON is on stderr above; save it to a file, then `" +
                  import + "FILE` stores it");
}

}  // namespace rprof
