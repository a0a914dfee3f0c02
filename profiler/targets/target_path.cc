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
  const unsigned machine =
      little_endian ? header[18] | header[19] << 8 : header[19] | header[18] << 8;
  // A 64-bit x86 kernel runs i386 programs too (where they have their libraries).
  if (machine == kOwnMachine || (kOwnMachine == EM_X86_64 && machine == EM_386)) return true;
  auto name = [](unsigned m) -> std::string {
    switch (m) {
      case EM_X86_64:
        return "x86-64";
      case EM_386:
        return "i386";
      case EM_AARCH64:
        return "AArch64";
      case EM_ARM:
        return "32-bit ARM";
      case EM_RISCV:
        return "RISC-V";
      case EM_PPC64:
        return "POWER";
      case EM_S390:
        return "s390x";
      default:
        return "ELF machine " + std::to_string(m);
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
  return so != std::string::npos && so > 0 && (so + 3 == base.size() || base[so + 3] == '.');
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
  // A script in this folder, named as an interpreter was given it (`python3 naive.py`).
  if (path.empty()) path = ScriptIfFile(typed);
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
  char magic[4] = {};
  file.read(magic, sizeof magic);
  // A script with a #! line runs as the kernel runs it (execve starts its interpreter), as it
  // does under perf stat or time: pyenv's and conda's python3 are such scripts.
  if (file.gcount() >= 2 && magic[0] == '#' && magic[1] == '!') return true;
  if (file.gcount() < 4 || std::string(magic, 4) !=
                               "\x7f"
                               "ELF") {
    // Text without a #! line is what a shell would run with /bin/sh: say so, and only then.
    bool text = true;
    for (std::streamsize i = 0; i < file.gcount(); ++i)
      text = text && (std::isprint(static_cast<unsigned char>(magic[i])) ||
                      std::isspace(static_cast<unsigned char>(magic[i])));
    return Fail(err, ErrorKind::kUsage,
                *path + ": neither an ELF executable nor a script with a #! line" +
                    (text ? "; run it with its interpreter (rprof /bin/sh " + *path + ")" : ""));
  }
  return CheckElfMachine(*path, err);
}

namespace {

// Programs that run a script named among their arguments: a run of `python3 naive.py` is a run
// of naive.py. By base name, version suffixes allowed (python3.11, lua5.4): a wrapper script
// called python3 (pyenv's shim) is an interpreter for this as much as /usr/bin/python3 is.
bool IsInterpreter(const std::string& path) {
  std::string base = std::filesystem::path(path).filename().string();
  while (!base.empty() &&
         (std::isdigit(static_cast<unsigned char>(base.back())) || base.back() == '.'))
    base.pop_back();
  static const char* const kInterpreters[] = {
      "python", "pypy", "perl",    "ruby",  "node", "nodejs", "bash", "sh",    "dash",
      "zsh",    "ksh",  "Rscript", "julia", "lua",  "luajit", "php",  "tclsh", "octave-cli"};
  for (const char* name : kInterpreters)
    if (base == name) return true;
  return false;
}

// Interpreter options that take the next word as their value (python -m mod, -c code: no
// script; -W arg, -X opt: a value), so that the script is the first other word.
bool TakesValue(const std::string& option) {
  return option == "-W" || option == "-X" || option == "-I" || option == "-e" ||
         option == "--require" || option == "-r";
}

}  // namespace

std::string ScriptOfInterpreter(const std::vector<std::string>& argv) {
  size_t i = 0;
  // `env python3 x.py`, `/usr/bin/env -S python3 x.py`: the interpreter is env's command.
  if (!argv.empty() && std::filesystem::path(argv[0]).filename() == "env") {
    i = 1;  // past env's own options and VAR=value assignments
    while (i < argv.size() &&
           (argv[i].rfind("-", 0) == 0 || argv[i].find('=') != std::string::npos))
      ++i;
  }
  if (i >= argv.size() || !IsInterpreter(argv[i])) return "";
  for (size_t k = i + 1; k < argv.size(); ++k) {
    const std::string& word = argv[k];
    if (word == "-m" || word == "-c" || word == "-") return "";  // a module or inline code
    if (word == "--") {
      if (k + 1 < argv.size()) return ScriptIfFile(argv[k + 1]);
      return "";
    }
    if (word.rfind("-", 0) == 0) {
      if (TakesValue(word)) ++k;
      continue;
    }
    return ScriptIfFile(word);
  }
  return "";
}

std::string ScriptIfFile(const std::string& word) {
  struct stat st;
  if (stat(word.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  return CanonicalProgramPath(word);
}

std::string ProgramRunTarget(const std::string& program_path,
                             const std::vector<std::string>& argv) {
  std::string script = ScriptOfInterpreter(argv);
  return script.empty() ? program_path : script;
}

}  // namespace rprof
