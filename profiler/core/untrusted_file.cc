#include "core/untrusted_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rprof {

namespace {

const char* KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

// The length of the longest prefix of `text` of at most `max_bytes` that does not cut a UTF-8
// sequence in two.
size_t CharacterBoundary(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text.size();
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return n;
}

std::string Mebibytes(size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

UntrustedRead ReadUntrustedFile(const std::string& path, size_t max_bytes, std::string* text,
                                Error* why) {
  text->clear();
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT) return UntrustedRead::kAbsent;
    if (errno == ELOOP)
      Fail(why, ErrorKind::kTargetFailed,
           "is a symbolic link (rprof does not follow one the program made)");
    else
      Fail(why, ErrorKind::kEnvironment, std::string("cannot be opened: ") + std::strerror(errno));
    return UntrustedRead::kRefused;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    Fail(why, ErrorKind::kTargetFailed,
         std::string("is ") + KindOf(st.st_mode) + ", not a regular file");
    close(fd);
    return UntrustedRead::kRefused;
  }
  if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
    Fail(why, ErrorKind::kTargetFailed,
         "is " + std::to_string(st.st_size) + " bytes, over rprof's bound of " +
             Mebibytes(max_bytes));
    close(fd);
    return UntrustedRead::kRefused;
  }
  // The size may grow while it is read (the program's children may still write): read at most
  // one byte past the bound to know.
  text->reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Fail(why, ErrorKind::kEnvironment, std::string("cannot be read: ") + std::strerror(errno));
      close(fd);
      text->clear();
      return UntrustedRead::kRefused;
    }
    if (n == 0) break;
    if (text->size() + static_cast<size_t>(n) > max_bytes) {
      Fail(why, ErrorKind::kTargetFailed,
           "grew past rprof's bound of " + Mebibytes(max_bytes) + " while it was read");
      close(fd);
      text->clear();
      text->shrink_to_fit();
      return UntrustedRead::kRefused;
    }
    text->append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return UntrustedRead::kRead;
}

std::string Excerpt(std::string_view text, size_t max_bytes) {
  size_t kept = CharacterBoundary(text, max_bytes);
  std::string out(text.substr(0, kept));
  if (kept < text.size()) out += "… (" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string QuotedExcerpt(std::string_view text, size_t max_bytes) {
  size_t kept = CharacterBoundary(text, max_bytes);
  std::string out = "'";
  out.append(text.substr(0, kept));
  out.push_back('\'');
  if (kept < text.size()) out += "… (" + std::to_string(text.size()) + " bytes)";
  return out;
}

void CapNote(std::string* note) {
  if (note->size() <= kMaxNoteBytes) return;
  const std::string tail = "… (note cut: " + std::to_string(note->size()) + " bytes in all)";
  size_t kept = CharacterBoundary(*note, kMaxNoteBytes - tail.size());
  note->resize(kept);
  *note += tail;
}

}  // namespace rprof
