// A file a command is told to write (run -o, plot -o, plot --gnuplot), checked before any work:
// a directory that does not exist or cannot be written is said then, in rprof's words, rather
// than after a measurement, or in gnuplot's.
#ifndef RPROF_CLI_OUTPUT_FILE_H_
#define RPROF_CLI_OUTPUT_FILE_H_

#include <string>

#include "core/error.h"

namespace rprof {

// True when `path` can be created or replaced: its directory exists and is writable, and it is
// not itself a directory. kEnvironment otherwise (like a write that fails), naming `option`,
// the path and the reason: "--output /no/dir/r.txt: directory /no/dir does not exist; create it
// or write elsewhere".
bool CheckOutputFile(const std::string& option, const std::string& path, Error* err);

// Where a report goes when no --output FILE was given: a kernel's to standard output (it prints
// nothing of its own), a program's to standard error, as perf stat's (its standard output is
// its own).
enum class ReportStream { kStandardOutput, kStandardError };

// Writes `report` to the file `output` (--output), or to `stream` when `output` is "". False,
// kEnvironment, when it cannot be written: the message names --output FILE and the cause, then
// `stored` (what is safe anyway: "run 12 is stored (rprof show 12)").
bool WriteReport(const std::string& report, const std::string& output, ReportStream stream,
                 const std::string& stored, Error* err);

}  // namespace rprof

#endif  // RPROF_CLI_OUTPUT_FILE_H_
