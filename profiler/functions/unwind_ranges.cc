#include "functions/unwind_ranges.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace rprof {
namespace {

// DWARF's pointer encodings (DW_EH_PE_*), the ones .eh_frame_hdr uses.
constexpr uint8_t kOmit = 0xff, kFormat = 0x0f, kApplication = 0x70;
constexpr uint8_t kDataRel = 0x30;

// The size of a fixed-size encoded value (absptr, [us]data2/4/8); 0 for any other.
size_t EncodedSize(uint8_t encoding) {
  switch (encoding & kFormat) {
    case 0x00:
    case 0x04:
    case 0x0c:
      return 8;
    case 0x02:
    case 0x0a:
      return 2;
    case 0x03:
    case 0x0b:
      return 4;
    default:
      return 0;
  }
}

// A value of type T at p, which may be unaligned.
template <typename T>
int64_t Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<int64_t>(v);
}

int64_t ReadEncoded(const uint8_t* p, uint8_t encoding) {
  switch (encoding & kFormat) {
    case 0x02:
      return Load<uint16_t>(p);
    case 0x0a:
      return Load<int16_t>(p);
    case 0x03:
      return Load<uint32_t>(p);
    case 0x0b:
      return Load<int32_t>(p);
    default:
      return Load<int64_t>(p);
  }
}

// Every FDE's start, from .eh_frame_hdr's binary-search table (which the linker writes sorted,
// one entry per FDE): the starts of the functions. Empty when the file has no such table in the
// encoding every x86-64 linker writes (datarel, fixed size).
std::vector<uint64_t> FdeStarts(Elf* elf) {
  std::vector<uint64_t> starts;
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return starts;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_PROGBITS) continue;
    const char* name = elf_strptr(elf, names, sh.sh_name);
    if (name == nullptr || std::strcmp(name, ".eh_frame_hdr") != 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr || data->d_size < 4) return starts;
    const auto* p = static_cast<const uint8_t*>(data->d_buf);
    const uint8_t* end = p + data->d_size;
    uint8_t version = p[0], frame_enc = p[1], count_enc = p[2], table_enc = p[3];
    size_t frame_size = EncodedSize(frame_enc), count_size = EncodedSize(count_enc);
    size_t entry_size = EncodedSize(table_enc);
    if (version != 1 || frame_enc == kOmit || count_enc == kOmit || frame_size == 0 ||
        count_size == 0 || entry_size == 0 || (table_enc & kApplication) != kDataRel)
      return starts;
    const uint8_t* at = p + 4 + frame_size;
    if (at + count_size > end) return starts;
    int64_t count = ReadEncoded(at, count_enc);
    at += count_size;
    if (count <= 0 ||
        static_cast<uint64_t>(count) > static_cast<uint64_t>(end - at) / (2 * entry_size))
      return starts;
    starts.reserve(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i, at += 2 * entry_size)
      starts.push_back(sh.sh_addr + static_cast<uint64_t>(ReadEncoded(at, table_enc)));
    std::sort(starts.begin(), starts.end());
    return starts;
  }
  return starts;
}

}  // namespace

struct UnwindRanges::File {
  int fd = -1;
  Elf* elf = nullptr;
  Dwarf_CFI* cfi = nullptr;  // owned by `elf`'s libdw state: freed with dwarf_cfi_end
  std::vector<uint64_t> starts;
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
      if (file->elf != nullptr) {
        file->cfi = dwarf_getcfi_elf(file->elf);
        file->starts = FdeStarts(file->elf);
      }
    }
    it = files_.emplace(path, std::move(file)).first;
  }
  File& file = *it->second;
  if (file.cfi == nullptr || file.starts.empty()) return std::nullopt;
  // Whether an FDE covers the address at all (code in no FDE belongs to no function known here).
  // The frame's own range is not the function's: it is one row of the unwind table, which
  // changes at every push and pop (issue 37: one function became five).
  Dwarf_Frame* frame = nullptr;
  if (dwarf_cfi_addrframe(file.cfi, address, &frame) != 0 || frame == nullptr) return std::nullopt;
  std::free(frame);
  // FDEs do not overlap: the one covering the address is the last to start at or below it.
  auto after = std::upper_bound(file.starts.begin(), file.starts.end(), address);
  if (after == file.starts.begin()) return std::nullopt;
  return *(after - 1);
}

}  // namespace rprof
