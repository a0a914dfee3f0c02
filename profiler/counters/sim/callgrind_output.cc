#include "counters/sim/callgrind_output.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/text.h"
#include "counters/sim/address_index.h"

namespace rprof {
namespace {

constexpr std::string_view kSpaces = " \t";

bool IsSpace(char c) { return c == ' ' || c == '\t'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view TrimLeft(std::string_view s) {
  size_t i = s.find_first_not_of(kSpaces);
  return i == std::string_view::npos ? std::string_view() : s.substr(i);
}

// Splits off the next space-separated token; empty when none is left.
std::string_view NextToken(std::string_view* rest) {
  std::string_view s = TrimLeft(*rest);
  size_t end = 0;
  while (end < s.size() && !IsSpace(s[end])) ++end;
  *rest = s.substr(end);
  return s.substr(0, end);
}

// The grammar's Number: decimal digits, or "0x" and hex digits. Fails on overflow.
bool ParseNumber(std::string_view token, uint64_t* value) {
  int base = 10;
  if (token.size() > 2 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X')) {
    token.remove_prefix(2);
    base = 16;
  }
  if (token.empty()) return false;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), *value, base);
  return ec == std::errc() && ptr == token.data() + token.size();
}

std::string Quote(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string q = "'";
  q.append(s.substr(0, kMax));
  if (s.size() > kMax) q += "...";
  q += "'";
  return q;
}

// The compression ids defined so far in one name space (files, functions), each with the index
// of its name in the output's list (CallgrindOutput::files / ::functions).
class IdMap {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  void Clear() {
    dense_.clear();
    sparse_.clear();
  }
  void Insert(uint64_t id, uint32_t value) {
    if (id < kDenseLimit) {
      if (id >= dense_.size()) dense_.resize(std::max<size_t>(id + 1, dense_.size() * 2), kNone);
      dense_[id] = value;
    } else {
      sparse_[id] = value;
    }
  }
  // The value of a defined id; kNone when it was never defined.
  uint32_t Find(uint64_t id) const {
    if (id < kDenseLimit) return id < dense_.size() ? dense_[id] : kNone;
    auto it = sparse_.find(id);
    return it == sparse_.end() ? kNone : it->second;
  }

 private:
  static constexpr uint64_t kDenseLimit = 1 << 22;  // callgrind numbers ids densely from 0
  std::vector<uint32_t> dense_;
  std::unordered_map<uint64_t, uint32_t> sparse_;
};

// A parse failure: the 1-based line and what was wrong there.
struct ParseError {
  size_t line = 0;
  std::string message;
};

// Accumulates one or more files into a CallgrindOutput. State that belongs to one file (name
// compression ids, the current part, the base of relative positions) is reset by ParseFile();
// the sites, event columns and object list are shared by all files.
class Reader {
 public:
  explicit Reader(CallgrindOutput* out) : out_(out) { *out_ = CallgrindOutput(); }

  bool ParseFile(std::string_view text, ParseError* error);
  void Finish();

 private:
  enum class Pending { kNone, kCall, kJump };
  enum class NameSpace { kObject, kFile, kFunction };

  struct Part {
    std::vector<std::string> position_names{"line"};  // the spec's default
    int instr_index = -1;
    int line_index = 0;
    std::vector<int> event_map;  // part column -> global column
    bool has_events = false;
    bool in_body = false;                         // a body line has been read in this part
    std::vector<uint64_t> self;                   // self cost sums of this part, global columns
    std::optional<std::vector<uint64_t>> totals;  // totals: line, global columns
    size_t totals_line = 0;
    bool counted = false;  // counted in out_->parts
  };

  bool Fail(std::string message) {
    error_->line = line_number_;
    error_->message = std::move(message);
    return false;
  }

