#include "targets/target_path.h"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "targets/kernel_catalog.h"

namespace rprof {

namespace {

#if defined(__x86_64__)
constexpr unsigned kOwnMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kOwnMachine = EM_AARCH64;
#elif defined(__riscv)
constexpr unsigned kOwnMachine = EM_RISCV;
#elif defined(__powerpc64__)
constexpr unsigned kOwnMachine = EM_PPC64;
#else
#error "rprof: name this architecture's ELF machine in target_path.cc"
#endif

}  // namespace

std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = colon + 1;
  }
  return "";
}

namespace {

// The ELF header's machine, against this build's: a binary built for
// another architecture is the user's mistake (exit 2), found before anything runs.
bool CheckElfMachine(const std::string& path, Error* err) {
  unsigned char header[20] = {};
  std::ifstream file(path, std::ios::binary);
  file.read(reinterpret_cast<char*>(header), sizeof header);
  if (file.gcount() < static_cast<std::streamsize>(sizeof header))
    return Fail(err, ErrorKind::kUsage, path + ": a truncated ELF file; rebuild it");
  const bool little_endian = header[EI_DATA] == ELFDATA2LSB;
  const unsigned machine = little_endian ? header[18] | header[19] << 8 : header[19] | header[18] << 8;
  // A 64-bit x86 kernel runs i386 programs too (where they have their libraries).
  if (machine == kOwnMachine || (kOwnMachine == EM_X86_64 && machine == EM_386)) return true;
  auto name = [](unsigned m) -> std::string {
    switch (m) {
      case EM_X86_64: return "x86-64";
      case EM_386: return "i386";
      case EM_AARCH64: return "AArch64";
      case EM_ARM: return "32-bit ARM";
      case EM_RISCV: return "RISC-V";
      case EM_PPC64: return "POWER";
      case EM_S390: return "s390x";
      default: return "ELF machine " + std::to_string(m);
    }
  };
  return Fail(err, ErrorKind::kUsage,
              path + ": built for " + name(machine) + ", and this machine runs " +
                  name(kOwnMachine) + "; build it for this machine, or run rprof where it runs");
}

}  // namespace

bool LooksLikePlugin(const std::string& target) {
  size_t slash = target.rfind('/');
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  size_t so = base.find(".so");
  return so != std::string::npos && so > 0 &&
         (so + 3 == base.size() || base[so + 3] == '.');
}

bool LooksLikePath(const std::string& target) { return target.find('/') != std::string::npos; }

bool OnPath(const std::string& name) { return !LooksLikePath(name) && !FindOnPath(name).empty(); }

std::string CanonicalProgramPath(const std::string& path) {
  if (char* real = realpath(path.c_str(), nullptr)) {
    std::string out = real;
    std::free(real);
    return out;
  }
  std::error_code ignored;
  return std::filesystem::absolute(path, ignored).lexically_normal().string();
}

std::vector<std::string> StoredTargetNames(const std::string& typed) {
  if (BuiltinCatalog().Find(typed)) return {typed};
  std::string path = LooksLikePath(typed) ? typed : FindOnPath(typed);
  if (path.empty()) return {typed};  // a plugin's kernel, or a program no longer on PATH
  std::string canonical = CanonicalProgramPath(path);
  if (canonical == typed) return {typed};
  return {canonical, typed};
}

bool ResolveExecutable(const std::string& target, std::string* path, Error* err) {
  *path = LooksLikePath(target) ? target : FindOnPath(target);
  if (path->empty())
    return Fail(err, ErrorKind::kUsage,
                "'" + target + "': not found on PATH, and not a kernel; give a program's path " +
                    "(./" + target + ") or a kernel's name (`rprof kernels` lists them)");
  struct stat st;
  if (stat(path->c_str(), &st) != 0) {
    int error = errno;
    return Fail(err, ErrorKind::kUsage,
                *path + ": " + std::strerror(error) + (error == ENOENT ? "; check the path" : ""));
  }
  if (S_ISDIR(st.st_mode))
    return Fail(err, ErrorKind::kUsage, *path + ": is a directory, not a program");
  if (access(path->c_str(), X_OK) != 0)
    return Fail(err, ErrorKind::kUsage,
                *path + ": not executable (" + std::strerror(errno) + "); chmod +x it");
  std::ifstream file(*path, std::ios::binary);
  std::string first_line;
  std::getline(file, first_line);
  if (first_line.compare(0, 4, "\x7f" "ELF") != 0) {
    std::string hint = "rprof runs ELF programs";
    if (first_line.rfind("#!", 0) == 0) {
      // Name the script's own interpreter: "#!/usr/bin/env python3" -> "/usr/bin/env python3".
      std::string interpreter = first_line.substr(2);
      while (!interpreter.empty() && (interpreter.front() == ' ' || interpreter.front() == '\t'))
        interpreter.erase(interpreter.begin());
      while (!interpreter.empty() && std::isspace(static_cast<unsigned char>(interpreter.back())))
        interpreter.pop_back();
      hint = "a script: run its interpreter, rprof " + interpreter + " " + *path;
    }
    return Fail(err, ErrorKind::kUsage, *path + ": not an ELF executable; " + hint);
  }
  return CheckElfMachine(*path, err);
}

}  // namespace rprof
