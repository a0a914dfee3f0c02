#include "targets/marker_results.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/run_bounds.h"
#include "core/untrusted_file.h"
#include "counters/event_unit.h"
#include "rprof/marker.h"

namespace rprof {

namespace {

// The version the library writes in each block's header line. rprof also reads version 1,
// which had no per-thread time columns, version 2, which had no declared precision, and
// version 3, which had no span records.
std::string FormatVersion() { return std::to_string(RPROF_MARKER_FORMAT_VERSION); }
const char kVersion1[] = "1";
const char kVersion2[] = "2";
const char kVersion3[] = "3";

// One process's block, as written by librprof-marker.
struct BlockEvent {
  std::string name;
  bool ok = false;
  std::string reason;
};

struct BlockRegion {
  std::string name;
  uint64_t calls = 0;
  double seconds = 0;
  std::optional<double> thread_max_seconds;  // version 2 on
  std::optional<uint64_t> threads;           // version 2 on
  std::optional<double> flops_per_call;
  std::optional<double> bytes_per_call;
  std::string precision;                        // version 3 on: "fp64", "fp32", "" (not declared)
  std::vector<std::optional<uint64_t>> counts;  // one per block event; nullopt for "-"
  std::optional<double> open_cpu_seconds;       // version 4 on: its span record
  std::optional<double> inside_cpu_seconds;
};

struct Block {
  long pid = 0;
  bool version1 = false;
  bool version2 = false;
  bool version3 = false;
  std::vector<BlockEvent> events;
  std::vector<BlockRegion> regions;
  std::vector<std::pair<std::string, std::string>> problems;  // region, message
  // The names seen, to refuse one listed twice in constant time (10^5 regions stay linear).
  std::unordered_set<std::string> event_names, region_names;
  std::unordered_map<std::string, size_t> region_index;  // name -> regions[i], for span lines
  // Regions left out (core/run_bounds.h): names over kMaxRegionNameBytes, regions past
  // kMaxRegions. Their span lines are left out with them.
  uint64_t long_names = 0, past_the_most = 0;
};

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) return fields;
    start = tab + 1;
  }
}

template <typename T>
bool ParseInteger(std::string_view text, T* value) {
  auto result = std::from_chars(text.data(), text.data() + text.size(), *value);
  return !text.empty() && result.ec == std::errc() && result.ptr == text.data() + text.size();
}

// A finite, non-negative real, locale-free.
bool ParseReal(std::string_view text, double* value) {
  auto result = std::from_chars(text.data(), text.data() + text.size(), *value);
  return !text.empty() && result.ec == std::errc() && result.ptr == text.data() + text.size() &&
         std::isfinite(*value) && *value >= 0;
}

// The program wrote the file: what a note quotes of it is a short excerpt, never a whole line.
std::string Quoted(std::string_view text) { return QuotedExcerpt(text); }

