#include "cli/run_target.h"

#include "cli/command.h"
#include "cli/launch_ranks.h"
#include "core/spelling.h"
#include "targets/kernel_target.h"
#include "targets/plugin_loader.h"
#include "targets/program_target.h"
#include "targets/target_path.h"

namespace rprof {

namespace {

// A program's file, and its canonical path (the run's target). A name found nowhere is most
// often a mistyped kernel or a command put after run's options: said so, with the closest name.
bool ResolveProgram(const std::string& target, std::string* path, Error* err) {
  if (!LooksLikePath(target) && !OnPath(target)) {
    if (FindCommand(target))
      return Fail(err, ErrorKind::kUsage,
                  "'" + target + "' is a command, not something to run; a command's options go " +
                      "after its name (rprof " + target + " --help)");
    if (!ClosestMatch(target, BuiltinCatalog().Names()).empty())
      return BuiltinCatalog().Resolve(target, err) != nullptr;  // "did you mean 'triad'?"
  }
  if (!ResolveExecutable(target, path, err)) return false;
  *path = CanonicalProgramPath(*path);
  return true;
}

}  // namespace

bool RunsAsProgram(const std::string& word) {
  return !BuiltinCatalog().Find(word) && !LooksLikePlugin(word);
}

bool RunTarget::Resolve(const std::string& word, const std::vector<std::string>& program_args,
                        const std::string& kernel_name, Error* err) {
  word_ = word;
  const bool found = ResolveWord(program_args, kernel_name, err);
  if (found && !kernel_name.empty() && !LooksLikePlugin(word))
    return Fail(err, ErrorKind::kUsage, "--kernel chooses a kernel inside a plugin (.so)");
  return found;
}

bool RunTarget::ResolveWord(const std::vector<std::string>& program_args,
                            const std::string& kernel_name, Error* err) {
  const std::string& word = word_;
  if (const CatalogEntry* builtin = BuiltinCatalog().Find(word)) {
    kernel_ = builtin;
    return true;
  }
  if (LooksLikePlugin(word)) {
    if (!LoadPlugin(word, &plugin_, err)) return false;
    std::string name = kernel_name;
    if (name.empty() && plugin_.entries().size() == 1) name = plugin_.Names().front();
    if (name.empty())
      return Fail(err, ErrorKind::kUsage,
                  word + " holds several kernels; choose one with --kernel (`rprof kernels " +
                      word + "` lists them)");
    kernel_ = plugin_.Resolve(name, err);
    return kernel_ != nullptr;
  }
  // Stored under its canonical path, run under the name typed (argv[0], the run's command).
  if (!ResolveProgram(word, &program_path_, err)) return false;
  program_argv_ = {word};
  program_argv_.insert(program_argv_.end(), program_args.begin(), program_args.end());
  return true;
}

bool RunTarget::IsLauncher() const {
  return !is_kernel() && (IsRankLauncher(word_) || IsRankLauncher(program_path_));
}

bool RunTarget::Build(const RunTargetOptions& options, Error* err) {
  if (!is_kernel()) {
    if (!options.params.empty())
      return Fail(err, ErrorKind::kUsage,
                  "--param sets kernel parameters; a program takes its own arguments after "
                  "its name");
    ProgramOptions program;
    program.repetitions = options.repeat > 0 ? options.repeat : 1;
    program.timeout_s = options.timeout_s.value_or(0);
    program.declared_flops = options.flops;
    program.declared_bytes = options.bytes;
    program.threads = options.threads;
    target_ = std::make_unique<ProgramTarget>(program_path_, program_argv_, program);
    return true;
  }
  const bool program_options[] = {options.flops.has_value(), options.bytes.has_value(),
                                  options.precision_given};
  const char* names[] = {"flops", "bytes", "precision"};
  for (size_t i = 0; i < 3; ++i)
    if (program_options[i])
      return Fail(err, ErrorKind::kUsage,
                  std::string("--") + names[i] +
                      " is for programs; a kernel declares its own model (`rprof kernels`) and "
                      "is timed per call");
  if (options.threads)
    return Fail(err, ErrorKind::kUsage,
                "--threads is for programs; a kernel with a threads parameter takes -p threads=N "
                "(`rprof kernels`)");
  rprof_args kernel_args{};
  KeyValues shown_params;
  if (!ParseKernelArgs(*kernel_->kernel, options.params, &kernel_args, &shown_params, err))
    return false;
  MeasureOptions measure;
  measure.repetitions = options.repeat;
  measure.min_time_s = options.min_time_s;
  // --timeout bounds the kernel's whole run in its worker, setup to teardown (0: no limit).
  target_ = std::make_unique<KernelTarget>(*kernel_, kernel_args, std::move(shown_params), measure,
                                           options.timeout_s.value_or(0));
  return true;
}

}  // namespace rprof
