#include "targets/kernel_catalog.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "builtin_kernels.h"
#include "core/spelling.h"

namespace rprof {

bool KernelCatalog::AddSet(const rprof_kernel_set* set, const std::string& origin, Error* err) {
  if (set->abi_version != RPROF_KERNEL_ABI_VERSION)
    return Fail(err, ErrorKind::kEnvironment,
                origin + ": kernel ABI version " + std::to_string(set->abi_version) +
                    ", this rprof speaks version " + std::to_string(RPROF_KERNEL_ABI_VERSION) +
                    "; rebuild the plugin against this rprof's rprof/kernel.h");
  // Check the whole set before taking any of it: a refused set adds nothing.
  for (uint32_t i = 0; i < set->kernel_count; ++i) {
    const rprof_kernel& k = set->kernels[i];
    if (k.param_count > RPROF_MAX_PARAMS)
      return Fail(err, ErrorKind::kEnvironment,
                  origin + ": kernel " + k.name + " declares " + std::to_string(k.param_count) +
                      " parameters, the ABI allows " + std::to_string(RPROF_MAX_PARAMS));
  }
  for (uint32_t i = 0; i < set->kernel_count; ++i)
    entries_.push_back({&set->kernels[i], origin, i});
  return true;
}

const CatalogEntry* KernelCatalog::Find(const std::string& name) const {
  for (const CatalogEntry& e : entries_)
    if (name == e.kernel->name) return &e;
  return nullptr;
}

const CatalogEntry* KernelCatalog::Resolve(const std::string& name, Error* err) const {
  if (const CatalogEntry* e = Find(name)) return e;
  std::string known;
  for (const std::string& n : Names()) known += (known.empty() ? "" : ", ") + n;
  std::string origin =
      entries_.empty() || entries_.front().origin == "builtin" ? "" : " " + entries_.front().origin;
  Fail(err, ErrorKind::kUsage,
       "unknown kernel '" + name + "'" + DidYouMean(name, Names()) + " (known kernels: " + known +
           "; `rprof kernels" + origin + "` describes them)");
  return nullptr;
}

std::vector<std::string> KernelCatalog::Names() const {
  std::vector<std::string> names;
  for (const CatalogEntry& e : entries_) names.push_back(e.kernel->name);
  return names;
}

const KernelCatalog& BuiltinCatalog() {
  static const KernelCatalog catalog = [] {
    KernelCatalog c;
    Error ignored;  // the built-in set is compiled against this very header
    c.AddSet(rprof_builtin_kernels(), "builtin", &ignored);
    return c;
  }();
  return catalog;
}

bool ParseKernelArgs(const rprof_kernel& kernel, const std::vector<std::string>& assignments,
                     rprof_args* args, KeyValues* shown, Error* err) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < kernel.param_count; ++i) {
    args->values[i] = kernel.params[i].default_value;
    names.push_back(kernel.params[i].name);
  }
  std::string where = std::string("kernel ") + kernel.name;
  // The assignment that set each parameter, to name both when one is given twice.
  std::vector<std::string> given(kernel.param_count);
  for (const std::string& assignment : assignments) {
    size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
      return Fail(err, ErrorKind::kUsage,
                  "--param " + assignment + ": expected NAME=VALUE, e.g. --param n=1000000");
    std::string name = assignment.substr(0, eq), text = assignment.substr(eq + 1);
    uint32_t index = 0;
    while (index < kernel.param_count && name != kernel.params[index].name) ++index;
    if (index == kernel.param_count) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      return Fail(err, ErrorKind::kUsage,
                  where + ": no parameter '" + name + "'" + DidYouMean(name, names) +
                      " (parameters: " + (list.empty() ? "none" : list) + ")");
    }
    // The last one winning would measure a size the user may not have meant (a script that
    // adds `-p n=...` to a line that already has one): refused, naming both.
    if (!given[index].empty())
      return Fail(err, ErrorKind::kUsage,
                  where + ": parameter " + name + " given twice (" + given[index] + ", " +
                      assignment + "); give it once");
    given[index] = assignment;
    const rprof_param& p = kernel.params[index];
    auto out_of_range = [&] {
      return Fail(err, ErrorKind::kUsage,
                  where + ": parameter " + name + "=" + text + " is out of range [" +
                      std::to_string(p.min_value) + ", " + std::to_string(p.max_value) + "]");
    };
    errno = 0;
    char* end = nullptr;
    long long value = std::strtoll(text.c_str(), &end, 10);
    bool too_large = errno == ERANGE;
    // Accept 1e6-style values: sizes are often written that way.
    if (*end == 'e' || *end == 'E' || *end == '.') {
      errno = 0;
      double d = std::strtod(text.c_str(), &end);
      // Checked before the conversion: a double past long long's range does not convert.
      too_large = errno == ERANGE || !(std::fabs(d) < 9.2e18);
      if (!too_large) {
        value = static_cast<long long>(d);
        if (static_cast<double>(value) != d) end = nullptr;
      }
    }
    if (text.empty() || end == nullptr || *end != '\0')
      return Fail(err, ErrorKind::kUsage,
                  where + ": parameter " + name + "='" + text + "' is not an integer");
    if (too_large || value < p.min_value || value > p.max_value) return out_of_range();
    args->values[index] = value;
  }
  shown->clear();
  for (uint32_t i = 0; i < kernel.param_count; ++i)
    shown->emplace_back(kernel.params[i].name, std::to_string(args->values[i]));
  return true;
}

const char* PrecisionName(rprof_precision precision) {
  switch (precision) {
    case RPROF_PRECISION_FP64:
      return "fp64";
    case RPROF_PRECISION_FP32:
      return "fp32";
    default:
      return "";
  }
}

}  // namespace rprof