class Parser {
 public:
  bool Parse(const std::string& text, std::vector<Block>* blocks, std::string* err) {
    size_t start = 0;
    int number = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      ++number;
      if (!ParseLine(std::string_view(text).substr(start, end - start), blocks)) {
        *err = "line " + std::to_string(number) + ": " + error_;
        return false;
      }
      start = end + 1;
    }
    return true;
  }

 private:
  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  bool ParseLine(std::string_view line, std::vector<Block>* blocks) {
    if (line.empty()) return Fail("empty line");
    std::vector<std::string_view> fields = SplitTabs(line);
    std::string_view kind = fields[0];
    if (kind == "rprof-markers") {
      if (fields.size() != 3)
        return Fail("header has " + std::to_string(fields.size()) +
                    " fields, expected 3 (rprof-markers, version, pid)");
      if (fields[1] != FormatVersion() && fields[1] != kVersion1 && fields[1] != kVersion2 &&
          fields[1] != kVersion3)
        return Fail("marker results format version " + Quoted(fields[1]) +
                    "; this rprof reads version " + FormatVersion() +
                    " (rprof and librprof-marker differ: rebuild the program against this "
                    "rprof's rprof-marker)");
      Block block;
      block.version1 = fields[1] == kVersion1;
      block.version2 = fields[1] == kVersion2;
      block.version3 = fields[1] == kVersion3;
      if (!ParseInteger(fields[2], &block.pid) || block.pid <= 0)
        return Fail("process id " + Quoted(fields[2]) + " is not a positive integer");
      blocks->push_back(std::move(block));
      return true;
    }
    if (blocks->empty())
      return Fail("expected the header 'rprof-markers<TAB>" + FormatVersion() +
                  "<TAB><pid>', found " + Quoted(kind));
    Block& block = blocks->back();
    if (kind == "event") return ParseEvent(fields, &block);
    if (kind == "region") return ParseRegion(fields, &block);
    if (kind == "span" && !block.version1 && !block.version2 && !block.version3)
      return ParseSpan(fields, &block);
    if (kind == "problem") {
      if (fields.size() != 3)
        return Fail("problem line has " + std::to_string(fields.size()) +
                    " fields, expected 3 (problem, region, message)");
      block.problems.emplace_back(fields[1], fields[2]);
      return true;
    }
    return Fail("unknown record " + Quoted(kind) + " (expected event, region, span or problem)");
  }

  // span <name> <open CPU s> <inside CPU s> <outside CPU s>: after its region's line.
  bool ParseSpan(const std::vector<std::string_view>& fields, Block* block) {
    if (fields.size() != 5)
      return Fail("span line has " + std::to_string(fields.size()) +
                  " fields, expected 5 (span, region, CPU seconds while open, inside, outside)");
    auto found = block->region_index.find(std::string(fields[1]));
    BlockRegion* region =
        found == block->region_index.end() ? nullptr : &block->regions[found->second];
    if (region == nullptr && (fields[1].size() > kMaxRegionNameBytes || block->past_the_most > 0))
      return true;  // a region left out, said once for them all
    if (region == nullptr)
      return Fail("span of region " + Quoted(fields[1]) + ", which has no region line before it");
    if (region->open_cpu_seconds)
      return Fail("span of region " + Quoted(fields[1]) + " listed twice");
    double open = 0, inside = 0, outside = 0;
    if (!ParseReal(fields[2], &open))
      return Fail("CPU seconds while open " + Quoted(fields[2]) + " is not a non-negative number");
    if (!ParseReal(fields[3], &inside))
      return Fail("CPU seconds inside " + Quoted(fields[3]) + " is not a non-negative number");
    if (!ParseReal(fields[4], &outside))
      return Fail("CPU seconds outside " + Quoted(fields[4]) + " is not a non-negative number");
    region->open_cpu_seconds = open;
    // The entering threads' own: in their calls, and waiting for each other while it was open.
    region->inside_cpu_seconds = inside + outside;
    return true;
  }

  bool ParseEvent(const std::vector<std::string_view>& fields, Block* block) {
    if (fields.size() != 5)
      return Fail("event line has " + std::to_string(fields.size()) +
                  " fields, expected 5 (event, index, name, ok|missing, reason)");
    if (!block->regions.empty()) return Fail("event line after a region line");
    size_t index = 0;
    if (!ParseInteger(fields[1], &index) || index != block->events.size())
      return Fail("event index " + Quoted(fields[1]) + ", expected " +
                  std::to_string(block->events.size()));
    if (fields[2].empty()) return Fail("event with an empty name");
    if (fields[3] != "ok" && fields[3] != "missing")
      return Fail("event status " + Quoted(fields[3]) + ", expected ok or missing");
    if (!block->event_names.insert(std::string(fields[2])).second)
      return Fail("event " + Quoted(fields[2]) + " listed twice");
    block->events.push_back({std::string(fields[2]), fields[3] == "ok", std::string(fields[4])});
    return true;
  }

  bool ParseRegion(const std::vector<std::string_view>& fields, Block* block) {
    // Version 2 added two columns after the total seconds: the most in one thread, threads.
    // Version 3 added the declared precision after the declared bytes.
    size_t first_declared = block->version1 ? 4 : 6;
    bool has_precision = !block->version1 && !block->version2;
    size_t first_count = first_declared + (has_precision ? 3 : 2);
    size_t expected = first_count + block->events.size();
    if (fields.size() != expected)
      return Fail("region line has " + std::to_string(fields.size()) + " fields, expected " +
                  std::to_string(expected) + " (region, name, calls, seconds, " +
                  (block->version1 ? "" : "seconds in one thread, threads, ") +
                  (has_precision ? "flops, bytes, precision and " : "flops, bytes and ") +
                  std::to_string(block->events.size()) + " event totals)");
    if (fields[1].size() > kMaxRegionNameBytes) {
      ++block->long_names;
      return true;
    }
    if (block->regions.size() >= kMaxRegions) {
      ++block->past_the_most;
      return true;
    }
    BlockRegion region;
    region.name = fields[1];
    if (region.name.empty()) return Fail("region with an empty name");
    if (!block->region_names.insert(region.name).second)
      return Fail("region " + Quoted(region.name) + " listed twice in one process");
    if (!ParseInteger(fields[2], &region.calls))
      return Fail("calls " + Quoted(fields[2]) + " is not a non-negative integer");
    if (!ParseReal(fields[3], &region.seconds))
      return Fail("seconds " + Quoted(fields[3]) + " is not a non-negative number");
    if (!block->version1) {
      double most = 0;
      uint64_t threads = 0;
      if (!ParseReal(fields[4], &most) || most > region.seconds)
        return Fail("seconds in one thread " + Quoted(fields[4]) +
                    " is not a number from 0 to the total seconds");
      if (!ParseInteger(fields[5], &threads))
        return Fail("threads " + Quoted(fields[5]) + " is not a non-negative integer");
      region.thread_max_seconds = most;
      region.threads = threads;
    }
    for (auto [field, value] : {std::pair{fields[first_declared], &region.flops_per_call},
                                std::pair{fields[first_declared + 1], &region.bytes_per_call}}) {
      if (field == "-") continue;
      double number = 0;
      if (!ParseReal(field, &number))
        return Fail("declared value " + Quoted(field) +
                    " is neither '-' nor a non-negative number");
      *value = number;
    }
    if (has_precision) {
      std::string_view precision = fields[first_declared + 2];
      if (precision != "-" && precision != "fp64" && precision != "fp32")
        return Fail("declared precision " + Quoted(precision) + " is not fp64, fp32 or '-'");
      if (precision != "-") region.precision = precision;
    }
    for (size_t i = first_count; i < fields.size(); ++i) {
      uint64_t count = 0;
      if (fields[i] == "-") {
        region.counts.push_back(std::nullopt);
      } else if (ParseInteger(fields[i], &count)) {
        if (!block->events[i - first_count].ok)
          return Fail("a count for event " + Quoted(block->events[i - first_count].name) +
                      ", which is missing");
        region.counts.push_back(count);
      } else {
        return Fail("count " + Quoted(fields[i]) + " is neither '-' nor a non-negative integer");
      }
    }
    block->region_index.emplace(region.name, block->regions.size());
    block->regions.push_back(std::move(region));
    return true;
  }

  std::string error_;
};