  bool HandleLine(std::string_view line);
  bool HandleHeader(std::string_view key, std::string_view value);
  bool HandleSpec(std::string_view key, std::string_view value);
  bool HandleCostLine(std::string_view line);
  bool ParsePositions(std::string_view* rest, std::vector<uint64_t>* positions, bool update_base);
  bool ParseCosts(std::string_view rest, std::vector<uint64_t>* costs);
  bool ResolveObject(std::string_view value, std::string* name);
  // Resolves a file or function name ("(id) name", "(id)", "name") to its index in the
  // output's list, defining the id; SiteSource::kUnnamed for an empty name.
  bool ResolveName(NameSpace space, std::string_view value, uint32_t* index);
  bool SetEvents(std::string_view value);
  bool SetPositions(std::string_view value);
  bool StartPartIfInBody();
  bool EndPart();
  void CountPart();
  uint32_t ObjectIndex(const std::string& name);
  size_t EventColumn(const std::string& name);
  void AddSelfCost(uint64_t address, const std::vector<uint64_t>& part_costs);

  CallgrindOutput* out_;
  ParseError* error_ = nullptr;
  size_t line_number_ = 0;

  // Per file.
  std::unordered_map<uint64_t, std::string> object_names_;
  IdMap ids_[3];  // kFile and kFunction used
  // The source the next cost lines are of: fl= sets the file, fi=/fe= an inlined one until the
  // next fl= or fn=.
  uint32_t function_ = SiteSource::kUnnamed;
  uint32_t file_ = SiteSource::kUnnamed;
  uint32_t inline_file_ = SiteSource::kUnnamed;
  Part part_;
  Pending pending_ = Pending::kNone;
  size_t pending_line_ = 0;
  std::vector<uint64_t> base_;  // last position, per subposition, for relative compression
  uint32_t object_ = 0;
  bool object_set_ = false;
  bool file_has_events_ = false;
  bool saw_pid_ = false;

  // Across files.
  std::unordered_map<std::string, uint32_t> object_index_;
  std::unordered_map<std::string, size_t> event_index_;
  std::unordered_map<std::string, uint32_t> name_index_[3];  // kFile and kFunction used
  std::vector<SiteSource> row_sources_;
  std::vector<AddressIndex> site_rows_;  // per object: address -> row
  std::vector<InstructionSite> row_sites_;
  std::vector<uint64_t> rows_;  // row-major, stride out_->events.size()
  bool all_parts_have_totals_ = true;
  bool any_costs_without_instr_ = false;
  bool any_costs_ = false;
  std::vector<uint64_t> totals_sum_;

  // Scratch, kept to avoid allocations per line.
  std::vector<uint64_t> positions_;
  std::vector<uint64_t> line_costs_;
};

bool Reader::ParseFile(std::string_view text, ParseError* error) {
  error_ = error;
  line_number_ = 0;
  object_names_.clear();
  for (auto& ids : ids_) ids.Clear();
  part_ = Part();
  pending_ = Pending::kNone;
  base_.assign(1, 0);
  object_ = 0;
  object_set_ = false;
  function_ = file_ = inline_file_ = SiteSource::kUnnamed;
  saw_pid_ = false;
  file_has_events_ = false;

  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!HandleLine(line)) return false;
  }
  // Errors found at the end name the line after the last complete one.
  if (text.empty() || text.back() == '\n') ++line_number_;
  if (pending_ != Pending::kNone) {
    line_number_ = pending_line_;
    return Fail(std::string(pending_ == Pending::kCall ? "calls=" : "jump") +
                " line is the last line: the cost line that must follow it is missing");
  }
  if (!file_has_events_) {
    return Fail("no events: line: this is not a callgrind output file (or it is empty)");
  }
  return EndPart();
}

bool Reader::HandleLine(std::string_view line) {
  line = Trim(line);
  if (line.empty() || line[0] == '#') return true;

  char c = line[0];
  if (IsDigit(c) || c == '+' || c == '-' || c == '*') return HandleCostLine(line);

  if (!IsAlpha(c)) return Fail("unrecognised line " + Quote(line));
  size_t end = 1;
  while (end < line.size() && (IsAlpha(line[end]) || IsDigit(line[end]) || line[end] == '_')) {
    ++end;
  }
  if (end < line.size() && line[end] == '=') {
    return HandleSpec(line.substr(0, end), line.substr(end + 1));
  }
  if (end < line.size() && line[end] == ':') {
    return HandleHeader(line.substr(0, end), Trim(line.substr(end + 1)));
  }
  return Fail("unrecognised line " + Quote(line) +
              " (expected 'key: value', 'spec=value' or a cost line)");
}

