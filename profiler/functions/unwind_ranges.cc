#include "functions/unwind_ranges.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdlib>

namespace rprof {

struct UnwindRanges::File {
  int fd = -1;
  Elf* elf = nullptr;
  Dwarf_CFI* cfi = nullptr;  // owned by `elf`'s libdw state: freed with dwarf_cfi_end
  ~File() {
    if (cfi != nullptr) dwarf_cfi_end(cfi);
    if (elf != nullptr) elf_end(elf);
    if (fd >= 0) close(fd);
  }
};

UnwindRanges::UnwindRanges() { elf_version(EV_CURRENT); }
UnwindRanges::~UnwindRanges() = default;

std::optional<uint64_t> UnwindRanges::FunctionStart(const std::string& path, uint64_t address) {
  auto it = files_.find(path);
  if (it == files_.end()) {
    auto file = std::make_unique<File>();
    if (!path.empty() && path[0] == '/') {
      file->fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (file->fd >= 0) file->elf = elf_begin(file->fd, ELF_C_READ_MMAP, nullptr);
      if (file->elf != nullptr) file->cfi = dwarf_getcfi_elf(file->elf);
    }
    it = files_.emplace(path, std::move(file)).first;
  }
  File& file = *it->second;
  if (file.cfi == nullptr) return std::nullopt;
  Dwarf_Frame* frame = nullptr;
  if (dwarf_cfi_addrframe(file.cfi, address, &frame) != 0 || frame == nullptr) return std::nullopt;
  Dwarf_Addr start = 0, end = 0;
  bool signal = false;
  int ok = dwarf_frame_info(frame, &start, &end, &signal);
  std::free(frame);
  if (ok < 0) return std::nullopt;
  return static_cast<uint64_t>(start);
}

}  // namespace rprof
