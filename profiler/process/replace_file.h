// A file written whole or not at all: the text goes to a temporary file beside it, flushed to
// the disk, then renamed over the old one, so that a kill or a full disk midway leaves the
// previous file as it was (a report, a plot, a recovery file) rather than 0 bytes or half of
// the new one. What is not a regular file (/dev/stdout, a FIFO, /dev/null) is written in
// place: renaming over it would replace the device or the pipe.
#ifndef RPROF_PROCESS_REPLACE_FILE_H_
#define RPROF_PROCESS_REPLACE_FILE_H_

#include <string>
#include <string_view>

#include "core/error.h"

namespace rprof {

// Writes `content` to `path`, whole or not at all. False with *why (kEnvironment; the cause,
// from the system: "No space left on device") when it cannot; `path` is then as it was.
[[nodiscard]] bool ReplaceFile(const std::string& path, std::string_view content, Error* why);

// The temporary name ReplaceFile writes `path` to before the rename, for a tool that writes
// the file itself (rsvg-convert -o): ".NAME.rprof-PID" in the same folder, so the rename never
// crosses file systems. Then CommitReplacement renames it (and removes what writers of the
// same file killed midway left: ".NAME.rprof-PID" of a PID that no longer runs), or
// DropReplacement removes it.
std::string ReplacementPath(const std::string& path);
[[nodiscard]] bool CommitReplacement(const std::string& temporary, const std::string& path,
                                     Error* why);
void DropReplacement(const std::string& temporary);

}  // namespace rprof

#endif  // RPROF_PROCESS_REPLACE_FILE_H_
