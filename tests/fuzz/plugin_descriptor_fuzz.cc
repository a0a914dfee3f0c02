// libFuzzer target for targets/plugin_descriptor.h: the kernel table a probing child copies out
// of a plugin and hands rprof as bytes (untrusted input: the plugin is anyone's code, and the
// child may have read garbage past a table). Any input must decode or be refused with a reason
// naming the plugin, without crashing, hanging or leaking; what decodes must be a table rprof
// can use as it is: names of name characters, unique, parameters within the ABI's bound with
// their defaults in range, formulas present, every function pointer null (it only describes).
//
// `scripts/fuzz 60 plugin_descriptor` builds and runs it (tests/fuzz/meson.build). Built with
// -DRPROF_FUZZ_STANDALONE it replays the corpus and mutations of it (tests/fuzz/fuzz_replay.h).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>

#include "targets/plugin_descriptor.h"

namespace {

bool NameOk(const char* s) {
  if (!s || !*s || std::strlen(s) > rprof::kMaxKernelNameBytes) return false;
  for (const char* c = s; *c; ++c)
    if (!(std::isalnum(static_cast<unsigned char>(*c)) || std::strchr("_.+-", *c))) return false;
  return true;
}

void Check(const std::string& bytes) {
  std::unique_ptr<rprof::PluginDescriptor> descriptor;
  rprof::Error err;
  if (!rprof::DecodeKernelSet(bytes, "lib.so", &descriptor, &err)) {
    if (err.message.rfind("lib.so: ", 0) != 0 || err.kind != rprof::ErrorKind::kEnvironment)
      std::abort();
    return;
  }
  const rprof_kernel_set& set = descriptor->set();
  if (set.abi_version != RPROF_KERNEL_ABI_VERSION || !set.name) std::abort();
  if (set.kernel_count > rprof::kMaxPluginKernels) std::abort();
  std::set<std::string> names;
  for (uint32_t i = 0; i < set.kernel_count; ++i) {
    const rprof_kernel& k = set.kernels[i];
    if (!NameOk(k.name) || !names.insert(k.name).second) std::abort();
    if (!k.description || !k.flops_formula || !*k.flops_formula || !k.bytes_formula ||
        !*k.bytes_formula)
      std::abort();
    if (k.setup || k.run || k.check || k.teardown) std::abort();
    if (k.param_count > RPROF_MAX_PARAMS || (k.param_count && !k.params)) std::abort();
    std::set<std::string> params;
    for (uint32_t p = 0; p < k.param_count; ++p) {
      const rprof_param& param = k.params[p];
      if (!NameOk(param.name) || !params.insert(param.name).second) std::abort();
      if (!(param.min_value <= param.default_value && param.default_value <= param.max_value))
        std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Check(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}

#ifdef RPROF_FUZZ_STANDALONE
#include "fuzz_replay.h"

int main(int argc, char** argv) {
  // The bytes the replay draws from, NUL included (its length from the array, not counted by hand).
  static const char kAlphabet[] = "\x00\x01\x02\x08\xff\x7f\x1b n_.-+*()aZ09";
  return rprof::ReplayCorpusMain(argc, argv, "plugin_descriptor",
                                 std::string(kAlphabet, sizeof kAlphabet - 1), 20000,
                                 [](const std::string& bytes) { Check(bytes); });
}
#endif
