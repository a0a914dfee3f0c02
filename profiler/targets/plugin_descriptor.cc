#include "targets/plugin_descriptor.h"

#include <cstring>
#include <optional>
#include <set>

namespace rprof {

namespace {

constexpr uint32_t kNull = 0xffffffffu;

// The bound each string is read up to: one byte more than allowed, so that the reader can tell
// "too long" from "at the limit" without reading further.
constexpr size_t kReadBound = kMaxKernelTextBytes + 1;

void PutU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }
void PutI64(std::string* out, int64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }
void PutText(std::string* out, const char* s) {
  if (!s) return PutU32(out, kNull);
  size_t n = strnlen(s, kReadBound);
  PutU32(out, static_cast<uint32_t>(n));
  out->append(s, n);
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool U32(uint32_t* v) { return Take(v, 4); }
  bool I64(int64_t* v) { return Take(v, 8); }
  // nullopt for a null pointer; false when the bytes end first.
  bool Text(std::optional<std::string>* s) {
    uint32_t n = 0;
    if (!U32(&n)) return false;
    if (n == kNull) {
      s->reset();
      return true;
    }
    if (n > kReadBound || bytes_.size() - at_ < n) return false;
    *s = std::string(bytes_.substr(at_, n));
    at_ += n;
    return true;
  }
  bool AtEnd() const { return at_ == bytes_.size(); }

 private:
  bool Take(void* v, size_t n) {
    if (bytes_.size() - at_ < n) return false;
    std::memcpy(v, bytes_.data() + at_, n);
    at_ += n;
    return true;
  }
  std::string_view bytes_;
  size_t at_ = 0;
};

bool NameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}

// A name users type on the command line and formulas use: 1 to 128 name characters.
bool ValidName(const std::string& s) {
  if (s.empty() || s.size() > kMaxKernelNameBytes) return false;
  for (char c : s)
    if (!NameCharacter(c)) return false;
  return true;
}

// Text shown in tables: no control byte (the tables and XML escape the rest).
bool ValidText(const std::string& s) {
  if (s.size() > kMaxKernelTextBytes) return false;
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

}  // namespace

std::string EncodeKernelSet(const rprof_kernel_set* set) {
  std::string out;
  PutU32(&out, set->abi_version);
  // Another version's table may have another layout: nothing more of it is read.
  if (set->abi_version != RPROF_KERNEL_ABI_VERSION) return out;
  PutText(&out, set->name);
  uint32_t count =
      set->kernel_count > kMaxPluginKernels ? kMaxPluginKernels + 1 : set->kernel_count;
  PutU32(&out, set->kernels == nullptr ? 1 : 0);
  PutU32(&out, count);
  if (!set->kernels || count > kMaxPluginKernels) return out;
  for (uint32_t i = 0; i < count; ++i) {
    const rprof_kernel& k = set->kernels[i];
    PutText(&out, k.name);
    PutText(&out, k.description);
    PutU32(&out, static_cast<uint32_t>(k.precision));
    PutU32(&out, k.param_count);
    PutU32(&out, k.params == nullptr ? 1 : 0);
    if (k.params && k.param_count <= RPROF_MAX_PARAMS)
      for (uint32_t p = 0; p < k.param_count; ++p) {
        PutText(&out, k.params[p].name);
        PutText(&out, k.params[p].description);
        PutI64(&out, k.params[p].default_value);
        PutI64(&out, k.params[p].min_value);
        PutI64(&out, k.params[p].max_value);
      }
    PutText(&out, k.flops_formula);
    PutText(&out, k.bytes_formula);
    PutU32(&out,
           (k.setup ? 1u : 0u) | (k.run ? 2u : 0u) | (k.check ? 4u : 0u) | (k.teardown ? 8u : 0u));
  }
  return out;
}