bool Reader::StartPartIfInBody() {
  if (!part_.in_body) return true;
  if (!EndPart()) return false;
  // A new part keeps the previous part's positions and events until it lists its own.
  Part next;
  next.position_names = part_.position_names;
  next.instr_index = part_.instr_index;
  next.line_index = part_.line_index;
  next.event_map = part_.event_map;
  next.has_events = part_.has_events;
  part_ = std::move(next);
  base_.assign(part_.position_names.size(), 0);
  return true;
}

void Reader::CountPart() {
  if (part_.counted) return;
  part_.counted = true;
  ++out_->parts;
}

bool Reader::EndPart() {
  if (!part_.in_body && !part_.totals) {
    return true;  // nothing but header lines: not a part of its own
  }
  CountPart();
  if (!part_.totals) {
    all_parts_have_totals_ = false;
    return true;
  }
  std::vector<uint64_t>& totals = *part_.totals;
  part_.self.resize(out_->events.size(), 0);
  totals.resize(out_->events.size(), 0);
  for (size_t e = 0; e < totals.size(); ++e) {
    if (totals[e] != part_.self[e]) {
      line_number_ = part_.totals_line;
      return Fail("totals: " + out_->events[e] + " = " + std::to_string(totals[e]) +
                  " but the cost lines of this part sum to " + std::to_string(part_.self[e]) +
                  ": the file is damaged or was cut short");
    }
  }
  totals_sum_.resize(out_->events.size(), 0);
  for (size_t e = 0; e < totals.size(); ++e) totals_sum_[e] += totals[e];
  return true;
}

bool Reader::HandleHeader(std::string_view key, std::string_view value) {
  if (pending_ != Pending::kNone) {
    return Fail("header line '" + std::string(key) + ":' where the cost line of the calls=/jump " +
                "line " + std::to_string(pending_line_) + " must follow");
  }
  if (key == "totals") {
    if (!part_.has_events) return Fail("totals: line before any events: line");
    if (part_.totals) return Fail("second totals: line in one part");
    if (!ParseCosts(value, &line_costs_)) return false;
    std::vector<uint64_t> totals(out_->events.size(), 0);
    for (size_t c = 0; c < line_costs_.size(); ++c) totals[part_.event_map[c]] = line_costs_[c];
    part_.totals = std::move(totals);
    part_.totals_line = line_number_;
    part_.in_body = true;  // the next header line starts a new part
    return true;
  }
  if (key == "summary") {
    // The writer's running total; it can differ from the cost lines (it includes costs not yet
    // dumped, e.g. with --collect-atstart=no it counts the toggling client request). Checked
    // only for syntax.
    if (!part_.has_events) return true;  // older writers put summary: before events:
    return ParseCosts(value, &line_costs_);
  }
  if (!StartPartIfInBody()) return false;

  if (key == "version") {
    if (value != "1") {
      return Fail("unsupported callgrind format version " + Quote(value) +
                  " (this reader knows version 1)");
    }
  } else if (key == "creator") {
    if (out_->creator.empty()) out_->creator = std::string(value);
  } else if (key == "cmd") {
    if (out_->command.empty()) out_->command = std::string(value);
  } else if (key == "pid") {
    uint64_t pid = 0;
    if (!ParseNumber(value, &pid)) return Fail("pid: is not a number: " + Quote(value));
    if (!saw_pid_) out_->pids.push_back(static_cast<int64_t>(pid));
    saw_pid_ = true;
  } else if (key == "desc") {
    size_t colon = value.find(':');
    if (colon != std::string_view::npos) {
      std::string_view name = Trim(value.substr(0, colon));
      std::string_view text = Trim(value.substr(colon + 1));
      std::optional<CacheLevelGeometry>* level = nullptr;
      if (name == "I1 cache") level = &out_->cache.i1;
      if (name == "D1 cache") level = &out_->cache.d1;
      if (name == "LL cache" || name == "L2 cache") level = &out_->cache.ll;
      if (level != nullptr && !level->has_value()) *level = ParseCacheDescription(text);
      if (name == "Trigger") out_->triggers.emplace_back(text);
      if (name == "Region thread") out_->region_threads.emplace_back(text);
      if (name == "Prefetch" && out_->cache.prefetch.empty()) out_->cache.prefetch = text;
      // rprofsim's "D<k> cache" / "D<k> policy", k = 1, 2, ...: kept from the first part.
      if (out_->creator.rfind("rprofsim", 0) == 0 && name.size() > 7 && name[0] == 'D' &&
          IsDigit(name[1])) {
        size_t k = 0, i = 1;
        while (i < name.size() && IsDigit(name[i]))
          k = k * 10 + static_cast<size_t>(name[i++] - '0');
        std::string_view what = name.substr(i);
        std::vector<CacheLevelGeometry>& levels = out_->cache.levels;
        std::vector<std::string>& policies = out_->cache.policies;
        if (what == " cache" && k == levels.size() + 1) {
          std::optional<CacheLevelGeometry> g = ParseCacheDescription(text);
          if (!g) return Fail("desc: " + std::string(name) + ": cannot read " + Quote(text));
          levels.push_back(*g);
        } else if (what == " policy" && k == policies.size() + 1) {
          policies.emplace_back(text);
        }
      }
    }
  } else if (key == "positions") {
    return SetPositions(value);
  } else if (key == "events") {
    return SetEvents(value);
  }
  // part:, thread:, event: (long names and derived-event formulas) and keys this reader does not
  // know carry nothing it needs.
  return true;
}