std::string FormatReal(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string ProcessText(long pid) { return "process " + std::to_string(pid); }

// Keeps the first declared value; a different one from another process is a problem.
void MergeDeclared(const std::string& region, const char* what, long pid,
                   const std::optional<double>& value, std::optional<double>* kept, long* kept_pid,
                   std::vector<std::string>* problems) {
  if (!value) return;
  if (!*kept) {
    *kept = value;
    *kept_pid = pid;
  } else if (**kept != *value) {
    problems->push_back(region + ": declared " + what + " differ between processes (" +
                        FormatReal(**kept) + " in " + ProcessText(*kept_pid) + ", " +
                        FormatReal(*value) + " in " + ProcessText(pid) + "); the first is kept");
  }
}

void Merge(const std::vector<Block>& blocks, MarkerResults* out) {
  // Names to their index in out->events and out->regions: every lookup in constant time, so the
  // merge is linear in the file (a program with 10^5 regions once cost rprof minutes).
  std::unordered_map<std::string, size_t> event_index, region_index;
  for (const Block& block : blocks) {
    out->pids.push_back(block.pid);
    for (const BlockEvent& event : block.events) {
      auto [at, added] = event_index.emplace(event.name, out->events.size());
      if (added) out->events.push_back(MarkerEvent{event.name, true, ""});
      MarkerEvent* merged = &out->events[at->second];
      if (!event.ok && merged->counted) {
        merged->counted = false;
        merged->reason = ProcessText(block.pid) + ": " + event.reason;
      }
    }
  }

  struct Declared {
    long flops_pid = 0;
    long bytes_pid = 0;
  };
  std::vector<Declared> declared;
  std::vector<std::vector<double>> sums;
  uint64_t past_the_most = 0;
  for (const Block& block : blocks) {
    // Each merged event's column in this block, or none.
    constexpr size_t kNone = static_cast<size_t>(-1);
    std::vector<size_t> column_of(out->events.size(), kNone);
    for (size_t c = 0; c < block.events.size(); ++c)
      column_of[event_index.at(block.events[c].name)] = c;
    for (const BlockRegion& region : block.regions) {
      // Processes naming different regions: the run still keeps kMaxRegions at most.
      if (out->regions.size() >= kMaxRegions && !region_index.count(region.name)) {
        ++past_the_most;
        continue;
      }
      auto [at, first] = region_index.emplace(region.name, out->regions.size());
      size_t r = at->second;
      if (first) {
        MarkerRegion fresh;
        fresh.name = region.name;
        fresh.counts.assign(out->events.size(), 0.0);
        fresh.count_notes.assign(out->events.size(), "");
        out->regions.push_back(std::move(fresh));
        declared.push_back({});
        sums.push_back(std::vector<double>(out->events.size(), 0.0));
      }
      MarkerRegion& merged = out->regions[r];
      merged.calls += region.calls;
      merged.seconds += region.seconds;
      // Processes are taken to run side by side, as threads are: the region's wall time is the
      // most any one thread of any process spent in it, never more than the program's. One
      // version-1 block (no per-thread time) leaves it unknown.
      if (region.thread_max_seconds && (first || merged.thread_max_seconds))
        merged.thread_max_seconds =
            std::max(merged.thread_max_seconds.value_or(0), *region.thread_max_seconds);
      else
        merged.thread_max_seconds = std::nullopt;
      if (region.threads && (first || merged.threads))
        merged.threads = merged.threads.value_or(0) + *region.threads;
      else
        merged.threads = std::nullopt;
      if (region.open_cpu_seconds && (first || merged.open_cpu_seconds)) {
        merged.open_cpu_seconds = merged.open_cpu_seconds.value_or(0) + *region.open_cpu_seconds;
        merged.inside_cpu_seconds =
            merged.inside_cpu_seconds.value_or(0) + *region.inside_cpu_seconds;
      } else {
        merged.open_cpu_seconds = merged.inside_cpu_seconds = std::nullopt;
      }
      MergeDeclared(region.name, "flops", block.pid, region.flops_per_call, &merged.flops_per_call,
                    &declared[r].flops_pid, &out->problems);
      MergeDeclared(region.name, "bytes", block.pid, region.bytes_per_call, &merged.bytes_per_call,
                    &declared[r].bytes_pid, &out->problems);
      if (!region.precision.empty()) {
        if (merged.precision.empty())
          merged.precision = region.precision;
        else if (merged.precision != region.precision)
          out->problems.push_back(region.name + ": declared precision differs between processes (" +
                                  merged.precision + ", then " + region.precision + " in " +
                                  ProcessText(block.pid) + "); the first is kept");
      }
      for (size_t e = 0; e < out->events.size(); ++e) {
        size_t column = column_of[e];
        std::string why;
        if (column == kNone)
          why = "not asked for in " + ProcessText(block.pid);
        else if (!block.events[column].ok)
          why = ProcessText(block.pid) + ": " + block.events[column].reason;
        else if (!region.counts[column])
          why = "some calls in " + ProcessText(block.pid) + " ran without counters";
        if (why.empty()) {
          sums[r][e] += static_cast<double>(*region.counts[column]);
        } else if (merged.counts[e]) {
          merged.counts[e] = std::nullopt;
          merged.count_notes[e] = why;
        }
      }
    }
    if (block.long_names > 0)
      out->problems.push_back(
          "markers: " + std::to_string(block.long_names) + " region(s) left out: a name over " +
          std::to_string(kMaxRegionNameBytes) + " bytes (" + ProcessText(block.pid) + ")");
    if (block.past_the_most > 0)
      out->problems.push_back("markers: " + std::to_string(block.past_the_most) +
                              " region(s) left out past the first " + std::to_string(kMaxRegions) +
                              ", the most a run keeps (" + ProcessText(block.pid) + ")");
    // The program wrote these: a few hundred bytes of each at most.
    for (const auto& [region, message] : block.problems)
      out->problems.push_back((region == "*" ? std::string("markers") : Excerpt(region, 100)) +
                              ": " + Excerpt(message, 300) + " (" + ProcessText(block.pid) + ")");
  }
  if (past_the_most > 0)
    out->problems.push_back("markers: " + std::to_string(past_the_most) +
                            " region(s) of several processes left out past the first " +
                            std::to_string(kMaxRegions) + ", the most a run keeps");
  for (size_t r = 0; r < out->regions.size(); ++r)
    for (size_t e = 0; e < out->events.size(); ++e)
      if (out->regions[r].counts[e]) out->regions[r].counts[e] = sums[r][e];
}

}  // namespace

