// Files a profiled program can write (the marker results file, Google Benchmark's
// --benchmark_out, the shim's iteration count) are untrusted input: the program may have
// swapped one for a symbolic link to /dev/urandom, a FIFO nobody writes, or 300 MB of one line.
// They are opened without following a link and without blocking, taken only when regular, read
// up to a stated bound, and quoted in notes only by short excerpts.
#ifndef RPROF_CORE_UNTRUSTED_FILE_H_
#define RPROF_CORE_UNTRUSTED_FILE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "core/error.h"

namespace rprof {

// The most rprof reads of one such file: beyond it the file's results are refused, the run kept.
constexpr size_t kMaxTargetFileBytes = size_t{64} << 20;
// The most of a run's note that is stored: a note says what went wrong, it is not a log.
constexpr size_t kMaxNoteBytes = size_t{64} << 10;

enum class UntrustedRead {
  kRead,     // *text holds the whole file
  kAbsent,   // no such file: the program wrote none
  kRefused,  // *why: "is a FIFO, not a regular file", "is over 64 MiB", ...
};

// Reads `path` with O_NOFOLLOW | O_NONBLOCK, a regular file only (fstat), at most `max_bytes`.
// A refusal sets *why: kTargetFailed for what the program made of the file (a link, a FIFO, too
// big), kEnvironment when the system cannot open or read it; its message reads after "the file".
[[nodiscard]] UntrustedRead ReadUntrustedFile(const std::string& path, size_t max_bytes,
                                              std::string* text, Error* why);

// At most `max_bytes` of `text` (cut at a character boundary), "…" and its full size after
// when cut; unchanged when it fits.
std::string Excerpt(std::string_view text, size_t max_bytes);

// `text` for a note: at most `max_bytes` of it (cut at a character boundary), "…" and its full
// size after when cut, in single quotes.
std::string QuotedExcerpt(std::string_view text, size_t max_bytes = 200);

// Cuts `note` to kMaxNoteBytes (at a character boundary), saying how much was left out.
void CapNote(std::string* note);

}  // namespace rprof

#endif  // RPROF_CORE_UNTRUSTED_FILE_H_