bool Reader::SetPositions(std::string_view value) {
  std::vector<std::string> names;
  int instr = -1;
  int line = -1;
  for (std::string_view rest = value;;) {
    std::string_view token = NextToken(&rest);
    if (token.empty()) break;
    for (char ch : token) {
      if (!IsAlpha(ch)) return Fail("positions: has a bad subposition name " + Quote(token));
    }
    if (token == "instr") instr = static_cast<int>(names.size());
    if (token == "line") line = static_cast<int>(names.size());
    names.emplace_back(token);
  }
  if (names.empty()) return Fail("positions: lists no subposition (expected 'instr', 'line')");
  part_.position_names = std::move(names);
  part_.instr_index = instr;
  part_.line_index = line;
  base_.assign(part_.position_names.size(), 0);
  return true;
}

bool Reader::SetEvents(std::string_view value) {
  std::vector<int> map;
  std::unordered_set<std::string_view> seen;
  for (std::string_view rest = value;;) {
    std::string_view token = NextToken(&rest);
    if (token.empty()) break;
    if (!IsAlpha(token[0])) return Fail("events: has a bad event name " + Quote(token));
    for (char ch : token) {
      if (!IsAlpha(ch) && !IsDigit(ch) && ch != '_') {
        return Fail("events: has a bad event name " + Quote(token));
      }
    }
    if (!seen.insert(token).second) return Fail("events: lists " + Quote(token) + " twice");
    map.push_back(static_cast<int>(EventColumn(std::string(token))));
  }
  if (map.empty()) return Fail("events: lists no event");
  part_.event_map = std::move(map);
  part_.has_events = true;
  file_has_events_ = true;
  return true;
}

size_t Reader::EventColumn(const std::string& name) {
  auto it = event_index_.find(name);
  if (it != event_index_.end()) return it->second;
  size_t old_stride = out_->events.size();
  size_t column = old_stride;
  out_->events.push_back(name);
  event_index_.emplace(name, column);
  // Widen the rows already stored (rare: only when a later part or file adds an event).
  if (!row_sites_.empty()) {
    size_t new_stride = old_stride + 1;
    std::vector<uint64_t> widened(row_sites_.size() * new_stride, 0);
    for (size_t r = 0; r < row_sites_.size(); ++r) {
      std::copy_n(&rows_[r * old_stride], old_stride, &widened[r * new_stride]);
    }
    rows_ = std::move(widened);
  }
  return column;
}