bool ParseMarkerResults(const std::string& text, MarkerResults* out, Error* err) {
  std::vector<Block> blocks;
  Parser parser;
  std::string why;
  if (!parser.Parse(text, &blocks, &why)) return Fail(err, ErrorKind::kTargetFailed, why);
  *out = MarkerResults();
  Merge(blocks, out);
  return true;
}

std::vector<Metric> MarkerMetrics(const MarkerResults& results) {
  std::vector<Metric> metrics;
  for (const MarkerRegion& region : results.regions) {
    double calls = static_cast<double>(region.calls);
    if (region.thread_max_seconds)
      metrics.push_back({"time_s", *region.thread_max_seconds, "s", Source::kClock, region.name,
                         "wall time: the most one thread spent inside"});
    else
      metrics.push_back({"time_s", region.seconds, "s", Source::kClock, region.name,
                         "summed over threads (a version-1 marker library does not say how "
                         "long each thread spent)"});
    metrics.push_back(
        {"thread_time_s", region.seconds, "s", Source::kClock, region.name, "summed over threads"});
    if (region.threads)
      metrics.push_back({"threads", static_cast<double>(*region.threads), "count", Source::kClock,
                         region.name, "threads that ran the region"});
    metrics.push_back({"calls", calls, "count", Source::kClock, region.name, ""});
    if (region.open_cpu_seconds && region.inside_cpu_seconds)
      metrics.push_back(
          {"cpu_elsewhere_s", std::max(0.0, *region.open_cpu_seconds - *region.inside_cpu_seconds),
           "s", Source::kClock, region.name,
           "CPU time of the process's other threads while the region was open: work its "
           "per-thread counters did not count"});
    for (size_t e = 0; e < results.events.size(); ++e)
      metrics.push_back({results.events[e].name, region.counts[e],
                         EventUnit(results.events[e].name), Source::kPmu, region.name,
                         region.count_notes[e]});
    if (region.flops_per_call) {
      metrics.push_back({"flops", *region.flops_per_call * calls, "FLOP", Source::kModel,
                         region.name, "declared by rprof_region_declare"});
      // A declared precision is the split of the declared FLOPs: all of them in one precision,
      // which chooses the region's roof where nothing measured the split.
      if (!region.precision.empty()) {
        std::string note = "declared by rprof_region_declare_" + region.precision;
        bool fp64 = region.precision == "fp64";
        metrics.push_back({"flops_dp", fp64 ? *region.flops_per_call * calls : 0, "FLOP",
                           Source::kModel, region.name, note});
        metrics.push_back({"flops_sp", fp64 ? 0 : *region.flops_per_call * calls, "FLOP",
                           Source::kModel, region.name, note});
      }
    }
    if (region.bytes_per_call)
      metrics.push_back({"bytes_dram", *region.bytes_per_call * calls, "B", Source::kModel,
                         region.name, "declared by rprof_region_declare"});
  }
  return metrics;
}

}  // namespace rprof
