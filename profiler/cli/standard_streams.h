// Standard input, output and error as rprof relies on them: never closed (so no file rprof
// opens can take their numbers), and a report that does not reach standard output (a full
// disk, /dev/full, a closed descriptor) is an error, exit 3, never a silent exit 0.
#ifndef RPROF_CLI_STANDARD_STREAMS_H_
#define RPROF_CLI_STANDARD_STREAMS_H_

#include <string>

#include "core/error.h"

namespace rprof {

// Call first in main(), before anything opens a file. A standard descriptor that is closed
// would be taken by the next file opened (the database, a --output file), and what rprof
// prints would be written into it. Each closed one gets /dev/null, opened the wrong way round
// (0 write-only, 1 and 2 read-only) so that every use still fails as it did on the closed
// descriptor, and the failed write is reported. False with kEnvironment when /dev/null cannot
// be opened.
bool OpenClosedStandardStreams(Error* err);

// Call next: std::cout writes through stdio's stdout as before (one buffer, so printf and <<
// keep their order), and the reason of the first write that fails is kept, which stdio forgets.
void KeepStandardOutputErrors();

// What a failed report write advises when the command has nothing more specific to say.
extern const char kStandardOutputAdvice[];

// Flushes standard output. False with a kEnvironment error when anything written to it did
// not arrive: "cannot write the report to standard output: <the first failure's reason>;
// <what_to_do>".
bool FlushStandardOutput(Error* err, const std::string& what_to_do = kStandardOutputAdvice);

// The same question without flushing, cheap enough to ask after every row of a long result,
// to stop at the first write that fails.
bool StandardOutputIntact(Error* err, const std::string& what_to_do = kStandardOutputAdvice);

// Writes a report to standard error (a program's run: its standard output is its own) and
// flushes it. False with a kEnvironment error when it did not all arrive: "cannot write the
// report to standard error: <why>; <what_to_do>".
bool WriteStandardError(const std::string& report, Error* err, const std::string& what_to_do);

}  // namespace rprof

#endif  // RPROF_CLI_STANDARD_STREAMS_H_
