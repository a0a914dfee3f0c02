#include "counters/pmu/canonical_metrics.h"

namespace rprof {
namespace {

// The DESIGN.md names that counters can measure; derived ones (gflops, gbs_*, ai_*) and time_s are
// computed from these by the caller.
constexpr CanonicalMetric kMetrics[] = {
    {"flops", "FLOP", "floating-point operations, all precisions (an FMA counts 2)"},
    {"flops_dp", "FLOP", "double-precision floating-point operations"},
    {"flops_dp_scalar", "FLOP", "double-precision FLOPs from scalar instructions"},
    {"flops_dp_128", "FLOP", "double-precision FLOPs from 128-bit vector instructions"},
    {"flops_dp_256", "FLOP", "double-precision FLOPs from 256-bit vector instructions"},
    {"flops_dp_512", "FLOP", "double-precision FLOPs from 512-bit vector instructions"},
    {"flops_sp", "FLOP", "single-precision floating-point operations"},
    {"flops_sp_scalar", "FLOP", "single-precision FLOPs from scalar instructions"},
    {"flops_sp_128", "FLOP", "single-precision FLOPs from 128-bit vector instructions"},
    {"flops_sp_256", "FLOP", "single-precision FLOPs from 256-bit vector instructions"},
    {"flops_sp_512", "FLOP", "single-precision FLOPs from 512-bit vector instructions"},
    {"instructions", "count", "instructions retired"},
    {"cycles", "count", "core clock cycles while not halted"},
    {"bytes_l1", "B", "bytes between the core and L1 (loads + stores)"},
    {"bytes_l2", "B", "bytes between L1 and L2"},
    {"bytes_l3", "B", "bytes between L2 and L3"},
    {"bytes_dram", "B", "bytes between the last-level cache and DRAM"},
    {"l1d_misses", "count", "L1 data cache misses (lines)"},
    {"l2_misses", "count", "L2 cache misses (lines)"},
    {"llc_misses", "count", "last-level cache misses (lines)"},
    {"branches", "count", "branch instructions retired"},
    {"branch_misses", "count", "mispredicted branch instructions retired"},
};

}  // namespace

std::span<const CanonicalMetric> CanonicalMetrics() { return kMetrics; }

const CanonicalMetric* FindCanonicalMetric(std::string_view name) {
  for (const auto& metric : kMetrics) {
    if (metric.name == name) return &metric;
  }
  return nullptr;
}

}  // namespace rprof
