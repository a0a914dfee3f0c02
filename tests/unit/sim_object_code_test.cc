// The ELF code reader: hand-built images for the edge cases, and this test binary itself for a
// real (PIE) executable.
#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "code_file.h"
#include "counters/sim/object_code.h"

namespace rprof {
namespace {

// An ELF64 x86-64 image: header, two program headers (one executable PT_LOAD at 0x401000 holding
// `code`, one read-only PT_LOAD), then the code.
std::vector<uint8_t> MakeImage(const std::vector<uint8_t>& code, uint16_t machine = EM_X86_64) {
  Elf64_Ehdr eh = ExecutableHeader(2, machine);
  uint64_t code_offset = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr);
  Elf64_Phdr text{};
  text.p_type = PT_LOAD;
  text.p_flags = PF_R | PF_X;
  text.p_offset = code_offset;
  text.p_vaddr = 0x401000;
  text.p_filesz = code.size();
  text.p_memsz = code.size() + 0x100;  // a zero-filled tail: not code in the file
  Elf64_Phdr data{};
  data.p_type = PT_LOAD;
  data.p_flags = PF_R;
  data.p_offset = 0;
  data.p_vaddr = 0x400000;
  data.p_filesz = code_offset;
  data.p_memsz = code_offset;
  std::vector<uint8_t> image(code_offset + code.size());
  std::memcpy(image.data(), &eh, sizeof eh);
  std::memcpy(image.data() + sizeof eh, &text, sizeof text);
  std::memcpy(image.data() + sizeof eh + sizeof text, &data, sizeof data);
  std::memcpy(image.data() + code_offset, code.data(), code.size());
  return image;
}

TEST(ObjectCode, MapsAddressesInExecutableSegments) {
  const std::vector<uint8_t> code = {0x55, 0x48, 0x89, 0xe5, 0xc3};  // push rbp; mov rbp,rsp; ret
  std::vector<uint8_t> image = MakeImage(code);
  ObjectCode obj;
  Error err;
  ASSERT_TRUE(obj.OpenImage(image, "image", &err)) << err.message;
  EXPECT_FALSE(obj.position_independent());
  ASSERT_EQ(obj.segments().size(), 2u);

  auto at = obj.CodeAt(0x401000);
  ASSERT_EQ(at.size(), 5u);  // bounded by the segment's file bytes
  EXPECT_EQ(at[0], 0x55);
  at = obj.CodeAt(0x401004, 15);
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0], 0xc3);
  EXPECT_EQ(obj.CodeAt(0x401001, 2).size(), 2u);
  EXPECT_TRUE(obj.CodeAt(0x401005).empty());  // zero-filled memory, not file bytes
  EXPECT_TRUE(obj.CodeAt(0x400fff).empty());
  EXPECT_TRUE(obj.CodeAt(0x400000).empty());  // readable but not executable
  EXPECT_TRUE(obj.CodeAt(0).empty());
  EXPECT_TRUE(obj.CodeAt(~0ull).empty());
}

TEST(ObjectCode, RejectsBrokenImages) {
  Error err;
  ObjectCode obj;
  std::vector<uint8_t> image = MakeImage({0xc3});

  std::vector<uint8_t> bad = image;
  bad[0] = 'X';
  EXPECT_FALSE(obj.OpenImage(bad, "bad", &err));
  EXPECT_EQ(err.message, "bad: not an ELF file");

  bad = image;
  bad[EI_CLASS] = ELFCLASS32;
  EXPECT_FALSE(obj.OpenImage(bad, "bad", &err));
  EXPECT_EQ(err.message, "bad: not a 64-bit little-endian ELF file");

  EXPECT_FALSE(obj.OpenImage(MakeImage({0xc3}, EM_AARCH64), "arm", &err));
  EXPECT_EQ(err.message, "arm: ELF for machine 183, not x86-64");

  bad = image;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bad.data(), sizeof eh);
  eh.e_phoff = bad.size() - 8;
  std::memcpy(bad.data(), &eh, sizeof eh);
  EXPECT_FALSE(obj.OpenImage(bad, "bad", &err));
  EXPECT_EQ(err.message, "bad: program headers lie outside the file");

  bad = image;
  Elf64_Phdr ph;
  std::memcpy(&ph, bad.data() + sizeof(Elf64_Ehdr), sizeof ph);
  ph.p_filesz = 1 << 20;
  std::memcpy(bad.data() + sizeof(Elf64_Ehdr), &ph, sizeof ph);
  EXPECT_FALSE(obj.OpenImage(bad, "bad", &err));
  EXPECT_EQ(err.message, "bad: a PT_LOAD segment lies outside the file");

  std::vector<uint8_t> tiny(image.begin(), image.begin() + 10);
  EXPECT_FALSE(obj.OpenImage(tiny, "tiny", &err));
  EXPECT_EQ(err.message, "tiny: not an ELF file");
  EXPECT_TRUE(obj.CodeAt(0x401000).empty());  // a failed open leaves it empty

  EXPECT_FALSE(obj.Open("/nonexistent/lib.so", &err));
  EXPECT_EQ(err.message, "/nonexistent/lib.so: cannot open: No such file or directory");
  EXPECT_FALSE(obj.Open("/proc/self", &err));
  EXPECT_NE(err.message.find("not an ELF file"), std::string::npos) << err.message;
}

__attribute__((noinline)) int SomeFunction(int x) { return x * 3 + 1; }

TEST(ObjectCode, FindsThisProgramsCodeByLinkTimeAddress) {
  // callgrind prints link-time addresses: runtime address minus the load bias. dladdr gives the
  // address the ELF header is mapped at; the bias is that minus the first PT_LOAD's vaddr.
  char path[4096];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  ASSERT_GT(n, 0);
  path[n] = '\0';
  ObjectCode obj;
  Error err;
  ASSERT_TRUE(obj.Open(path, &err)) << err.message;

  auto runtime = reinterpret_cast<uintptr_t>(&SomeFunction);
  Dl_info info;
  ASSERT_NE(dladdr(reinterpret_cast<void*>(runtime), &info), 0);
  uint64_t first_vaddr = UINT64_MAX;
  for (const auto& s : obj.segments()) {
    first_vaddr = std::min<uint64_t>(first_vaddr, s.vaddr & ~uint64_t{0xfff});
  }
  uint64_t bias = reinterpret_cast<uintptr_t>(info.dli_fbase) - first_vaddr;
  uint64_t vaddr = runtime - bias;

  auto code = obj.CodeAt(vaddr, 8);
  ASSERT_EQ(code.size(), 8u) << "vaddr 0x" << std::hex << vaddr;
  EXPECT_EQ(std::memcmp(code.data(), reinterpret_cast<const void*>(runtime), 8), 0);
  if (obj.position_independent()) {
    EXPECT_LT(vaddr, runtime);  // the load base is not in it
  }

  ObjectCode moved = std::move(obj);  // the mapping moves with the object
  EXPECT_EQ(moved.CodeAt(vaddr, 8).size(), 8u);
  EXPECT_EQ(moved.path(), path);
}

}  // namespace
}  // namespace rprof
