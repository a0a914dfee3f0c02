#include "report/machine_report.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/json.h"
#include "machine/hierarchy.h"
#include "report/json_values.h"
#include "report/render.h"
#include "report/table.h"

namespace rprof {

namespace {

std::string Fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Or(double v, int digits) { return v > 0 ? Fixed(v, digits) : "-"; }

const Ceiling* Best(const MachineProfile& p, const std::string& kind, int threads) {
  const Ceiling* best = nullptr;
  for (const Ceiling& c : p.ceilings)
    if (c.kind == kind && c.threads == threads && (!best || c.value > best->value)) best = &c;
  return best;
}

void WriteProfileJson(const StoredProfile& sp, JsonWriter* w, bool with_points) {
  const MachineProfile& p = sp.profile;
  w->BeginObject();
  w->Key("profile_id").Int(sp.id);
  w->Key("created_at").String(sp.created_at);
  w->Key("machine").BeginObject();
  w->Key("fingerprint").String(sp.machine.fingerprint);
  w->Key("cpu_model").String(sp.machine.cpu_model);
  w->Key("cores").Int(sp.machine.cores);
  w->Key("caches").String(sp.machine.caches);
  w->Key("hostname").String(sp.machine.hostname);
  w->EndObject();
  w->Key("mode").String(p.mode);
  w->Key("threads").Int(p.threads);
  w->Key("isa").String(sp.isa);
  PositiveOrNull(w->Key("nominal_ghz"), sp.nominal_ghz);
  w->Key("clock_ghz_scalar").Number(p.clock_ghz_scalar);
  w->Key("clock_ghz_vector").Number(p.clock_ghz_vector);
  w->Key("load_average_before").Number(p.load_average_before);
  w->Key("seconds").Number(p.seconds);
  w->Key("warnings").BeginArray();
  for (const auto& warning : p.warnings) w->String(warning);
  w->EndArray();
  w->Key("noisy").Bool(p.noisy());
  w->Key("noisy_reasons").BeginArray();
  for (const auto& reason : p.noisy_reasons) w->String(reason);
  w->EndArray();
  w->Key("ceilings").BeginArray();
  for (const Ceiling& c : p.ceilings) {
    w->BeginObject();
    w->Key("kind").String(c.kind);
    w->Key("name").String(c.name);
    w->Key("level").String(c.level);
    w->Key("isa").String(c.isa);
    w->Key("precision").String(c.precision);
    w->Key("pattern").String(c.pattern);
    w->Key("threads").Int(c.threads);
    w->Key("working_set_bytes").Int(static_cast<long long>(c.working_set_bytes));
    w->Key("value").Number(c.value);
    w->Key("unit").String(c.unit);
    w->Key("spread_pct").Number(c.spread_pct);
    w->Key("repetitions").Int(c.repetitions);
    // Bandwidth: the same measurement in the other byte convention (null for compute).
    std::optional<long long> per_element, traffic_per_element;
    std::optional<double> traffic;
    if (c.bytes_per_element > 0 && c.traffic_bytes_per_element > 0) {
      per_element = c.bytes_per_element;
      traffic_per_element = c.traffic_bytes_per_element;
      traffic = CeilingValue(c, ByteConvention::kTraffic);
    }
    IntOrNull(w->Key("bytes_per_element"), per_element);
    IntOrNull(w->Key("traffic_bytes_per_element"), traffic_per_element);
    w->Key("traffic_value").OptionalNumber(traffic);
    w->EndObject();
  }
  w->EndArray();
  if (with_points) {
    w->Key("levels").BeginArray();
    for (const LevelSummary& l : p.levels) {
      w->BeginObject();
      w->Key("level").String(l.level);
      w->Key("reported_size").Int(static_cast<long long>(l.reported_size));
      w->Key("effective_size").Int(static_cast<long long>(l.effective_size));
      PositiveOrNull(w->Key("latency_ns"), l.latency_ns);
      PositiveOrNull(w->Key("bandwidth_gbs"), l.bandwidth_gbs);
      w->EndObject();
    }
    w->EndArray();
    // How far each level's effective size can be trusted, beside the ladder.
    w->Key("level_sizes").BeginArray();
    for (const LevelSummary& l : p.levels) {
      if (l.level == "dram") continue;
      w->BeginObject();
      w->Key("level").String(l.level);
      w->Key("effective_size").Int(static_cast<long long>(l.effective_size));
      PositiveOrNull(w->Key("size_agreement"), l.size_agreement);
      w->Key("note").StringOrNull(l.note);
      // The size the level is given (what sim simulates) and the rule that decided it
      // (level_sizes.h); null in profiles stored before rprof decided sizes.
      w->Key("reported_size").Int(static_cast<long long>(l.reported_size));
      IntOrNull(w->Key("size_bytes"),
                l.size_rule.empty() ? std::nullopt : std::optional<long long>(l.size_bytes));
      w->Key("rule").StringOrNull(l.size_rule);
      w->Key("reason").StringOrNull(l.size_reason);
      w->EndObject();
    }
    w->EndArray();
    w->Key("latency").BeginArray();
    for (const LatencyPoint& l : p.latency) {
      w->BeginObject();
      w->Key("working_set_bytes").Int(static_cast<long long>(l.working_set_bytes));
      w->Key("ns").Number(l.ns);
      w->Key("spread_pct").Number(l.spread_pct);
      w->EndObject();
    }
    w->EndArray();
    w->Key("bandwidth").BeginArray();
    for (const BandwidthPoint& b : p.bandwidth) {
      w->BeginObject();
      w->Key("pattern").String(b.pattern);
      w->Key("threads").Int(b.threads);
      w->Key("working_set_bytes").Int(static_cast<long long>(b.working_set_bytes));
      w->Key("gbs").Number(b.gbs);
      w->Key("spread_pct").Number(b.spread_pct);
      w->EndObject();
    }
    w->EndArray();
  }
  w->EndObject();
}

// The lines above the ceilings: which machine, when and how it was measured.
std::string ProfileHeading(const StoredProfile& sp) {
  const MachineProfile& p = sp.profile;
  std::string out = "machine " + sp.machine.fingerprint + "  " + sp.machine.cpu_model + "  " +
                    std::to_string(sp.machine.cores) + " CPUs  " + sp.machine.hostname + "\n";
  out += "profile " + std::to_string(sp.id) + ": " + p.mode + ", measured " + sp.created_at +
         " in " + Fixed(p.seconds, 1) + " s, load average before " +
         Fixed(p.load_average_before, 2) + "\n";
  out += "ISA: " + sp.isa + "\n";
  if (p.noisy()) {
    out +=
        "noisy: runs placed on it carry a noisy_profile note; rprof machine measure on a quiet "
        "machine measures a better one\n";
    for (const auto& reason : p.noisy_reasons) out += "  - " + reason + "\n";
  }
  out += "clock: " + Or(p.clock_ghz_scalar, 2) + " GHz scalar, " + Or(p.clock_ghz_vector, 2) +
         " GHz under vector FMA load" +
         (sp.nominal_ghz > 0 ? " (nominal " + Fixed(sp.nominal_ghz, 2) + " GHz)" : "") + "\n";
  return out;
}

// A measured value with the digits people read; full precision in CSV.
Cell Measured(double v, int digits) { return Cell::Number(v, Fixed(v, digits)); }

// Absent (not measured) at 0 or below.
Cell MeasuredOr(double v, int digits) { return v > 0 ? Measured(v, digits) : Cell(); }

Cell Bytes(uint64_t bytes) {
  return bytes ? Cell::Number(static_cast<double>(bytes), FormatBytes(bytes)) : Cell();
}

}  // namespace

std::string FormatProfile(const StoredProfile& profile, OutputFormat format, size_t text_width) {
  const MachineProfile& p = profile.profile;
  Report report;
  report.SetJson([&](JsonWriter* w) { WriteProfileJson(profile, w, true); });
  report.AddText(ProfileHeading(profile));

  // People read the ceilings by kind, each with its own columns; CSV has them all, in full.
  report.AddText("\ncompute ceilings (GFLOP/s)\n");
  Table& compute = report.AddTable({{"name", "ceiling"},
                                    {"precision", "precision"},
                                    {"isa", "isa"},
                                    {"pattern", "op"},
                                    {"threads", "threads", Align::kRight},
                                    {"value", "GFLOP/s", Align::kRight},
                                    {"spread_pct", "spread %", Align::kRight}},
                                   kInText);
  for (const Ceiling& c : p.ceilings)
    if (c.kind == "compute")
      compute.AddRow({Cell::Text(c.name), Cell::Text(c.precision), Cell::Text(c.isa),
                      Cell::Text(c.pattern), Cell::Int(c.threads), Measured(c.value, 1),
                      Measured(c.spread_pct, 1)});

  report.AddText("\nbandwidth ceilings (GB/s)\n");
  // The isa column tells the widest vector ISA's ceilings from the scalar loads' (the roof of
  // code measured scalar), which differ in the caches.
  Table& bandwidth = report.AddTable({{"name", "ceiling"},
                                      {"level", "level"},
                                      {"isa", "isa"},
                                      {"pattern", "pattern"},
                                      {"threads", "threads", Align::kRight},
                                      {"working_set_bytes", "working set", Align::kRight},
                                      {"value", "GB/s", Align::kRight},
                                      {"spread_pct", "spread %", Align::kRight}},
                                     kInText);
  for (const Ceiling& c : p.ceilings)
    if (c.kind == "bandwidth")
      bandwidth.AddRow(
          {Cell::Text(c.name), Cell::Text(c.level), Cell::Text(c.isa), Cell::Text(c.pattern),
           Cell::Int(c.threads),
           Cell::Number(static_cast<double>(c.working_set_bytes), FormatBytes(c.working_set_bytes)),
           Measured(c.value, 1), Measured(c.spread_pct, 1)});
  report.AddText(
      "GB/s of compulsory bytes (as STREAM counts); runs' sim and pmu bytes are held against the "
      "same ceilings as actual traffic, write-allocate included: beyond L1, copy x 24/16, triad "
      "x 32/24; isa scalar: 8-byte loads, the roof of code measured scalar\n");

  report.AddText("\nmemory hierarchy (1 thread)\n");
  Table& ladder = report.AddTable({{"level", "level"},
                                   {"reported_size", "reported size", Align::kRight},
                                   {"effective_size", "effective size", Align::kRight},
                                   {"latency_ns", "latency ns", Align::kRight},
                                   {"bandwidth_gbs", "load GB/s", Align::kRight}},
                                  kInText);
  for (const LevelSummary& l : p.levels)
    ladder.AddRow({Cell::Text(l.level), Bytes(l.reported_size), Bytes(l.effective_size),
                   MeasuredOr(l.latency_ns, 1), MeasuredOr(l.bandwidth_gbs, 1)});
  // The confidence in each effective size, and what is not a plain fact about a level.
  std::string sizes;
  for (const LevelSummary& l : p.levels) {
    if (l.size_rule.empty()) continue;
    sizes += "  " + l.level + " " + FormatBytes(l.size_bytes) + " (" + l.size_rule +
             "): " + l.size_reason + "\n";
  }
  if (!sizes.empty())
    report.AddText(
        "\nsize of each level (what sim simulates: the reported size unless a sound, "
        "repeated measurement replaces it)\n" +
        sizes);
  sizes.clear();
  for (const LevelSummary& l : p.levels) {
    if (l.size_agreement <= 0 && l.note.empty()) continue;
    sizes += "  " + l.level + " " + (l.effective_size ? FormatBytes(l.effective_size) : "-");
    if (l.size_agreement > 1)
      sizes += ": " + std::to_string(l.size_agreement) + " profiles in a row agree";
    else if (l.size_agreement == 1)
      sizes += ": this profile alone";
    if (!l.note.empty()) sizes += (l.size_agreement > 0 ? "; " : ": ") + l.note;
    sizes += "\n";
  }
  if (!sizes.empty()) report.AddText("\nlevel sizes across this machine's profiles\n" + sizes);
  if (!p.warnings.empty()) {
    std::string warnings = "\nwarnings:\n";
    for (const auto& w : p.warnings) warnings += "  - " + w + "\n";
    report.AddText(warnings);
  }

  // Only in CSV, so without titles.
  Table& csv = report.AddTable({{"profile_id", ""},
                                {"kind", ""},
                                {"name", ""},
                                {"level", ""},
                                {"isa", ""},
                                {"precision", ""},
                                {"pattern", ""},
                                {"threads", ""},
                                {"working_set_bytes", ""},
                                {"value", ""},
                                {"unit", ""},
                                {"spread_pct", ""}},
                               kInCsv);
  for (const Ceiling& c : p.ceilings)
    csv.AddRow({Cell::Int(profile.id), Cell::Text(c.kind), Cell::Text(c.name), Cell::Text(c.level),
                Cell::Text(c.isa), Cell::Text(c.precision), Cell::Text(c.pattern),
                Cell::Int(c.threads), Cell::Int(static_cast<long long>(c.working_set_bytes)),
                Cell::Number(c.value), Cell::Text(c.unit), Cell::Number(c.spread_pct)});
  return Render(report, format, text_width);
}

std::string FormatProfileList(const std::vector<StoredProfile>& profiles, OutputFormat format,
                              size_t text_width) {
  Report report;
  report.SetJson([&](JsonWriter* w) {
    w->BeginArray();
    for (const StoredProfile& p : profiles) WriteProfileJson(p, w, false);
    w->EndArray();
  });
  Table& table = report.AddTable({{"profile_id", "profile", Align::kRight},
                                  {"created_at", "created (UTC)"},
                                  {"fingerprint", "fingerprint"},
                                  {"cpu_model", "cpu"},
                                  {"mode", "mode"},
                                  {"threads", "threads", Align::kRight},
                                  {"peak_gflops_1t", "peak GFLOP/s (1t)", Align::kRight},
                                  {"peak_gbs_1t", "peak GB/s (1t)", Align::kRight}},
                                 kInText | kInCsv);
  for (const StoredProfile& p : profiles) {
    const Ceiling* flops = Best(p.profile, "compute", 1);
    const Ceiling* bytes = Best(p.profile, "bandwidth", 1);
    table.AddRow({Cell::Int(p.id), Cell::Text(p.created_at, p.created_at.substr(0, 19)),
                  Cell::Text(p.machine.fingerprint), Cell::Text(p.machine.cpu_model),
                  Cell::Text(p.profile.mode), Cell::Int(p.profile.threads),
                  flops ? Measured(flops->value, 1) : Cell(),
                  bytes ? Measured(bytes->value, 1) : Cell()});
  }
  return Render(report, format, text_width);
}

}  // namespace rprof
