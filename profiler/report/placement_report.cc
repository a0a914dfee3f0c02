#include "report/placement_report.h"

#include "core/text.h"
#include "functions/hot_functions.h"
#include "report/json_values.h"
#include "report/text_table.h"

namespace rprof {

namespace {

std::string Num(double v) { return Format("%.3g", v); }

}  // namespace

void AddPlacementText(const Placement& p, int64_t profile_id, Report* report) {
  std::string out = "\nroofline (machine profile " + std::to_string(profile_id) + "): ";
  if (!p.placed) return report->AddText(out + "not placed: " + p.reason + "\n");
  out += p.verdict + "\n";
  if (!p.note.empty()) out += "note: " + p.note + "\n";
  out += "compute roof: " + p.compute_ceiling + " " + Num(p.peak) +
         " GFLOP/s; binding: " + p.binding + "\n";
  out += "roof of: " + p.precision_note + "; " + p.threads_note + "\n";
  if (!p.isa_note.empty()) out += "instruction mix: " + p.isa_note + "\n";
  report->AddText(out);
  if (p.levels.empty()) return;
  // "bytes as": the convention of the source's bytes, and so of the roof they are held against.
  Table& table = report->AddTable({{"level", "level"},
                                   {"source", "bytes from"},
                                   {"convention", "bytes as"},
                                   {"ai", "AI FLOP/B", Align::kRight},
                                   {"bandwidth_gbs", "roof GB/s", Align::kRight},
                                   {"attainable_gflops", "attainable GFLOP/s", Align::kRight},
                                   {"ridge_ai", "ridge AI", Align::kRight},
                                   {"side", "side"}},
                                  kInText);
  for (const LevelPlacement& l : p.levels)
    table.AddRow({Cell::Text(l.level), Cell::Text(SourceName(l.source)),
                  Cell::Text(ConventionName(l.convention)), Cell::Number(l.ai, Num(l.ai)),
                  Cell::Number(l.bandwidth, Num(l.bandwidth)),
                  Cell::Number(l.attainable, Num(l.attainable)),
                  Cell::Number(l.ridge_ai, Num(l.ridge_ai)),
                  Cell::Text(l.memory_bound ? "memory" : "compute")});
}

std::string RegionPlacementsText(const std::vector<RegionPlacement>& regions) {
  if (regions.empty()) return "";
  std::string out = "regions on the roofline:\n";
  for (const RegionPlacement& r : regions) {
    const Placement& p = r.placement;
    out += IsFunctionRegion(r.region)  // named by the program, or a hot function's symbol
               ? "  function " + EscapeForTerminal(std::string(FunctionOfRegion(r.region))) + ": "
               : "  region " + EscapeForTerminal(r.region) + ": ";
    if (!p.placed) {
      out += "not placed: " + p.reason + "\n";
      continue;
    }
    out += p.verdict + "; binding: " + p.binding + "\n";
    if (!p.note.empty()) out += "    note: " + p.note + "\n";
  }
  return out;
}

void WritePlacementJson(const Placement& p, int64_t profile_id, JsonWriter* w) {
  w->BeginObject();
  w->Key("placed").Bool(p.placed);
  w->Key("reason").StringOrNull(p.reason);
  w->Key("profile_id").Int(profile_id);
  w->Key("precision").StringOrNull(p.precision);
  w->Key("precision_note").String(p.precision_note);
  w->Key("threads").Int(p.threads);
  w->Key("threads_note").String(p.threads_note);
  w->Key("compute_ceiling").String(p.compute_ceiling);
  w->Key("peak_gflops").Number(p.peak);
  w->Key("achieved_gflops").OptionalNumber(p.achieved);
  w->Key("achieved_source").String(SourceName(p.achieved_source));
  w->Key("binding").String(p.binding);
  w->Key("bound").StringOrNull(p.bound);
  w->Key("bound_text").StringOrNull(BoundText(p));
  w->Key("binding_level").StringOrNull(p.binding_level);
  // A binding source only where a memory level binds.
  w->Key("binding_source")
      .StringOrNull(p.binding_level.empty() ? "" : SourceName(p.binding_source));
  w->Key("attainable_gflops").Number(p.attainable);
  w->Key("percent_of_roof").OptionalNumber(p.percent_of_roof);
  w->Key("verdict").String(p.verdict);
  w->Key("bytes_compulsory_only").Bool(p.bytes_compulsory_only);
  w->Key("note").StringOrNull(p.note);
  w->Key("isa_roof_ceiling").StringOrNull(p.isa_roof_ceiling);
  PositiveOrNull(w->Key("isa_roof_gflops"), p.isa_roof);
  w->Key("isa_note").StringOrNull(p.isa_note);
  w->Key("isa_measured").Bool(p.isa_measured);
  w->Key("code").StringOrNull(p.code);
  w->Key("widest_roof_ceiling").StringOrNull(p.widest_ceiling);
  PositiveOrNull(w->Key("widest_roof_gflops"), p.widest_roof);
  w->Key("overhead");
  if (p.overhead) {
    w->BeginObject();
    w->Key("instructions_per_flop").Number(p.overhead->instructions_per_flop);
    w->Key("source").String(SourceName(p.overhead->source));
    w->Key("threshold").Number(kOverheadInstructionsPerFlop);
    w->EndObject();
  } else {
    w->Null();
  }
  w->Key("levels").BeginArray();
  for (const LevelPlacement& l : p.levels) {
    w->BeginObject();
    w->Key("level").String(l.level);
    w->Key("source").String(SourceName(l.source));
    w->Key("ai").Number(l.ai);
    w->Key("bandwidth_convention").String(ConventionName(l.convention));
    w->Key("bandwidth_gbs").Number(l.bandwidth);
    w->Key("bandwidth_ceiling").String(l.bandwidth_ceiling);
    w->Key("attainable_gflops").Number(l.attainable);
    w->Key("ridge_ai").Number(l.ridge_ai);
    w->Key("memory_bound").Bool(l.memory_bound);
    w->EndObject();
  }
  w->EndArray();
  w->EndObject();
}

}  // namespace rprof
