#include "report/machine_report.h"

#include <algorithm>
#include <cstdio>

#include "core/json.h"
#include "machine/hierarchy.h"
#include "report/text_table.h"

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
  w->Key("nominal_ghz");
  if (sp.nominal_ghz > 0) w->Number(sp.nominal_ghz); else w->Null();
  w->Key("clock_ghz_scalar").Number(p.clock_ghz_scalar);
  w->Key("clock_ghz_vector").Number(p.clock_ghz_vector);
  w->Key("load_average_before").Number(p.load_average_before);
  w->Key("seconds").Number(p.seconds);
  w->Key("warnings").BeginArray();
  for (const auto& warning : p.warnings) w->String(warning);
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
      w->Key("latency_ns");
      if (l.latency_ns > 0) w->Number(l.latency_ns); else w->Null();
      w->Key("bandwidth_gbs");
      if (l.bandwidth_gbs > 0) w->Number(l.bandwidth_gbs); else w->Null();
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

std::string ProfileTable(const StoredProfile& sp) {
  const MachineProfile& p = sp.profile;
  std::string out = "machine " + sp.machine.fingerprint + "  " + sp.machine.cpu_model + "  " +
                    std::to_string(sp.machine.cores) + " CPUs  " + sp.machine.hostname + "\n";
  out += "profile " + std::to_string(sp.id) + ": " + p.mode + ", measured " + sp.created_at +
         " in " + Fixed(p.seconds, 1) + " s, load average before " +
         Fixed(p.load_average_before, 2) + "\n";
  out += "ISA: " + sp.isa + "\n";
  out += "clock: " + Or(p.clock_ghz_scalar, 2) + " GHz scalar, " + Or(p.clock_ghz_vector, 2) +
         " GHz under vector FMA load" +
         (sp.nominal_ghz > 0 ? " (nominal " + Fixed(sp.nominal_ghz, 2) + " GHz)" : "") + "\n";

  out += "\ncompute ceilings (GFLOP/s)\n";
  TextTable compute({"ceiling", "precision", "isa", "op", "threads", "GFLOP/s", "spread %"},
                    {false, false, false, false, true, true, true});
  for (const Ceiling& c : p.ceilings)
    if (c.kind == "compute")
      compute.AddRow({c.name, c.precision, c.isa, c.pattern, std::to_string(c.threads),
                      Fixed(c.value, 1), Fixed(c.spread_pct, 1)});
  out += compute.Render();

  out += "\nbandwidth ceilings (GB/s)\n";
  TextTable bandwidth({"ceiling", "level", "pattern", "threads", "working set", "GB/s", "spread %"},
                      {false, false, false, true, true, true, true});
  for (const Ceiling& c : p.ceilings)
    if (c.kind == "bandwidth")
      bandwidth.AddRow({c.name, c.level, c.pattern, std::to_string(c.threads),
                        FormatBytes(c.working_set_bytes), Fixed(c.value, 1),
                        Fixed(c.spread_pct, 1)});
  out += bandwidth.Render();

  out += "\nmemory hierarchy (1 thread)\n";
  TextTable ladder({"level", "reported size", "effective size", "latency ns", "load GB/s"},
                   {false, true, true, true, true});
  for (const LevelSummary& l : p.levels)
    ladder.AddRow({l.level, l.reported_size ? FormatBytes(l.reported_size) : "-",
                   l.effective_size ? FormatBytes(l.effective_size) : "-", Or(l.latency_ns, 1),
                   Or(l.bandwidth_gbs, 1)});
  out += ladder.Render();
  if (!p.warnings.empty()) {
    out += "\nwarnings:\n";
    for (const auto& w : p.warnings) out += "  - " + w + "\n";
  }
  return out;
}

}  // namespace

std::string FormatProfile(const StoredProfile& profile, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    JsonWriter w;
    WriteProfileJson(profile, &w, true);
    return w.str() + "\n";
  }
  if (format == OutputFormat::kCsv) {
    std::string out =
        "profile_id,kind,name,level,isa,precision,pattern,threads,working_set_bytes,value,unit,"
        "spread_pct\n";
    for (const Ceiling& c : profile.profile.ceilings)
      out += std::to_string(profile.id) + "," + c.kind + "," + c.name + "," + c.level + "," +
             c.isa + "," + c.precision + "," + c.pattern + "," + std::to_string(c.threads) + "," +
             std::to_string(c.working_set_bytes) + "," + JsonNumber(c.value) + "," + c.unit +
             "," + JsonNumber(c.spread_pct) + "\n";
    return out;
  }
  return ProfileTable(profile);
}

std::string FormatProfileList(const std::vector<StoredProfile>& profiles, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    JsonWriter w;
    w.BeginArray();
    for (const StoredProfile& p : profiles) WriteProfileJson(p, &w, false);
    w.EndArray();
    return w.str() + "\n";
  }
  std::vector<std::string> header = {"profile", "created (UTC)", "fingerprint", "cpu", "mode",
                                     "threads", "peak GFLOP/s (1t)", "peak GB/s (1t)"};
  TextTable table(header, {true, false, false, false, false, true, true, true});
  std::string csv = "profile_id,created_at,fingerprint,cpu_model,mode,threads,peak_gflops_1t,"
                    "peak_gbs_1t\n";
  for (const StoredProfile& p : profiles) {
    const Ceiling* flops = Best(p.profile, "compute", 1);
    const Ceiling* bytes = Best(p.profile, "bandwidth", 1);
    std::vector<std::string> row = {std::to_string(p.id), p.created_at.substr(0, 19),
                                    p.machine.fingerprint, p.machine.cpu_model, p.profile.mode,
                                    std::to_string(p.profile.threads),
                                    flops ? Fixed(flops->value, 1) : "-",
                                    bytes ? Fixed(bytes->value, 1) : "-"};
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) csv += ",";
      csv += CsvField(row[i]);
    }
    csv += "\n";
    table.AddRow(std::move(row));
  }
  return format == OutputFormat::kCsv ? csv : table.Render();
}

}  // namespace rprof
