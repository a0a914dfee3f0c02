// Page-aligned anonymous memory for the bandwidth and latency kernels: 2 MiB-aligned and marked
// MADV_HUGEPAGE when large, so that transparent huge pages (where the kernel allows them) keep TLB
// misses out of the cache measurements.
#ifndef RPROF_MACHINE_HUGE_BUFFER_H_
#define RPROF_MACHINE_HUGE_BUFFER_H_

#include <cstdint>
#include <string>

#include "core/error.h"

namespace rprof {

class HugeBuffer {
 public:
  HugeBuffer() = default;
  ~HugeBuffer();
  HugeBuffer(HugeBuffer&& other) noexcept;
  HugeBuffer& operator=(HugeBuffer&& other) noexcept;
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;

  // Maps `bytes` (rounded up to whole 2 MiB) of zeroed memory, replacing any previous mapping,
  // 2 MiB-aligned and advised MADV_HUGEPAGE. The pages are not touched:
  // call Touch from the thread that will use them (first touch decides the NUMA node). Returns
  // false and sets *err when mmap fails.
  [[nodiscard]] bool Allocate(uint64_t bytes, Error* err);
  // Makes the buffer at least `bytes` long, every page touched (Touch). Within the address
  // space reserved by the last Allocate (its `reserve`), it grows in place, keeping what was
  // written and touching only the new pages; beyond it, it is allocated again. A sweep from
  // small to large working sets so zeroes and touches each page once, not once per growth.
  [[nodiscard]] bool Ensure(uint64_t bytes, Error* err);
  // As Allocate, with address space reserved (not committed) for Ensure to grow into.
  [[nodiscard]] bool Allocate(uint64_t bytes, uint64_t reserve, Error* err);
  // Writes the first 8 bytes of every 4 KiB page not touched yet, a different value in each, so
  // the kernels never take a page fault and no two pages are identical (identical pages can be
  // merged, see huge_buffer.cc).
  void Touch();
  void Release();

  char* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  char* data_ = nullptr;   // aligned start
  uint64_t size_ = 0;      // usable bytes from data_
  uint64_t touched_ = 0;   // bytes from data_ that Touch has written
  uint64_t reserved_ = 0;  // bytes from data_ that the mapping can grow to
  void* map_ = nullptr;    // what mmap returned
  uint64_t map_bytes_ = 0;
};

// Bytes the kernel reports as available for new allocations (MemAvailable in /proc/meminfo);
// 0 when unknown.
uint64_t AvailableMemoryBytes();

}  // namespace rprof

#endif  // RPROF_MACHINE_HUGE_BUFFER_H_