bool DecodeKernelSet(std::string_view bytes, const std::string& origin,
                     std::unique_ptr<PluginDescriptor>* out, Error* err) {
  auto refuse = [&](const std::string& why) {
    return Fail(err, ErrorKind::kEnvironment,
                origin + ": " + why + "; fix the plugin's kernel table (rprof/kernel.h)");
  };
  Reader in(bytes);
  auto truncated = [&] { return refuse("its kernel table could not be read whole"); };
  uint32_t abi = 0;
  if (!in.U32(&abi)) return truncated();
  if (abi != RPROF_KERNEL_ABI_VERSION)
    return Fail(err, ErrorKind::kEnvironment,
                origin + ": kernel ABI version " + std::to_string(abi) +
                    ", this rprof speaks version " + std::to_string(RPROF_KERNEL_ABI_VERSION) +
                    "; rebuild the plugin against this rprof's rprof/kernel.h");
  auto descriptor = std::make_unique<PluginDescriptor>();
  auto own = [&](std::string s) {
    descriptor->strings_.push_back(std::make_unique<std::string>(std::move(s)));
    return descriptor->strings_.back()->c_str();
  };
  std::optional<std::string> set_name;
  uint32_t kernels_null = 0, count = 0;
  if (!in.Text(&set_name) || !in.U32(&kernels_null) || !in.U32(&count)) return truncated();
  if (set_name && !ValidText(*set_name)) return refuse("its set name has control characters");
  if (count > kMaxPluginKernels)
    return refuse("it declares more than " + std::to_string(kMaxPluginKernels) + " kernels");
  if (kernels_null && count > 0) return refuse("its kernel table is a null pointer");
  std::set<std::string> names;
  descriptor->params_.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    std::string which = "kernel " + std::to_string(i + 1) + " of " + std::to_string(count);
    std::optional<std::string> name, description, flops, bytes_formula;
    uint32_t precision = 0, param_count = 0, params_null = 0, functions = 0;
    if (!in.Text(&name) || !in.Text(&description) || !in.U32(&precision) || !in.U32(&param_count) ||
        !in.U32(&params_null))
      return truncated();
    if (!name) return refuse(which + " has a null name (a kernel count past its table?)");
    if (!ValidName(*name))
      return refuse(which + " has a name that is empty, longer than " +
                    std::to_string(kMaxKernelNameBytes) +
                    " bytes or not made of letters, digits and _ . + - (a kernel count past "
                    "its table?)");
    which = "kernel " + *name;
    if (!names.insert(*name).second) return refuse("two kernels are named " + *name);
    if (description && !ValidText(*description))
      return refuse(which + " has a description with control characters or over " +
                    std::to_string(kMaxKernelTextBytes) + " bytes");
    if (precision > RPROF_PRECISION_FP32)
      return refuse(which + " has an unknown precision " + std::to_string(precision));
    if (param_count > RPROF_MAX_PARAMS)
      return refuse(which + " declares " + std::to_string(param_count) +
                    " parameters, the ABI allows " + std::to_string(RPROF_MAX_PARAMS));
    if (params_null && param_count > 0) return refuse(which + " has a null parameter table");
    std::vector<rprof_param>& params = descriptor->params_.emplace_back();
    std::set<std::string> param_names;
    for (uint32_t p = 0; p < param_count && !params_null; ++p) {
      std::optional<std::string> pname, pdescription;
      int64_t def = 0, lo = 0, hi = 0;
      if (!in.Text(&pname) || !in.Text(&pdescription) || !in.I64(&def) || !in.I64(&lo) ||
          !in.I64(&hi))
        return truncated();
      if (!pname || !ValidName(*pname) || (*pname)[0] < 'A')
        return refuse(which + ": parameter " + std::to_string(p + 1) +
                      " has no usable name (letters, digits and _, not starting with a digit)");
      if (!param_names.insert(*pname).second)
        return refuse(which + ": two parameters are named " + *pname);
      if (pdescription && !ValidText(*pdescription))
        return refuse(which + ": parameter " + *pname +
                      " has a description with control "
                      "characters or over " +
                      std::to_string(kMaxKernelTextBytes) + " bytes");
      if (!(lo <= def && def <= hi))
        return refuse(which + ": parameter " + *pname + " has its default " + std::to_string(def) +
                      " outside its range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                      "]");
      params.push_back({own(*pname), own(pdescription.value_or("")), def, lo, hi});
    }
    if (!in.Text(&flops) || !in.Text(&bytes_formula) || !in.U32(&functions)) return truncated();
    for (auto [what, formula] : {std::pair{"FLOP", &flops}, std::pair{"byte", &bytes_formula}})
      if (!*formula || formula->value().empty() || !ValidText(**formula))
        return refuse(which + " has no usable " + what + " formula");
    if (functions != 15)
      return refuse(which + " lacks one of its functions (setup, run, check, teardown)");
    rprof_kernel k{};
    k.name = own(*name);
    k.description = own(description.value_or(""));
    k.precision = static_cast<rprof_precision>(precision);
    k.param_count = param_count;
    k.flops_formula = own(*flops);
    k.bytes_formula = own(*bytes_formula);
    descriptor->kernels_.push_back(k);
  }
  if (!in.AtEnd()) return refuse("its kernel table has trailing bytes");
  // The parameter tables no longer move: point the kernels at them.
  for (size_t i = 0; i < descriptor->kernels_.size(); ++i)
    descriptor->kernels_[i].params = descriptor->params_[i].data();
  descriptor->set_.abi_version = abi;
  descriptor->set_.name = own(set_name.value_or(""));
  descriptor->set_.kernels = descriptor->kernels_.data();
  descriptor->set_.kernel_count = count;
  *out = std::move(descriptor);
  return true;
}

}  // namespace rprof