uint32_t Reader::ObjectIndex(const std::string& name) {
  auto [it, inserted] = object_index_.emplace(name, static_cast<uint32_t>(out_->objects.size()));
  if (inserted) {
    out_->objects.push_back(name);
    site_rows_.emplace_back();
  }
  return it->second;
}

// "(id) name" defines id; "(id)" refers to an earlier definition; "name" has no id. Sets *id
// (when there is one), *name (the rest, trimmed) and *has_id; fails on a malformed "(id".
bool SplitCompressedName(std::string_view value, uint64_t* id, std::string_view* name,
                         bool* has_id) {
  value = Trim(value);
  *has_id = !value.empty() && value[0] == '(';
  if (!*has_id) {
    *name = value;
    return true;
  }
  size_t close = value.find(')');
  if (close == std::string_view::npos || !ParseNumber(value.substr(1, close - 1), id)) {
    return false;
  }
  *name = Trim(value.substr(close + 1));
  return true;
}

bool Reader::ResolveObject(std::string_view value, std::string* name) {
  uint64_t id = 0;
  std::string_view text;
  bool has_id;
  if (!SplitCompressedName(value, &id, &text, &has_id)) {
    return Fail("bad name compression " + Quote(Trim(value)) + " (expected '(id) name' or '(id)')");
  }
  if (has_id && text.empty()) {
    auto it = object_names_.find(id);
    if (it == object_names_.end()) {
      return Fail("name id (" + std::to_string(id) + ") is used before it is defined");
    }
    *name = it->second;
    return true;
  }
  *name = std::string(text);
  if (has_id) object_names_[id] = *name;
  return true;
}

bool Reader::ResolveName(NameSpace space, std::string_view value, uint32_t* index) {
  uint64_t id = 0;
  std::string_view text;
  bool has_id;
  if (!SplitCompressedName(value, &id, &text, &has_id)) {
    return Fail("bad name compression " + Quote(Trim(value)) + " (expected '(id) name' or '(id)')");
  }
  IdMap& ids = ids_[static_cast<int>(space)];
  if (has_id && text.empty()) {
    *index = ids.Find(id);
    if (*index == IdMap::kNone) {
      return Fail("name id (" + std::to_string(id) + ") is used before it is defined");
    }
    return true;
  }
  *index = SiteSource::kUnnamed;
  if (!text.empty()) {
    std::vector<std::string>& names = space == NameSpace::kFunction ? out_->functions : out_->files;
    auto [it, inserted] = name_index_[static_cast<int>(space)].emplace(
        std::string(text), static_cast<uint32_t>(names.size()));
    if (inserted) names.emplace_back(text);
    *index = it->second;
  }
  if (has_id) ids.Insert(id, *index);
  return true;
}

