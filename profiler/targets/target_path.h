// What a target on the command line is: a built-in kernel name, a kernel plugin (a shared
// object), or an executable (by path, or a name found on PATH, as a shell would).
#ifndef RPROF_TARGETS_TARGET_PATH_H_
#define RPROF_TARGETS_TARGET_PATH_H_

#include <string>
#include <vector>

#include "core/error.h"

namespace rprof {

// "libx.so", "./libx.so.1": loaded as a plugin rather than executed.
bool LooksLikePlugin(const std::string& target);
// Contains a '/': meant as a file, never as a kernel name.
bool LooksLikePath(const std::string& target);

// Finds the file to execute: `target` itself when it holds a '/', else the first match on PATH.
// kUsage, with the reason, when it is missing, a directory, not executable, or neither an ELF
// file of this machine nor a script with a #! line (which execve runs through its interpreter).
bool ResolveExecutable(const std::string& target, std::string* path, Error* err);

// The name a program's run is stored under: the canonical `program_path`, except for an
// interpreter (python3, perl, bash, ..., by base name, so wrappers like pyenv's shims count; or
// `env` naming one) whose arguments name a script file: then that script's canonical path, so
// that `rprof python3 naive.py` is found by `history --kernel naive.py`. `argv` as typed.
std::string ProgramRunTarget(const std::string& program_path, const std::vector<std::string>& argv);
// The script an interpreter's command line runs (the first word that is no option or option
// value, when it is a regular file), canonical; "" for none (python3 -m mod, -c code).
std::string ScriptOfInterpreter(const std::vector<std::string>& argv);
// `word`'s canonical path when it names a regular file, else "".
std::string ScriptIfFile(const std::string& word);

// True when `name` is an executable file on PATH (for `rprof ls`-style invocations).
bool OnPath(const std::string& name);
// The first executable file called `name` on PATH, as a shell finds it; "" when there is none.
std::string FindOnPath(const std::string& name);

// The one name a program's runs are stored under: `path` absolute with every symbolic link,
// `.` and `..` resolved (realpath), so `./app`, `../bin/app` and `/home/u/bin/app` are the same
// program. A path that does not exist (a program since deleted) is made absolute and normalised
// by its text alone.
std::string CanonicalProgramPath(const std::string& path);

// The names the runs of a target typed as `typed` (history --kernel, plot --kernel) are stored
// under: a kernel's name; for a program (a path, or a name found on PATH that is not a built-in
// kernel), its canonical path first, then `typed` itself, which runs stored before targets
// were canonical hold.
std::vector<std::string> StoredTargetNames(const std::string& typed);

}  // namespace rprof

#endif  // RPROF_TARGETS_TARGET_PATH_H_
