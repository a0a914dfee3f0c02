// A map from 64-bit instruction address to a 32-bit index, for the per-address tables of the
// sim source (callgrind sites, decoded instructions). Open addressing with linear probing in two
// flat arrays: a callgrind output of a large program has 10^5 distinct addresses, and a node per
// address (std::unordered_map) made the hash table, not the parsing, the bulk of the analysis
// time.
#ifndef RPROF_COUNTERS_SIM_ADDRESS_INDEX_H_
#define RPROF_COUNTERS_SIM_ADDRESS_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rprof {

class AddressIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Room for `n` addresses without growing.
  void Reserve(size_t n) {
    size_t want = 16;
    while (want < n * 2) want *= 2;
    if (want > keys_.size()) Rehash(want);
  }

  // The index stored for `address`, or kNone.
  uint32_t Find(uint64_t address) const {
    if (keys_.empty()) return kNone;
    for (size_t i = Slot(address);; i = (i + 1) & mask_) {
      if (values_[i] == kNone) return kNone;
      if (keys_[i] == address) return values_[i];
    }
  }

  // The index stored for `address`; stores `index` first when there is none (then *inserted is
  // true). `index` must not be kNone.
  uint32_t FindOrInsert(uint64_t address, uint32_t index, bool* inserted) {
    if ((size_ + 1) * 2 > keys_.size()) Rehash(keys_.empty() ? 16 : keys_.size() * 2);
    for (size_t i = Slot(address);; i = (i + 1) & mask_) {
      if (values_[i] == kNone) {
        keys_[i] = address;
        values_[i] = index;
        ++size_;
        *inserted = true;
        return index;
      }
      if (keys_[i] == address) {
        *inserted = false;
        return values_[i];
      }
    }
  }

  size_t size() const { return size_; }

 private:
  size_t Slot(uint64_t address) const {
    // Fibonacci hashing: instruction addresses are dense and would cluster in the low bits.
    return static_cast<size_t>((address * 0x9e3779b97f4a7c15ull) >> 32) & mask_;
  }

  void Rehash(size_t capacity) {
    std::vector<uint64_t> old_keys;
    std::vector<uint32_t> old_values;
    old_keys.swap(keys_);
    old_values.swap(values_);
    keys_.assign(capacity, 0);
    values_.assign(capacity, kNone);
    mask_ = capacity - 1;
    size_ = 0;
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (old_values[i] == kNone) continue;
      bool inserted;
      FindOrInsert(old_keys[i], old_values[i], &inserted);
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> values_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace rprof

#endif  // RPROF_COUNTERS_SIM_ADDRESS_INDEX_H_
