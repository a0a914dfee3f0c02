#include "counters/time_adaptive.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace rprof {

bool IsGoogleBenchmarkBinary(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool found = false;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    size_t size = static_cast<size_t>(st.st_size);
    void* data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data != MAP_FAILED) {
      // Linked dynamically: the library's name is in the dynamic section; statically: the
      // library's flag names are in the binary's strings.
      for (const char* mark : {"libbenchmark.so", "benchmark_min_time"})
        found = found || memmem(data, size, mark, strlen(mark)) != nullptr;
      munmap(data, size);
    }
  }
  close(fd);
  return found;
}

std::optional<std::string> WorkMismatch(std::optional<double> native_instructions,
                                        std::optional<double> replay_instructions) {
  if (!native_instructions || !replay_instructions || *native_instructions <= 0 ||
      *replay_instructions <= 0)
    return std::nullopt;
  double ratio = *replay_instructions / *native_instructions;
  if (ratio >= 0.5 && ratio <= 2) return std::nullopt;
  char text[200];
  std::snprintf(text, sizeof text,
                "under valgrind the program executed %.3g instructions, natively %.3g (%.2gx): "
                "its work depends on its speed",
                *replay_instructions, *native_instructions, ratio);
  return std::string(text);
}

}  // namespace rprof
