// What a target on the command line is: a built-in kernel name, a kernel plugin (a shared
// object), or an executable (by path, or a name found on PATH, as a shell would).
#ifndef RPROF_TARGETS_TARGET_PATH_H_
#define RPROF_TARGETS_TARGET_PATH_H_

#include <string>

#include "core/error.h"

namespace rprof {

// "libx.so", "./libx.so.1": loaded as a plugin rather than executed.
bool LooksLikePlugin(const std::string& target);
// Contains a '/': meant as a file, never as a kernel name.
bool LooksLikePath(const std::string& target);

// Finds the file to execute: `target` itself when it holds a '/', else the first match on PATH.
// kUsage, with the reason, when it is missing, a directory, not executable, or not an ELF file
// (scripts are run through their interpreter: rprof /bin/sh script.sh).
bool ResolveExecutable(const std::string& target, std::string* path, Error* err);

// True when `name` is an executable file on PATH (for `rprof ls`-style invocations).
bool OnPath(const std::string& name);

}  // namespace rprof

#endif  // RPROF_TARGETS_TARGET_PATH_H_