bool Reader::HandleSpec(std::string_view key, std::string_view value) {
  if (pending_ != Pending::kNone) {
    return Fail("'" + std::string(key) + "=' line where the cost line of the calls=/jump line " +
                std::to_string(pending_line_) + " must follow");
  }
  part_.in_body = true;
  if (key == "ob" || key == "cob") {
    std::string name;
    if (!ResolveObject(value, &name)) return false;
    if (key == "ob") {
      object_ = ObjectIndex(name);
      object_set_ = true;
    }
    return true;
  }
  if (key == "fl" || key == "fi" || key == "fe" || key == "cfi" || key == "cfl" || key == "jfi") {
    uint32_t file;
    if (!ResolveName(NameSpace::kFile, value, &file)) return false;
    if (key == "fl") file_ = file, inline_file_ = SiteSource::kUnnamed;
    if (key == "fi" || key == "fe") inline_file_ = file;
    return true;
  }
  if (key == "fn" || key == "cfn" || key == "jfn" || key == "frfn") {
    uint32_t function;
    if (!ResolveName(NameSpace::kFunction, value, &function)) return false;
    if (key == "fn") function_ = function, inline_file_ = SiteSource::kUnnamed;
    return true;
  }
  if (key == "calls" || key == "jump" || key == "jcnd") {
    if (!part_.has_events) return Fail(std::string(key) + "= line before any events: line");
    std::string_view rest = value;
    std::string_view count = NextToken(&rest);
    uint64_t n = 0;
    bool ok;
    if (key == "jcnd") {  // "followed/executed"
      size_t slash = count.find('/');
      uint64_t m = 0;
      ok = slash != std::string_view::npos && ParseNumber(count.substr(0, slash), &n) &&
           ParseNumber(count.substr(slash + 1), &m);
    } else {
      ok = ParseNumber(count, &n);
    }
    if (!ok) return Fail(std::string(key) + "= has a bad count " + Quote(count));
    // The target position: relative to the base, but it does not move the base.
    if (!ParsePositions(&rest, &positions_, /*update_base=*/false)) return false;
    if (!Trim(rest).empty()) {
      return Fail(std::string(key) + "= line has extra text " + Quote(Trim(rest)));
    }
    pending_ = key == "calls" ? Pending::kCall : Pending::kJump;
    pending_line_ = line_number_;
    return true;
  }
  if (key == "rec" || key == "ln" || key == "bb") {
    return true;  // recursion level, --dump-bbs block lines: no cost of their own
  }
  return Fail("unknown specification '" + std::string(key) + "='");
}

bool Reader::ParsePositions(std::string_view* rest, std::vector<uint64_t>* positions,
                            bool update_base) {
  size_t n = part_.position_names.size();
  positions->resize(n);
  for (size_t i = 0; i < n; ++i) {
    std::string_view token = NextToken(rest);
    if (token.empty()) {
      return Fail("position has " + std::to_string(i) + " subpositions but positions: lists " +
                  std::to_string(n));
    }
    uint64_t v = 0;
    if (token == "*") {
      v = base_[i];
    } else if (token[0] == '+' || token[0] == '-') {
      uint64_t delta = 0;
      if (!ParseNumber(token.substr(1), &delta)) {
        return Fail("bad relative " + part_.position_names[i] + " position " + Quote(token));
      }
      if (token[0] == '+') {
        if (base_[i] + delta < base_[i])
          return Fail("relative position " + Quote(token) + " overflows");
        v = base_[i] + delta;
      } else {
        if (delta > base_[i]) {
          return Fail("relative position " + Quote(token) + " goes below 0 (previous " +
                      part_.position_names[i] + " was " + std::to_string(base_[i]) + ")");
        }
        v = base_[i] - delta;
      }
    } else if (!ParseNumber(token, &v)) {
      return Fail("bad " + part_.position_names[i] + " position " + Quote(token));
    }
    (*positions)[i] = v;
  }
  if (update_base) base_ = *positions;
  return true;
}

bool Reader::ParseCosts(std::string_view rest, std::vector<uint64_t>* costs) {
  costs->clear();
  size_t n = part_.event_map.size();
  for (;;) {
    std::string_view token = NextToken(&rest);
    if (token.empty()) break;
    if (costs->size() == n) {
      return Fail("more than " + std::to_string(n) + " costs, but events: lists " +
                  std::to_string(n) + " events");
    }
    uint64_t v = 0;
    if (!ParseNumber(token, &v)) return Fail("bad cost " + Quote(token));
    costs->push_back(v);
  }
  return true;
}

