#include "counters/pmu/metric_group.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/spelling.h"
#include "core/text.h"
#include "counters/pmu/canonical_metrics.h"

namespace rprof {
namespace {

bool IsIdentifier(std::string_view text) {
  if (text.empty()) return false;
  if (!std::isalpha(static_cast<unsigned char>(text[0])) && text[0] != '_') return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool IsPmuName(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool IsPapiPreset(std::string_view text) {
  if (text.size() <= 5 || text.substr(0, 5) != "PAPI_") return false;
  return std::all_of(text.begin() + 5, text.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Splits off the first whitespace-separated word; *rest gets the trimmed remainder.
std::string_view FirstWord(std::string_view text, std::string_view* rest) {
  text = Trim(text);
  size_t end = 0;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  *rest = Trim(text.substr(end));
  return text.substr(0, end);
}

std::vector<std::string> CanonicalNames() {
  std::vector<std::string> names;
  for (const auto& metric : CanonicalMetrics()) names.emplace_back(metric.name);
  return names;
}

enum class Section { kHeader, kEvents, kMetrics, kAbsent, kLong };

class GroupParser {
 public:
  GroupParser(std::string_view origin, MetricGroup* group, Error* err)
      : origin_(origin), group_(group), err_(err) {}

  bool Parse(std::string_view text) {
    int line_no = 0;
    std::vector<std::string> long_lines;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view raw = text.substr(pos, end - pos);
      pos = end + 1;
      ++line_no;
      if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
      if (section_ == Section::kLong) {
        long_lines.emplace_back(raw);
        continue;
      }
      std::string_view line = Trim(raw);
      if (line.empty() || line[0] == '#') continue;
      if (!ParseLine(line, line_no)) return false;
    }
    // LONG text: verbatim, without the blank lines around it.
    while (!long_lines.empty() && Trim(long_lines.back()).empty()) long_lines.pop_back();
    size_t first = 0;
    while (first < long_lines.size() && Trim(long_lines[first]).empty()) ++first;
    for (size_t i = first; i < long_lines.size(); ++i) {
      group_->details += long_lines[i];
      group_->details += '\n';
    }
    return Validate();
  }

 private:
  bool Fail(int line, const std::string& what) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) on
    // ":" + std::to_string(line).
    std::string where(origin_);
    if (line > 0) {
      where += ':';
      where += std::to_string(line);
    }
    return rprof::Fail(err_, ErrorKind::kEnvironment, where + ": " + what);
  }

  bool ParseLine(std::string_view line, int line_no) {
    if (line == "EVENTS" || line == "METRICS" || line == "ABSENT" || line == "LONG") {
      if (format_line_ == 0) return Fail(line_no, "the file must start with 'FORMAT 1'");
      Section next = line == "EVENTS"    ? Section::kEvents
                     : line == "METRICS" ? Section::kMetrics
                     : line == "ABSENT"  ? Section::kAbsent
                                         : Section::kLong;
      if (seen_sections_.count(next))
        return Fail(line_no, "section " + std::string(line) + " appears twice");
      seen_sections_.insert(next);
      section_ = next;
      return true;
    }
    std::string_view rest;
    std::string_view word = FirstWord(line, &rest);
    if (word == "FORMAT" || word == "SHORT" || word == "PMU") {
      if (section_ != Section::kHeader)
        return Fail(line_no, std::string(word) + " belongs before the first section");
      return ParseHeader(word, rest, line_no);
    }
    if (format_line_ == 0) return Fail(line_no, "the file must start with 'FORMAT 1'");
    switch (section_) {
      case Section::kHeader:
        return Fail(line_no, "unknown directive '" + std::string(word) +
                                 "'; expected FORMAT, SHORT, PMU or a section "
                                 "(EVENTS, METRICS, ABSENT, LONG)");
      case Section::kEvents:
        return ParseEvent(line, line_no);
      case Section::kMetrics:
        return ParseMetricLine(line, line_no);
      case Section::kAbsent:
        return ParseAbsent(line, line_no);
      case Section::kLong:
        break;
    }
    return true;
  }

  bool ParseHeader(std::string_view word, std::string_view rest, int line_no) {
    if (word == "FORMAT") {
      if (format_line_ != 0) return Fail(line_no, "FORMAT given twice");
      format_line_ = line_no;
      if (rest != std::to_string(kGroupFormatVersion)) {
        bool numeric = !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        });
        if (numeric)
          return Fail(line_no, "FORMAT " + std::string(rest) +
                                   " is not readable by this rprof (it reads FORMAT " +
                                   std::to_string(kGroupFormatVersion) +
                                   "); update rprof or rewrite the file");
        return Fail(line_no, "FORMAT needs a version number, e.g. 'FORMAT 1'");
      }
      return true;
    }
    if (format_line_ == 0) return Fail(line_no, "the file must start with 'FORMAT 1'");
    if (word == "SHORT") {
      if (!group_->description.empty()) return Fail(line_no, "SHORT given twice");
      if (rest.empty()) return Fail(line_no, "SHORT needs a one-line description");
      group_->description = std::string(rest);
      return true;
    }
    // PMU
    if (!group_->pmu.empty()) return Fail(line_no, "PMU given twice");
    if (!IsPmuName(rest))
      return Fail(line_no, "PMU needs a libpfm4 PMU model name such as 'icx' or 'generic', got '" +
                               std::string(rest) + "'");
    group_->pmu = std::string(rest);
    return true;
  }

