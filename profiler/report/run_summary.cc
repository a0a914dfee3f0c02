#include "report/run_summary.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "core/text.h"
#include "functions/hot_functions.h"
#include "functions/hot_lines.h"
#include "report/run_regions.h"
#include "report/text_table.h"

namespace rprof {

namespace {

// The trust notes that change what the verdict means (core/run.h's kTrustKinds): the others
// (a missing event sim counted instead, a hypervisor, no calibration yet) qualify values the
// verdict does not rest on alone, and wait in the full report.
constexpr const char* kVerdictTrustKinds[] = {"untrusted", "multiplexed", "noisy_profile",
                                              "time_contradicts_bytes", "replay_ran_other_code"};

bool ChangesVerdict(const TrustNote& note) {
  return std::any_of(std::begin(kVerdictTrustKinds), std::end(kVerdictTrustKinds),
                     [&](const char* kind) { return note.kind == kind; });
}

// "libc.so.6", "ld-linux-x86-64.so.2", "libfoo.so": a shared object by its name.
bool IsSharedObjectName(std::string_view name) {
  size_t so = name.find(".so");
  return so != std::string_view::npos && (so + 3 == name.size() || name[so + 3] == '.');
}

std::optional<double> ValueIn(const std::vector<const Metric*>& metrics, std::string_view name,
                              std::optional<Source> source = std::nullopt) {
  for (const Metric* m : metrics)
    if (m->name == name && (!source || m->source == *source) && m->value) return m->value;
  return std::nullopt;
}

const std::string* NoteIn(const std::vector<const Metric*>& metrics, std::string_view name,
                          Source source) {
  for (const Metric* m : metrics)
    if (m->name == name && m->source == source) return &m->note;
  return nullptr;
}

std::optional<double> Sum(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return *a + *b;
}

// "l1 bandwidth, 12 %": a placement's bound and how near its roof, as history prints it.
std::string BoundCellText(const Placement* p) {
  if (!p || !p->placed) return "-";
  std::string out = BoundText(*p);
  if (p->percent_of_roof) out += Format(", %.0f %%", *p->percent_of_roof);
  return out;
}

// One line of the hot-function table: a function, or a shared library's functions folded.
struct HotRow {
  std::string name;
  std::string library;  // "" for the program's own code
  int functions = 1;
  std::optional<double> time_s, share, flops;
  double instructions = 0;
  const Placement* placement = nullptr;  // a lone function's own
};

std::optional<double> GflopsOf(std::optional<double> flops, std::optional<double> time_s) {
  if (!flops || !time_s || !(*time_s > 0)) return std::nullopt;
  return *flops / *time_s / 1e9;
}

std::string ProgramName(const RunRecord& run) {
  return std::string(BaseName(run.command.empty() ? run.target : run.command.front()));
}

}  // namespace

std::string SharedLibraryOf(std::string_view function, std::string_view note,
                            std::string_view program) {
  std::string_view object;
  constexpr std::string_view kNamed = " (its symbol)";
  constexpr std::string_view kUnnamed = "code without a symbol in ";
  if (size_t end = note.find(kNamed); end != std::string_view::npos) {
    size_t in = note.rfind(" in ", end);
    if (in != std::string_view::npos) object = note.substr(in + 4, end - in - 4);
  } else if (note.substr(0, kUnnamed.size()) == kUnnamed) {
    size_t colon = note.find(": ", kUnnamed.size());
    object =
        note.substr(kUnnamed.size(), colon == std::string_view::npos ? std::string_view::npos
                                                                     : colon - kUnnamed.size());
  } else if (size_t plus = function.find("+0x"); plus != std::string_view::npos) {
    object = function.substr(0, plus);
  }
  object = BaseName(object);
  if (object.empty() || object == BaseName(program) || !IsSharedObjectName(object)) return "";
  return std::string(object);
}

void AddRunSummary(const RunRecord& run, const RunPlacement* placement, Report* report) {
  RegionMetrics regions = GroupByRegion(run.metrics);
  const RegionPlacements region_placements(placement);

  // The verdict, first: where the run stands and what binds it.
  const Placement* placed =
      placement && placement->profile_id != 0 ? &placement->placement : nullptr;
  std::string level;
  std::optional<Source> level_source;
  if (!placement) {
    if (run.placement) {
      report->AddText("\nroofline: " + run.placement->verdict + "\n");
      level = run.placement->binding_level;
      level_source = ParseSource(run.placement->binding_source);
    }
  } else if (!placed) {
    report->AddText("\nroofline: " + placement->missing + "\n");
  } else if (!placed->placed) {
    report->AddText("\nroofline (machine profile " + std::to_string(placement->profile_id) +
                    "): not placed: " + placed->reason + "\n");
  } else {
    std::string out = "\nroofline (machine profile " + std::to_string(placement->profile_id) +
                      "): " + placed->verdict + "\n";
    if (!placed->note.empty()) out += "note: " + placed->note + "\n";
    out += "binding: " + placed->binding + "; compute roof: " + placed->compute_ceiling + " " +
           FormatValue(placed->peak) + " GFLOP/s\n";
    report->AddText(out);
    level = placed->binding_level;
    level_source = placed->binding_source;
  }
  if (level.empty()) level = "dram";

  // The figures the verdict rests on: time, FLOPs, the binding level's bytes, the rate, the AI.
  std::vector<const Metric*> shown;
  auto metric = [&](const std::string& name, std::optional<Source> source) -> const Metric* {
    const Metric* m = source ? FindMetric(run.metrics, name, *source) : nullptr;
    if (!m || !m->value) m = PreferredMetric(run.metrics, name);
    return m;
  };
  for (const Metric* m : {FindMetric(run.metrics, "time_s", Source::kClock),
                          metric("flops", std::nullopt), metric("bytes_" + level, level_source),
                          metric("gflops", std::nullopt), metric("ai_" + level, level_source)})
    if (m) shown.push_back(m);
  report->AddText("\n");
  Table& figures = report->AddTable({{"metric", "metric"},
                                     {"value", "value", Align::kRight},
                                     {"unit", "unit"},
                                     {"source", "source"},
                                     Column("note", "note").Notes()},
                                    kInText);
  for (const Metric* m : shown)
    // A value's note is its source's detail (the full report has it), but an absent value's
    // note is why, and stays beside it.
    figures.AddRow({Cell::Text(m->name), Cell::Number(m->value), Cell::Text(m->unit),
                    Cell::Text(SourceName(m->source)),
                    Cell::Text(m->value ? "" : EscapeForTerminal(m->note))});

  // A program mostly off the CPU, said once: its wall time is mostly waiting, which no roof
  // measures (functions/sampled_time.h).
  if (const Metric* off = FindMetric(run.metrics, "off_cpu_share", Source::kClock);
      off && off->value)
    report->AddText("\n" + off->note + "\n");

  // The hot functions by time, a shared library's internals folded into one line.
  const std::string program = ProgramName(run);
  std::vector<HotRow> rows;
  std::map<std::string, size_t> library_rows;
  size_t functions = 0;
  for (const std::string& region : FunctionRegionsHeaviestFirst(run.metrics)) {
    ++functions;
    const std::vector<const Metric*>& metrics = regions[region];
    HotRow row;
    row.name = std::string(FunctionOfRegion(region));
    const std::string* note = NoteIn(metrics, "instructions", Source::kSim);
    row.library = SharedLibraryOf(row.name, note ? *note : "", program);
    row.time_s = ValueIn(metrics, "time_s", Source::kClock);
    row.share = ValueIn(metrics, "time_share", Source::kClock);
    row.flops = ValueIn(metrics, "flops");
    row.instructions = ValueIn(metrics, "instructions", Source::kSim).value_or(0);
    row.placement = region_placements.Of(region);
    if (row.library.empty()) {
      rows.push_back(std::move(row));
      continue;
    }
    auto [it, added] = library_rows.emplace(row.library, rows.size());
    if (added) {
      rows.push_back(std::move(row));
      continue;
    }
    HotRow& folded = rows[it->second];
    folded.functions += 1;
    folded.time_s = Sum(folded.time_s, row.time_s);
    folded.share = Sum(folded.share, row.share);
    folded.flops = Sum(folded.flops, row.flops);
    folded.instructions += row.instructions;
    folded.placement = nullptr;
  }
  for (HotRow& row : rows)
    if (row.functions > 1)
      row.name = row.library + " (" + std::to_string(row.functions) + " functions)";
    else if (!row.library.empty())
      row.name += " (" + row.library + ")";
  // By time where any was sampled (its share: a function with too few samples for a time still
  // has one), else by the instructions sim counted, as FunctionRegionsHeaviestFirst orders them.
  bool timed = std::any_of(rows.begin(), rows.end(), [](const HotRow& r) { return r.share; });
  std::stable_sort(rows.begin(), rows.end(), [&](const HotRow& a, const HotRow& b) {
    return timed ? a.share.value_or(-1) > b.share.value_or(-1) : a.instructions > b.instructions;
  });
  if (!rows.empty()) {
    bool folded =
        std::any_of(rows.begin(), rows.end(), [](const HotRow& r) { return r.functions > 1; });
    report->AddText(std::string(timed ? "\nhot functions by time"
                                      : "\nhot functions by instructions (sim; no time sampled)") +
                    (folded ? ", a shared library's in one line\n" : "\n"));
    const size_t shown_rows = std::min(rows.size(), kSummaryTopRows);
    // The bound where any of them was placed (a function needs a rate for one).
    bool bounds = std::any_of(rows.begin(), rows.begin() + static_cast<long>(shown_rows),
                              [](const HotRow& r) { return r.placement && r.placement->placed; });
    // A time (and so a rate) where a function had samples enough for one, else its share.
    bool times = std::any_of(rows.begin(), rows.begin() + static_cast<long>(shown_rows),
                             [](const HotRow& r) { return GflopsOf(r.flops, r.time_s); });
    std::vector<Column> columns = {{"function", "function"}};
    if (times) columns.emplace_back("time", "time", Align::kRight);
    columns.emplace_back("share", timed ? "time %" : "instr. %", Align::kRight);
    if (times) columns.emplace_back("gflops", "GFLOP/s", Align::kRight);
    if (bounds) columns.emplace_back("bound", "bound, % of roof");
    Table& table = report->AddTable(std::move(columns), kInText);
    // Without samples, each one's share of the run's executed instructions (sim).
    const Metric* run_instructions = FindMetric(run.metrics, "instructions", Source::kSim);
    double instructions = run_instructions ? run_instructions->value.value_or(0) : 0;
    for (size_t i = 0; i < shown_rows; ++i) {
      const HotRow& r = rows[i];
      std::optional<double> share = r.share;
      if (!timed && instructions > 0) share = r.instructions / instructions;
      std::vector<Cell> row = {Cell::Text(EscapeForTerminal(r.name))};
      if (times) row.push_back(Cell::Number(r.time_s, r.time_s ? FormatSeconds(*r.time_s) : "-"));
      row.push_back(Cell::Number(share, share ? Format("%.1f %%", 100 * *share) : "-"));
      if (times) row.push_back(Cell::Number(GflopsOf(r.flops, r.time_s)));
      if (bounds) row.push_back(Cell::Text(BoundCellText(r.placement)));
      table.AddRow(std::move(row));
    }
    if (rows.size() > kSummaryTopRows) {
      std::optional<double> rest;
      for (size_t i = kSummaryTopRows; i < rows.size(); ++i) rest = Sum(rest, rows[i].share);
      report->AddText("  and " + std::to_string(rows.size() - kSummaryTopRows) + " more functions" +
                      (rest ? Format(" (%.1f %% of the time)", 100 * *rest) : "") + "\n");
    }
  }

  // The program's marker regions, by time.
  std::vector<std::string> marked;
  for (const auto& [region, metrics] : regions)
    if (!region.empty() && !IsHotCodeRegion(region)) marked.push_back(region);
  auto region_time = [&](const std::string& region) {
    return ValueIn(regions[region], "time_s", Source::kClock).value_or(-1);
  };
  std::stable_sort(marked.begin(), marked.end(), [&](const std::string& a, const std::string& b) {
    return region_time(a) > region_time(b);
  });
  if (!marked.empty()) {
    report->AddText("\nmarker regions by time\n");
    Table& table = report->AddTable({{"region", "region"},
                                     {"time", "time", Align::kRight},
                                     {"gflops", "GFLOP/s", Align::kRight},
                                     {"bound", "bound, % of roof"}},
                                    kInText);
    for (size_t i = 0; i < marked.size() && i < kSummaryTopRows; ++i) {
      const std::vector<const Metric*>& metrics = regions[marked[i]];
      std::optional<double> time_s = ValueIn(metrics, "time_s", Source::kClock);
      const Metric* gflops = PreferredMetric(run.metrics, "gflops", marked[i]);
      table.AddRow({Cell::Text(EscapeForTerminal(marked[i])),
                    Cell::Number(time_s, time_s ? FormatSeconds(*time_s) : "-"),
                    Cell::Number(gflops ? gflops->value : std::nullopt),
                    Cell::Text(BoundCellText(region_placements.Of(marked[i])))});
    }
    if (marked.size() > kSummaryTopRows)
      report->AddText("  and " + std::to_string(marked.size() - kSummaryTopRows) +
                      " more regions\n");
  }

  // Only the trust notes that change the verdict.
  size_t notes_left = 0;
  std::string trust;
  for (const TrustNote& note : run.trust) {
    if (!ChangesVerdict(note)) {
      ++notes_left;
      continue;
    }
    trust += "  " + note.kind + ": " + note.detail + "\n";
  }
  if (!trust.empty()) report->AddText("\ntrust:\n" + trust);

  // What the full report has besides, and how to see it.
  const size_t shown_metrics = shown.size();
  std::vector<std::string> left;
  if (run.metrics.size() > shown_metrics)
    left.push_back(std::to_string(run.metrics.size() - shown_metrics) + " more metrics");
  if (functions > 0)
    left.push_back(std::to_string(functions) + (functions == 1 ? " function" : " functions"));
  if (notes_left > 0)
    left.push_back(std::to_string(notes_left) + (notes_left == 1 ? " trust note" : " trust notes"));
  std::string list;
  for (size_t i = 0; i < left.size(); ++i)
    list += (i == 0 ? "" : i + 1 == left.size() ? " and " : ", ") + left[i];
  report->AddText("\n" + (list.empty() ? std::string("the full report") : list) + ": rprof show " +
                  std::to_string(run.id) + " -v\n");
}

}  // namespace rprof
