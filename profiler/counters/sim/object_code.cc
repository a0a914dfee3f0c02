#include "counters/sim/object_code.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace rprof {

ObjectCode::ObjectCode(ObjectCode&& other) noexcept { *this = std::move(other); }

ObjectCode& ObjectCode::operator=(ObjectCode&& other) noexcept {
  if (this != &other) {
    Reset();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    map_ = std::exchange(other.map_, nullptr);
    position_independent_ = other.position_independent_;
    segments_ = std::move(other.segments_);
  }
  return *this;
}

ObjectCode::~ObjectCode() { Reset(); }

void ObjectCode::Reset() {
  if (map_ != nullptr) munmap(map_, size_);
  map_ = nullptr;
  data_ = nullptr;
  size_ = 0;
  segments_.clear();
  position_independent_ = false;
}

bool ObjectCode::Open(const std::string& path, Error* err) {
  Reset();
  path_ = path;
  // O_NONBLOCK: a FIFO named where an object file was expected must not hang us.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    Fail(err, ErrorKind::kEnvironment, path + ": cannot open: " + std::strerror(errno));
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    Fail(err, ErrorKind::kEnvironment, path + ": cannot stat: " + std::strerror(errno));
    close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode) || st.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr))) {
    Fail(err, ErrorKind::kEnvironment,
         path + ": not an ELF file (not a regular file of at least an ELF header's size)");
    close(fd);
    return false;
  }
  size_t size = static_cast<size_t>(st.st_size);
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int mmap_errno = errno;
  close(fd);
  if (p == MAP_FAILED) {
    Fail(err, ErrorKind::kEnvironment, path + ": cannot map: " + std::strerror(mmap_errno));
    return false;
  }
  map_ = p;
  data_ = static_cast<const uint8_t*>(p);
  size_ = size;
  if (!Parse(err)) {
    Reset();
    return false;
  }
  return true;
}

bool ObjectCode::OpenImage(std::span<const uint8_t> image, const std::string& name, Error* err) {
  Reset();
  path_ = name;
  data_ = image.data();
  size_ = image.size();
  if (!Parse(err)) {
    Reset();
    return false;
  }
  return true;
}

bool ObjectCode::Parse(Error* err) {
  if (size_ < sizeof(Elf64_Ehdr) || std::memcmp(data_, ELFMAG, SELFMAG) != 0) {
    Fail(err, ErrorKind::kEnvironment, path_ + ": not an ELF file");
    return false;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, data_, sizeof eh);  // the image need not be aligned
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    Fail(err, ErrorKind::kEnvironment, path_ + ": not a 64-bit little-endian ELF file");
    return false;
  }
  if (eh.e_machine != EM_X86_64) {
    Fail(err, ErrorKind::kEnvironment,
         path_ + ": ELF for machine " + std::to_string(eh.e_machine) + ", not x86-64");
    return false;
  }
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
    Fail(err, ErrorKind::kEnvironment,
         path_ + ": ELF type " + std::to_string(eh.e_type) +
             " is neither an executable nor a shared object");
    return false;
  }
  position_independent_ = eh.e_type == ET_DYN;

  uint64_t count = eh.e_phnum;
  if (count == PN_XNUM) {
    // The real count is in the first section header's sh_info.
    if (eh.e_shoff == 0 || eh.e_shoff > size_ || size_ - eh.e_shoff < sizeof(Elf64_Shdr)) {
      Fail(err, ErrorKind::kEnvironment,
           path_ + ": program header count escapes to a missing section header");
      return false;
    }
    Elf64_Shdr sh0;
    std::memcpy(&sh0, data_ + eh.e_shoff, sizeof sh0);
    count = sh0.sh_info;
  }
  if (count > 0 && eh.e_phentsize < sizeof(Elf64_Phdr)) {
    Fail(err, ErrorKind::kEnvironment, path_ + ": program header entries are too small");
    return false;
  }
  if (eh.e_phoff > size_ || count > (size_ - eh.e_phoff) / (eh.e_phentsize ? eh.e_phentsize : 1)) {
    Fail(err, ErrorKind::kEnvironment, path_ + ": program headers lie outside the file");
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, data_ + eh.e_phoff + i * eh.e_phentsize, sizeof ph);
    if (ph.p_type != PT_LOAD) continue;
    if (ph.p_offset > size_ || ph.p_filesz > size_ - ph.p_offset) {
      Fail(err, ErrorKind::kEnvironment, path_ + ": a PT_LOAD segment lies outside the file");
      return false;
    }
    if (ph.p_vaddr + ph.p_filesz < ph.p_vaddr) {
      Fail(err, ErrorKind::kEnvironment,
           path_ + ": a PT_LOAD segment wraps around the address space");
      return false;
    }
    Segment s;
    s.vaddr = ph.p_vaddr;
    s.file_offset = ph.p_offset;
    s.file_size = ph.p_filesz;
    s.mem_size = ph.p_memsz;
    s.executable = (ph.p_flags & PF_X) != 0;
    segments_.push_back(s);
  }
  return true;
}

std::span<const uint8_t> ObjectCode::CodeAt(uint64_t vaddr, size_t max_bytes) const {
  for (const Segment& s : segments_) {
    if (!s.executable || vaddr < s.vaddr || vaddr - s.vaddr >= s.file_size) continue;
    uint64_t offset = vaddr - s.vaddr;
    uint64_t left = s.file_size - offset;
    size_t n = left < max_bytes ? static_cast<size_t>(left) : max_bytes;
    return std::span<const uint8_t>(data_ + s.file_offset + offset, n);
  }
  return {};
}

}  // namespace rprof