bool Reader::HandleCostLine(std::string_view line) {
  if (!part_.has_events) return Fail("cost line before any events: line");
  part_.in_body = true;
  Pending pending = pending_;
  pending_ = Pending::kNone;
  std::string_view rest = line;
  // Only a self cost line moves the base: the writer prints call and jump lines relative to the
  // last self cost line without updating it.
  if (!ParsePositions(&rest, &positions_, /*update_base=*/pending == Pending::kNone)) {
    return false;
  }
  if (!ParseCosts(rest, &line_costs_)) return false;
  if (pending == Pending::kCall) return true;  // inclusive cost of a call: counted in the callee
  if (pending == Pending::kJump) {
    if (!line_costs_.empty()) return Fail("the line after a jump= line carries costs");
    return true;
  }
  if (line_costs_.empty()) return true;
  if (!object_set_) {
    object_ = ObjectIndex("");
    object_set_ = true;
  }
  if (part_.instr_index < 0) any_costs_without_instr_ = true;
  any_costs_ = true;
  uint64_t address = part_.instr_index < 0 ? 0 : positions_[part_.instr_index];
  AddSelfCost(address, line_costs_);
  return true;
}

namespace {
uint32_t LineOf(uint64_t line) { return line > UINT32_MAX ? 0 : static_cast<uint32_t>(line); }
}  // namespace

void Reader::AddSelfCost(uint64_t address, const std::vector<uint64_t>& part_costs) {
  size_t stride = out_->events.size();
  bool inserted;
  uint32_t r = site_rows_[object_].FindOrInsert(address, static_cast<uint32_t>(row_sites_.size()),
                                                &inserted);
  if (inserted) {
    row_sites_.push_back({object_, address});
    rows_.resize(rows_.size() + stride, 0);
    row_sources_.emplace_back();
  }
  // An address is one instruction, so one function and line: the first that names them holds.
  SiteSource& source = row_sources_[r];
  if (source.function == SiteSource::kUnnamed) source.function = function_;
  if (source.file == SiteSource::kUnnamed) {
    source.file = inline_file_ != SiteSource::kUnnamed ? inline_file_ : file_;
    if (part_.line_index >= 0) source.line = LineOf(positions_[part_.line_index]);
  }
  uint64_t* row = &rows_[static_cast<size_t>(r) * stride];
  if (part_.self.size() < stride) part_.self.resize(stride, 0);
  for (size_t c = 0; c < part_costs.size(); ++c) {
    size_t g = static_cast<size_t>(part_.event_map[c]);
    row[g] += part_costs[c];
    part_.self[g] += part_costs[c];
  }
}

void Reader::Finish() {
  size_t stride = out_->events.size();
  std::vector<uint32_t> order(row_sites_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const InstructionSite& x = row_sites_[a];
    const InstructionSite& y = row_sites_[b];
    return x.object != y.object ? x.object < y.object : x.address < y.address;
  });
  out_->sites.resize(order.size());
  out_->site_sources.resize(order.size());
  out_->costs.assign(order.size() * stride, 0);
  out_->self_totals.assign(stride, 0);
  for (size_t i = 0; i < order.size(); ++i) {
    out_->sites[i] = row_sites_[order[i]];
    out_->site_sources[i] = row_sources_[order[i]];
    const uint64_t* src = &rows_[static_cast<size_t>(order[i]) * stride];
    std::copy_n(src, stride, &out_->costs[i * stride]);
    for (size_t e = 0; e < stride; ++e) out_->self_totals[e] += src[e];
  }
  if (all_parts_have_totals_ && out_->parts > 0) {
    totals_sum_.resize(stride, 0);
    out_->totals = totals_sum_;
  }
  out_->has_instr_positions = any_costs_ && !any_costs_without_instr_;
  out_->has_line_positions = part_.line_index >= 0;
}

// Maps a file read-only; falls back to read() for files mmap refuses (pipes, /proc).
class FileText {
 public:
  ~FileText() {
    if (map_ != nullptr) munmap(map_, size_);
  }
  bool Open(const std::string& path, Error* err) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return Fail(err, ErrorKind::kEnvironment, path + ": cannot open: " + std::strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      size_ = static_cast<size_t>(st.st_size);
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        map_ = p;
        close(fd);
        return true;
      }
      size_ = 0;
    }
    char buf[1 << 16];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int read_errno = errno;
        close(fd);
        return Fail(err, ErrorKind::kEnvironment,
                    path + ": cannot read: " + std::strerror(read_errno));
      }
      if (n == 0) break;
      copy_.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return true;
  }
  std::string_view text() const {
    return map_ != nullptr ? std::string_view(static_cast<const char*>(map_), size_) : copy_;
  }

 private:
  void* map_ = nullptr;
  size_t size_ = 0;
  std::string copy_;
};

}  // namespace

