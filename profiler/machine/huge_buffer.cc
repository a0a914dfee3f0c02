#include "machine/huge_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

namespace rprof {
namespace {
constexpr uint64_t kPage = 4096;
constexpr uint64_t kHugePage = 2ull << 20;
}  // namespace

HugeBuffer::~HugeBuffer() { Release(); }

HugeBuffer::HugeBuffer(HugeBuffer&& other) noexcept { *this = std::move(other); }

HugeBuffer& HugeBuffer::operator=(HugeBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(map_, other.map_);
    std::swap(map_bytes_, other.map_bytes_);
    std::swap(touched_, other.touched_);
    std::swap(reserved_, other.reserved_);
  }
  return *this;
}

namespace {
// Whole 2 MiB pages, so that even a small buffer can be one huge page: a 256 KiB chase over
// 4 KiB pages would already miss the first-level TLB and read as a slower cache.
uint64_t WholeHugePages(uint64_t bytes) {
  if (bytes == 0) bytes = kHugePage;
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}
}  // namespace

bool HugeBuffer::Allocate(uint64_t bytes, Error* err) { return Allocate(bytes, 0, err); }

bool HugeBuffer::Allocate(uint64_t bytes, uint64_t reserve, Error* err) {
  Release();
  bytes = WholeHugePages(bytes);
  const uint64_t reserved = std::max(bytes, WholeHugePages(reserve));
  uint64_t map_bytes = reserved + kHugePage;  // room to align the start
  // MAP_NORESERVE: the reserve is address space; only what is touched takes memory.
  void* p = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | (reserved > bytes ? MAP_NORESERVE : 0), -1, 0);
  if (p == MAP_FAILED) {
    Fail(err, ErrorKind::kEnvironment,
         "cannot map " + std::to_string(bytes >> 20) + " MiB: " + std::strerror(errno));
    return false;
  }
  map_ = p;
  map_bytes_ = map_bytes;
  uintptr_t start = reinterpret_cast<uintptr_t>(p);
  start = (start + kHugePage - 1) / kHugePage * kHugePage;
  // Advice only: without THP (or with THP "never") the buffer works with small pages.
  madvise(reinterpret_cast<void*>(start), reserved, MADV_HUGEPAGE);
  data_ = reinterpret_cast<char*>(start);
  size_ = bytes;
  reserved_ = reserved;
  touched_ = 0;
  return true;
}

bool HugeBuffer::Ensure(uint64_t bytes, Error* err) {
  if (bytes > size_) {
    if (map_ != nullptr && WholeHugePages(bytes) <= reserved_) {
      size_ = WholeHugePages(bytes);
    } else if (!Allocate(bytes, err)) {
      return false;
    }
  }
  Touch();
  return true;
}

void HugeBuffer::Touch() {
  // A different value in every page: pages of identical content (all zeros) can be merged behind
  // our back (KSM in the host of a VM), and then reads come from one cached page and writes take
  // copy-on-write faults. A double, as the bandwidth kernels read it: the page number as an
  // integer is a subnormal double, and the triad kernel's multiply of one took a microcode assist
  // each pass on an Intel Xeon (its L1 ceiling 282 GB/s, against 455 with normal numbers).
  for (uint64_t off = touched_; off < size_; off += kPage) {
    *reinterpret_cast<volatile double*>(data_ + off) = static_cast<double>(off / kPage + 1);
  }
  touched_ = std::max(touched_, size_);
}

void HugeBuffer::Release() {
  if (map_ != nullptr) munmap(map_, map_bytes_);
  map_ = nullptr;
  data_ = nullptr;
  size_ = 0;
  map_bytes_ = 0;
  touched_ = 0;
  reserved_ = 0;
}

uint64_t AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kib) == 1) {
      return static_cast<uint64_t>(kib) << 10;
    }
  }
  return 0;
}

}  // namespace rprof