  bool ParseEvent(std::string_view line, int line_no) {
    if (group_->pmu.empty()) return Fail(line_no, "the PMU line must come before EVENTS");
    std::string_view rest;
    std::string_view alias = FirstWord(line, &rest);
    std::string_view flag;
    std::string_view event = FirstWord(rest, &flag);
    if (event.empty())
      return Fail(line_no, "an event line is 'alias  pmu::EVENT:UMASK  [optional]', got '" +
                               std::string(line) + "'");
    if (!IsIdentifier(alias))
      return Fail(line_no, "event alias '" + std::string(alias) +
                               "' must be a letter or '_' followed by letters, digits or '_'");
    if (alias == kTimeName)
      return Fail(line_no, "'" + std::string(kTimeName) + "' is reserved for the run's wall time");
    if (group_->FindEvent(alias))
      return Fail(line_no, "event alias '" + std::string(alias) + "' declared twice");
    for (const auto& other : group_->events) {
      if (other.event == event)
        return Fail(line_no,
                    "event " + std::string(event) + " already declared as '" + other.alias + "'");
    }
    GroupEvent declared;
    declared.alias = std::string(alias);
    declared.event = std::string(event);
    declared.line = line_no;
    if (flag == "optional") {
      declared.required = false;
    } else if (!flag.empty() && flag != "required") {
      return Fail(line_no, "after the event name only 'optional' or 'required' may follow, got '" +
                               std::string(flag) + "'");
    }
    std::string why;
    if (!CheckEventName(declared.event, &why)) return Fail(line_no, why);
    group_->events.push_back(std::move(declared));
    return true;
  }

