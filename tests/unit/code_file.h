// An ELF64 x86-64 executable whose one loadable segment holds the given machine code at
// kCodeFileAddress, written to a temporary file that lives as long as the object: what the sim
// source's decoders read (instruction classes, sampled code), with every byte known to the test.
#ifndef RPROF_TESTS_UNIT_CODE_FILE_H_
#define RPROF_TESTS_UNIT_CODE_FILE_H_

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace rprof {

inline constexpr uint64_t kCodeFileAddress = 0x401000;

// The ELF header of an executable for `machine` whose `program_headers` follow it.
inline Elf64_Ehdr ExecutableHeader(uint16_t program_headers, uint16_t machine = EM_X86_64) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = machine;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof eh;
  eh.e_ehsize = sizeof eh;
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = program_headers;
  return eh;
}

class CodeFile {
 public:
  explicit CodeFile(const std::vector<uint8_t>& code) {
    char name[] = "/tmp/rprof-code-file-XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    path_ = name;
    Elf64_Ehdr eh = ExecutableHeader(1);
    Elf64_Phdr text{};
    text.p_type = PT_LOAD;
    text.p_flags = PF_R | PF_X;
    text.p_offset = sizeof eh + sizeof text;
    text.p_vaddr = kCodeFileAddress;
    text.p_filesz = text.p_memsz = code.size();
    EXPECT_EQ(write(fd, &eh, sizeof eh), static_cast<ssize_t>(sizeof eh));
    EXPECT_EQ(write(fd, &text, sizeof text), static_cast<ssize_t>(sizeof text));
    EXPECT_EQ(write(fd, code.data(), code.size()), static_cast<ssize_t>(code.size()));
    close(fd);
  }
  ~CodeFile() { unlink(path_.c_str()); }
  CodeFile(const CodeFile&) = delete;
  CodeFile& operator=(const CodeFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace rprof

#endif  // RPROF_TESTS_UNIT_CODE_FILE_H_
