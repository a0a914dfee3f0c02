// The machine code of an ELF64 x86-64 object file (executable, PIE or shared object), looked up
// by the instruction addresses callgrind prints.
//
// How callgrind's addresses relate to the file (valgrind 3.19, callgrind/dump.c): an instruction's
// address is written as `runtime address - obj->offset`, where obj->offset is the text bias of the
// object's debug info (load address minus link-time address). So the addresses are the ELF's own
// link-time virtual addresses (p_vaddr space) for every object valgrind has debug info for, which
// is every mapped ELF file, stripped or not: for a non-PIE executable they equal the runtime
// addresses; for a PIE executable or a shared object they do not include the load base (a PIE
// main's code shows up near 0x1000, not 0x55..., checked against objdump). Code without an ELF file
// behind it (JIT code, ob=???) is printed with offset 0, i.e. as a runtime address; such an object
// has no file to open and its instructions stay undecoded.
//
// An address is mapped only when it falls inside the file-backed bytes of an executable PT_LOAD
// segment; anything else is reported as unmapped, never guessed.
#ifndef RPROF_COUNTERS_SIM_OBJECT_CODE_H_
#define RPROF_COUNTERS_SIM_OBJECT_CODE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

class ObjectCode {
 public:
  // A loadable segment of the file.
  struct Segment {
    uint64_t vaddr = 0;  // link-time virtual address of its first byte
    uint64_t file_offset = 0;
    uint64_t file_size = 0;  // bytes present in the file (the rest of mem_size is zero-filled)
    uint64_t mem_size = 0;
    bool executable = false;
  };

  ObjectCode() = default;
  ObjectCode(ObjectCode&& other) noexcept;
  ObjectCode& operator=(ObjectCode&& other) noexcept;
  ObjectCode(const ObjectCode&) = delete;
  ObjectCode& operator=(const ObjectCode&) = delete;
  ~ObjectCode();

  // Maps the file read-only and reads its program headers. Returns false and sets *err
  // ("<path>: cannot open: No such file or directory", "<path>: not an ELF file",
  // "<path>: ELF for machine 183, not x86-64", "<path>: program headers lie outside the file")
  // on failure; the object is then empty. The mapping lives as long as this object.
  [[nodiscard]] bool Open(const std::string& path, Error* err);

  // Wraps an ELF image already in memory (tests, fuzzing); `image` must outlive this object.
  [[nodiscard]] bool OpenImage(std::span<const uint8_t> image, const std::string& name, Error* err);

  // The code bytes from `vaddr` to the end of its executable segment's file-backed bytes, at most
  // `max_bytes` (15 = the longest x86 instruction). Empty when `vaddr` is not inside an executable
  // segment's file-backed bytes. Valid while this object lives.
  std::span<const uint8_t> CodeAt(uint64_t vaddr, size_t max_bytes = 15) const;

  const std::string& path() const { return path_; }
  bool position_independent() const { return position_independent_; }  // ET_DYN
  const std::vector<Segment>& segments() const { return segments_; }

 private:
  [[nodiscard]] bool Parse(Error* err);
  void Reset();

  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;  // non-null when we own an mmap of size_ bytes
  bool position_independent_ = false;
  std::vector<Segment> segments_;
};

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_OBJECT_CODE_H_