  bool CheckEventName(const std::string& event, std::string* why) const {
    if (group_->pmu == kGenericPmu) {
      if (IsPapiPreset(event)) return true;
      *why = "the generic set uses PAPI presets (PAPI_TOT_INS, ...), got '" + event + "'";
      return false;
    }
    size_t sep = event.find("::");
    if (sep == std::string::npos || sep == 0 || sep + 2 >= event.size()) {
      *why = "event '" + event + "' must be qualified with its PMU as libpfm4 names it, e.g. '" +
             group_->pmu + "::" + event + "'";
      return false;
    }
    std::string pmu = event.substr(0, sep);
    // The core PMU itself, or one of its uncore PMUs ("skx_unc_imc0", "amd64_fam19h_zen3_l3").
    if (pmu != group_->pmu && pmu.rfind(group_->pmu + "_", 0) != 0) {
      *why = "event '" + event + "' belongs to PMU '" + pmu + "', not to this group's PMU '" +
             group_->pmu + "' or one of its uncore PMUs ('" + group_->pmu + "_...')";
      return false;
    }
    std::string_view tail = std::string_view(event).substr(sep + 2);
    if (tail.find("::") != std::string_view::npos || tail.front() == ':' || tail.back() == ':' ||
        std::any_of(tail.begin(), tail.end(),
                    [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
      *why = "malformed event name '" + event + "'";
      return false;
    }
    return true;
  }

  bool ParseMetricLine(std::string_view line, int line_no) {
    // A note: "approximation: ...", "uncore: ...", "note: ..." attaches to the metric above.
    std::string_view rest;
    std::string_view word = FirstWord(line, &rest);
    for (auto kind :
         {MetricNote::Kind::kNote, MetricNote::Kind::kApproximation, MetricNote::Kind::kUncore}) {
      if (word == std::string(NoteKindName(kind)) + ":") {
        if (group_->metrics.empty())
          return Fail(line_no, std::string(word) + " must follow the metric it describes");
        if (rest.empty()) return Fail(line_no, std::string(word) + " needs text");
        group_->metrics.back().notes.push_back({kind, std::string(rest)});
        return true;
      }
    }
    if (!word.empty() && word.back() == ':')
      return Fail(line_no, "unknown note '" + std::string(word) +
                               "'; notes are 'note:', 'approximation:' or 'uncore:'");

    // name [unit] = formula
    size_t open = line.find('[');
    size_t close = line.find(']');
    size_t equals = line.find('=');
    if (equals == std::string_view::npos)
      return Fail(line_no,
                  "a metric line is 'name [unit] = formula', got '" + std::string(line) + "'");
    if (open == std::string_view::npos || open > equals || close == std::string_view::npos ||
        close < open || close > equals)
      return Fail(line_no,
                  "metric '" + std::string(Trim(line.substr(0, equals))) +
                      "' needs a unit in brackets before '=', e.g. 'bytes_dram [B] = ...'");
    std::string name(Trim(line.substr(0, open)));
    std::string unit(Trim(line.substr(open + 1, close - open - 1)));
    if (!Trim(line.substr(close + 1, equals - close - 1)).empty())
      return Fail(line_no, "unexpected text between the unit and '='");
    const CanonicalMetric* canonical = FindCanonicalMetric(name);
    if (!canonical)
      return Fail(line_no, "'" + name + "' is not a canonical metric name" +
                               DidYouMean(name, CanonicalNames()));
    if (unit.empty()) return Fail(line_no, "metric " + name + " has an empty unit");
    if (unit != canonical->unit)
      return Fail(line_no, "metric " + name + " is in [" + std::string(canonical->unit) +
                               "], not [" + unit + "]");
    std::string_view text = Trim(line.substr(equals + 1));
    if (text.empty()) return Fail(line_no, "metric " + name + " has no formula after '='");
    Error formula_err;
    auto formula = Formula::Parse(text, &formula_err);
    if (!formula)
      return Fail(line_no,
                  "formula of " + name + " '" + std::string(text) + "': " + formula_err.message);
    for (const auto& input : formula->names()) {
      if (input == kTimeName || group_->FindEvent(input)) continue;
      std::vector<std::string> known{std::string(kTimeName)};
      for (const auto& e : group_->events) known.push_back(e.alias);
      return Fail(line_no, "formula of " + name + " reads '" + input +
                               "', which is neither a declared event alias nor " +
                               std::string(kTimeName) + DidYouMean(input, known));
    }
    group_->metrics.push_back(GroupMetric{name, unit, std::move(*formula), {}, line_no});
    return true;
  }

  bool ParseAbsent(std::string_view line, int line_no) {
    std::string_view reason;
    std::string name(FirstWord(line, &reason));
    if (!FindCanonicalMetric(name))
      return Fail(line_no, "'" + name + "' is not a canonical metric name" +
                               DidYouMean(name, CanonicalNames()));
    if (reason.empty()) return Fail(line_no, "absent metric " + name + " needs its reason");
    for (const auto& other : group_->absent) {
      if (other.name == name) return Fail(line_no, "absent metric " + name + " listed twice");
    }
    group_->absent.push_back({name, std::string(reason), line_no});
    return true;
  }

  bool Validate() {
    if (format_line_ == 0) return Fail(0, "no FORMAT line; the file must start with 'FORMAT 1'");
    if (group_->description.empty()) return Fail(0, "no SHORT line (a one-line description)");
    if (group_->pmu.empty()) return Fail(0, "no PMU line");
    if (group_->events.empty()) return Fail(0, "no EVENTS section with at least one event");
    if (group_->metrics.empty()) return Fail(0, "no METRICS section with at least one metric");
    for (const auto& absent : group_->absent) {
      for (const auto& metric : group_->metrics) {
        if (metric.name == absent.name)
          return Fail(absent.line, "metric " + absent.name +
                                       " is declared absent but defined on line " +
                                       std::to_string(metric.line));
      }
    }
    // An event no formula reads would take a counter for nothing.
    for (const auto& event : group_->events) {
      bool used = false;
      for (const auto& metric : group_->metrics) {
        const auto& names = metric.formula.names();
        used = used || std::find(names.begin(), names.end(), event.alias) != names.end();
      }
      if (!used)
        return Fail(event.line, "event '" + event.alias + "' (" + event.event +
                                    ") is read by no metric; remove it or use it");
    }
    return true;
  }

  std::string_view origin_;
  MetricGroup* group_;
  Error* err_;
  Section section_ = Section::kHeader;
  std::set<Section> seen_sections_;
  int format_line_ = 0;
};

}  // namespace

std::string_view NoteKindName(MetricNote::Kind kind) {
  switch (kind) {
    case MetricNote::Kind::kApproximation:
      return "approximation";
    case MetricNote::Kind::kUncore:
      return "uncore";
    case MetricNote::Kind::kNote:
      break;
  }
  return "note";
}

bool HasNoteOfKind(const std::vector<MetricNote>& notes, MetricNote::Kind kind) {
  return std::any_of(notes.begin(), notes.end(),
                     [kind](const MetricNote& n) { return n.kind == kind; });
}

bool GroupMetric::approximated() const {
  return HasNoteOfKind(notes, MetricNote::Kind::kApproximation);
}

bool GroupMetric::uncore() const { return HasNoteOfKind(notes, MetricNote::Kind::kUncore); }

const GroupEvent* MetricGroup::FindEvent(std::string_view alias) const {
  for (const auto& event : events) {
    if (event.alias == alias) return &event;
  }
  return nullptr;
}

std::vector<std::string> MetricGroup::MetricNames() const {
  std::vector<std::string> names;
  auto add = [&names](const std::string& metric) {
    if (std::find(names.begin(), names.end(), metric) == names.end()) names.push_back(metric);
  };
  for (const auto& metric : metrics) add(metric.name);
  for (const auto& a : absent) add(a.name);
  return names;
}

bool IsValidGroupName(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool ParseMetricGroup(std::string_view text, std::string_view name, std::string_view origin,
                      MetricGroup* group, Error* err) {
  *group = MetricGroup{};
  if (!IsValidGroupName(name))
    return Fail(err, ErrorKind::kEnvironment,
                std::string(origin) + ": group name '" + std::string(name) +
                    "' must be upper-case letters, digits and '_' (the file name without .txt)");
  group->name = std::string(name);
  group->origin = std::string(origin);
  GroupParser parser(origin, group, err);
  return parser.Parse(text);
}

bool LoadMetricGroupFile(const std::string& path, MetricGroup* group, Error* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(err, ErrorKind::kEnvironment, path + ": cannot open the group file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Fail(err, ErrorKind::kEnvironment, path + ": cannot read the group file");
  std::string stem = std::filesystem::path(path).stem().string();
  return ParseMetricGroup(text.str(), stem, path, group, err);
}

}  // namespace rprof