std::optional<CacheLevelGeometry> ParseCacheDescription(std::string_view text) {
  // "<size> B, <line> B, <n>-way associative" | "... direct-mapped" | "... fully associative",
  // optionally followed by more comma-separated words (", sectored").
  std::string_view rest = text;
  auto number_then_b = [&](uint64_t* v) {
    std::string_view t = NextToken(&rest);
    if (!ParseNumber(t, v)) return false;
    std::string_view unit = NextToken(&rest);
    if (unit != "B," && unit != "B") return false;
    if (unit == "B") {
      rest = TrimLeft(rest);
      if (rest.empty() || rest[0] != ',') return false;
      rest.remove_prefix(1);
    }
    return true;
  };
  uint64_t size = 0, line = 0;
  if (!number_then_b(&size) || !number_then_b(&line)) return std::nullopt;
  rest = Trim(rest);
  size_t comma = rest.find(',');
  std::string_view kind = Trim(rest.substr(0, comma));
  CacheLevelGeometry g;
  g.size_bytes = size;
  if (line == 0 || line > UINT32_MAX) return std::nullopt;
  g.line_bytes = static_cast<uint32_t>(line);
  if (kind == "direct-mapped") {
    g.associativity = 1;
  } else if (kind == "fully associative") {
    g.associativity = 0;
  } else {
    constexpr std::string_view kWay = "-way associative";
    if (kind.size() <= kWay.size() || kind.substr(kind.size() - kWay.size()) != kWay) {
      return std::nullopt;
    }
    uint64_t ways = 0;
    if (!ParseNumber(kind.substr(0, kind.size() - kWay.size()), &ways) || ways == 0 ||
        ways > UINT32_MAX) {
      return std::nullopt;
    }
    g.associativity = static_cast<uint32_t>(ways);
  }
  return g;
}

CallgrindOutput CallgrindOutput::PartOf(const CallgrindOutput& whole) {
  CallgrindOutput part;
  std::tie(part.events, part.objects, part.cache, part.creator, part.has_instr_positions,
           part.has_line_positions) =
      std::tie(whole.events, whole.objects, whole.cache, whole.creator, whole.has_instr_positions,
               whole.has_line_positions);
  part.self_totals.assign(whole.events.size(), 0);
  return part;
}

void CallgrindOutput::AddSite(const CallgrindOutput& from, size_t site) {
  const size_t stride = from.events.size();
  sites.push_back(from.sites[site]);
  for (size_t e = 0; e < stride; ++e) {
    uint64_t v = from.costs[site * stride + e];
    costs.push_back(v);
    self_totals[e] += v;
  }
}

int CallgrindOutput::EventIndex(std::string_view name) const {
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i] == name) return static_cast<int>(i);
  }
  return -1;
}

bool ParseCallgrindOutput(std::string_view text, CallgrindOutput* out, Error* err) {
  Reader reader(out);
  ParseError error;
  if (!reader.ParseFile(text, &error))
    return Fail(err, ErrorKind::kEnvironment,
                "line " + std::to_string(error.line) + ": " + error.message);
  reader.Finish();
  return true;
}

bool ReadCallgrindOutputFiles(const std::vector<std::string>& paths, CallgrindOutput* out,
                              Error* err) {
  Reader reader(out);
  for (const std::string& path : paths) {
    FileText file;
    if (!file.Open(path, err)) return false;
    ParseError error;
    if (!reader.ParseFile(file.text(), &error))
      return Fail(err, ErrorKind::kEnvironment,
                  path + ":" + std::to_string(error.line) + ": " + error.message);
  }
  reader.Finish();
  return true;
}

}  // namespace rprof
