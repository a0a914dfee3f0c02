#include "report/html_report.h"

#include <map>

#include "core/json.h"
#include "core/text.h"
#include "report/run_report.h"

namespace rprof {

namespace {

// The page's style: readable on screen, clean on paper (no controls, no tooltip, sections kept
// whole, the plot as wide as the page).
constexpr const char* kCss = R"CSS(
body { font-family: system-ui, sans-serif; margin: 1em 1.5em; color: #222; max-width: 1300px; }
h1 { font-size: 1.5em; margin: 0 0 0.2em; }
header p { margin: 0.2em 0; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin: 0.8em 0 0.3em; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th[data-key] { cursor: pointer; background: #f4f4f4; }
th[data-key]::after { content: " \2195"; color: #999; }
th.sorted-asc::after { content: " \2191"; color: #000; }
th.sorted-desc::after { content: " \2193"; color: #000; }
tr.selected td { background: #fff6cc; }
tbody tr { cursor: pointer; }
.warning { color: #a83232; }
#plot-and-detail { display: flex; gap: 1em; align-items: flex-start; flex-wrap: wrap; }
/* The plot keeps its size and place whatever the details beside it hold (a hover stays on its
   point); the details scroll within the plot's height, so the runs' table never moves. */
#plot { flex: 0 0 880px; max-width: 100%; }
#plot svg { width: 100%; max-width: 880px; height: auto; border: 1px solid #eee; }
#plot .point, #plot .series { cursor: pointer; }
#plot .series.selected .point { stroke: #000; stroke-width: 3; }
#detail { flex: 1 1 300px; min-width: 0; max-height: 640px; overflow: auto; font-size: 0.9em; }
#detail .verdict { font-weight: bold; }
#tooltip { position: fixed; pointer-events: none; background: #fffff0; border: 1px solid #999;
  padding: 0.3em 0.5em; font-size: 0.85em; max-width: 420px; box-shadow: 2px 2px 4px #0002; }
#filter { margin: 0.5em 0; padding: 0.3em; width: 24em; }
.muted { color: #777; }
details > summary { cursor: pointer; margin: 0.8em 0 0.4em; }
#warnings-summary { margin: 0.3em 0; }
@media print {
  body { margin: 0; max-width: none; }
  #filter, #tooltip, .screen-only { display: none !important; }
  section { break-inside: avoid; }
  #plot { flex-basis: 100%; }
  #detail { max-height: none; overflow: visible; }
  #plot svg { width: 100%; max-width: none; border: none; }
  tbody tr { cursor: auto; }
  th[data-key]::after { content: ""; }
}
)CSS";

// Hover: a tooltip with the point's summary. Click (a point or a table row): the run's details
// from its `rprof show --format json`, built with textContent (never HTML from the data).
// Table: sort by a header, filter by text.
constexpr const char* kScript = R"JS(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('rprof-data').textContent);
  var runs = {};
  data.runs.forEach(function (r) { runs[String(r.id)] = r; });
  var tooltip = document.getElementById('tooltip');
  var detail = document.getElementById('detail');

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function value(v) { return v === null || v === undefined ? 'absent' : String(v); }
  function row(table, key, v, cls) {
    var tr = el('tr');
    tr.appendChild(el('th', key));
    tr.appendChild(el('td', value(v), cls));
    table.appendChild(tr);
  }

  function select(runId, region) {
    document.querySelectorAll('.series.selected, tr.selected').forEach(function (e) {
      e.classList.remove('selected');
    });
    var sel = '.series[data-run="' + runId + '"][data-region="' + (region || '') + '"]';
    document.querySelectorAll(sel).forEach(function (e) { e.classList.add('selected'); });
    document.querySelectorAll('tr[data-run="' + runId + '"]').forEach(function (e) {
      e.classList.add('selected');
    });
    showDetail(runId, region || '');
  }

  function showDetail(runId, region) {
    var run = runs[runId];
    while (detail.firstChild) detail.removeChild(detail.firstChild);
    detail.dataset.run = runId;
    detail.dataset.region = region;
    if (!run) { detail.appendChild(el('p', 'run ' + runId + ' is not in this report')); return; }
    var show = run.show;
    var metrics = region ? show.regions[region] : show.metrics;
    var placement = region ? metrics.placement : show.placement;
    var title = '#' + show.run_id + ' ' + show.target + (region ? ' region ' + region : '');
    detail.appendChild(el('h3', title, 'run-title'));
    if (placement && placement.placed) {
      detail.appendChild(el('p', placement.verdict, 'verdict'));
      var t = el('table', undefined, 'placement');
      row(t, 'binding', placement.binding, 'binding');
      row(t, 'percent_of_roof', placement.percent_of_roof, 'percent-of-roof');
      row(t, 'achieved_gflops', placement.achieved_gflops, 'achieved');
      row(t, 'achieved_source', placement.achieved_source, 'achieved-source');
      row(t, 'attainable_gflops', placement.attainable_gflops);
      row(t, 'compute_ceiling', placement.compute_ceiling);
      row(t, 'peak_gflops', placement.peak_gflops);
      if (placement.note) row(t, 'note', placement.note);
      detail.appendChild(t);
    } else {
      detail.appendChild(el('p', 'not placed: ' + (placement ? placement.reason : 'no placement'),
                            'verdict'));
    }
    detail.appendChild(el('h4', 'metrics (value, unit, source)'));
    var m = el('table', undefined, 'metrics');
    var head = el('tr');
    ['metric', 'source', 'value', 'unit'].forEach(function (h) { head.appendChild(el('th', h)); });
    m.appendChild(head);
    Object.keys(metrics).forEach(function (name) {
      if (name === 'placement') return;
      Object.keys(metrics[name]).forEach(function (source) {
        var v = metrics[name][source];
        var tr = el('tr');
        tr.appendChild(el('td', name));
        tr.appendChild(el('td', source));
        tr.appendChild(el('td', value(v.value) + (v.note ? ' (' + v.note + ')' : ''), 'num'));
        tr.appendChild(el('td', v.unit));
        m.appendChild(tr);
      });
    });
    detail.appendChild(m);
    detail.appendChild(el('h4', 'trust notes'));
    var ul = el('ul', undefined, 'trust');
    (show.trust || []).forEach(function (n) { ul.appendChild(el('li', n.kind + ': ' + n.detail)); });
    if (!show.trust || show.trust.length === 0) ul.appendChild(el('li', 'none', 'muted'));
    detail.appendChild(ul);
  }

  document.querySelectorAll('#plot .series').forEach(function (g) {
    g.addEventListener('click', function () { select(g.dataset.run, g.dataset.region); });
    g.querySelectorAll('.point').forEach(function (p) {
      p.addEventListener('mouseenter', function (ev) {
        var t = p.querySelector('title');
        tooltip.textContent = (t ? t.textContent : '') + ' | ' + g.dataset.verdict;
        tooltip.hidden = false;
        tooltip.style.left = (ev.clientX + 14) + 'px';
        tooltip.style.top = (ev.clientY + 14) + 'px';
      });
      p.addEventListener('mouseleave', function () { tooltip.hidden = true; });
    });
  });

  var table = document.getElementById('run-table');
  var body = table.tBodies[0];
  body.querySelectorAll('tr').forEach(function (tr) {
    tr.addEventListener('click', function () { select(tr.dataset.run, ''); });
  });
  table.querySelectorAll('th[data-key]').forEach(function (th, column) {
    th.addEventListener('click', function () {
      var desc = th.classList.contains('sorted-asc');
      table.querySelectorAll('th').forEach(function (h) {
        h.classList.remove('sorted-asc', 'sorted-desc');
      });
      th.classList.add(desc ? 'sorted-desc' : 'sorted-asc');
      var numeric = th.dataset.type === 'number';
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[column].dataset.sort, y = b.cells[column].dataset.sort;
        var c;
        if (numeric) {
          var nx = x === '' ? -Infinity : Number(x), ny = y === '' ? -Infinity : Number(y);
          c = nx - ny;
        } else {
          c = x.localeCompare(y);
        }
        return desc ? -c : c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  // Printed, the collapsed ceilings are printed too.
  window.addEventListener('beforeprint', function () {
    document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  });
  document.getElementById('filter').addEventListener('input', function (ev) {
    var words = ev.target.value.toLowerCase().split(/\s+/).filter(Boolean);
    Array.prototype.forEach.call(body.rows, function (r) {
      var text = r.textContent.toLowerCase();
      r.hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
    });
  });
})();
)JS";

std::string E(const std::string& text) { return XmlEscape(text); }

std::string Cell(const std::string& text, const std::string& sort, bool num = false) {
  return std::string("<td") + (num ? " class=\"num\"" : "") + " data-sort=\"" + E(sort) + "\">" +
         E(text) + "</td>";
}

std::string Bytes(uint64_t bytes) {
  if (bytes == 0) return "";
  if (bytes >= (1u << 20)) return Format("%.3g MiB", bytes / 1048576.0);
  return Format("%.3g KiB", bytes / 1024.0);
}

std::string MachineSection(const StoredProfile& sp) {
  const MachineProfile& p = sp.profile;
  std::string s = "<section id=\"machine\"><h2>Machine</h2>\n<p>" + E(sp.machine.cpu_model) + ", " +
                  std::to_string(sp.machine.cores) + " cores, host " + E(sp.machine.hostname) +
                  "; profile " + std::to_string(sp.id) + " (" + E(p.mode) + ", measured " +
                  E(sp.created_at) + ")</p>\n";
  s += "<p>clock: " + Format("%.3g", p.clock_ghz_scalar) + " GHz one core scalar, " +
       Format("%.3g", p.clock_ghz_vector) + " GHz widest FMA on every measuring thread; nominal " +
       Format("%.3g", sp.nominal_ghz) + " GHz; ISA " + E(sp.isa) + "</p>\n";
  if (!p.noisy_reasons.empty() || !p.warnings.empty()) {
    s += "<div id=\"machine-warnings\">\n";
    for (const std::string& w : p.noisy_reasons)
      s += "<p class=\"warning\">noisy profile: " + E(w) + "</p>\n";
    for (const std::string& w : p.warnings) s += "<p class=\"warning\">warning: " + E(w) + "</p>\n";
    s += "</div>\n";
  }
  s += "<h3>Ladder</h3><table id=\"ladder\"><tr><th>level</th><th>size (reported)</th>"
       "<th>size (measured)</th><th>latency ns</th><th>bandwidth GB/s (1 thread, load)</th>"
       "<th>note</th></tr>\n";
  for (const LevelSummary& l : p.levels)
    s += "<tr><td>" + E(Upper(l.level)) + "</td><td class=\"num\">" + Bytes(l.reported_size) +
         "</td><td class=\"num\">" + Bytes(l.effective_size) + "</td><td class=\"num\">" +
         (l.latency_ns > 0 ? Format("%.3g", l.latency_ns) : "") + "</td><td class=\"num\">" +
         (l.bandwidth_gbs > 0 ? Format("%.3g", l.bandwidth_gbs) : "") + "</td><td>" + E(l.note) +
         "</td></tr>\n";
  // The ceilings are many (60 and more) and a student's first question is about the runs:
  // collapsed, one click away.
  s += "</table>\n<details id=\"ceilings-details\"><summary><h3 style=\"display:inline\">"
       "Ceilings</h3> (" +
       std::to_string(p.ceilings.size()) +
       ", every one measured; the roofline draws those the runs are held against)</summary>\n"
       "<table id=\"ceilings\"><tr><th>ceiling</th><th>threads</th>"
       "<th>value</th><th>unit</th><th>spread %</th></tr>\n";
  for (const Ceiling& c : p.ceilings)
    s += "<tr><td>" + E(c.name) + "</td><td class=\"num\">" + std::to_string(c.threads) +
         "</td><td class=\"num\">" + Format("%.4g", c.value) + "</td><td>" + E(c.unit) +
         "</td><td class=\"num\">" + Format("%.2g", c.spread_pct) + "</td></tr>\n";
  return s + "</table></details></section>\n";
}

// One line under the title for every warning of the page (the profile's, the runs drawn
// against other roofs): what it is about and a link to where it is said in full. "" when none.
std::string WarningsSummary(const HtmlReportInput& in) {
  const MachineProfile& p = in.profile->profile;
  size_t machine = p.noisy_reasons.size() + p.warnings.size();
  size_t plot = in.scene->warnings.size();
  if (machine + plot == 0) return "";
  std::vector<std::string> parts;
  if (machine)
    parts.push_back("<a href=\"#machine-warnings\">" + std::to_string(machine) +
                    " about the machine profile" + (p.noisy_reasons.empty() ? "" : " (noisy)") +
                    "</a>");
  if (plot)
    parts.push_back("<a href=\"#roofline\">" + std::to_string(plot) +
                    " about runs drawn against other roofs</a>");
  return "<p id=\"warnings-summary\" class=\"warning\">" + std::to_string(machine + plot) +
         " warning" + (machine + plot == 1 ? "" : "s") + ": " + Join(parts, ", ") + "</p>\n";
}

std::string RunsTable(const HtmlReportInput& in) {
  std::map<int64_t, const SceneSeries*> drawn;
  for (const SceneSeries& s : in.scene->series)
    if (s.region.empty()) drawn[s.run_id] = &s;
  std::string s =
      "<section id=\"runs\"><h2>Runs</h2>\n<input id=\"filter\" type=\"search\" "
      "placeholder=\"filter: words that every row shown contains\" "
      "aria-label=\"filter runs\">\n<table id=\"run-table\"><thead><tr>"
      "<th data-key=\"id\" data-type=\"number\">run</th>"
      "<th data-key=\"target\">target</th><th data-key=\"params\">params</th>"
      "<th data-key=\"status\">status</th><th data-key=\"label\">label</th>"
      "<th data-key=\"binding\">binding</th>"
      "<th data-key=\"percent\" data-type=\"number\">% of roof</th>"
      "<th data-key=\"gflops\" data-type=\"number\">GFLOP/s</th>"
      "<th data-key=\"time\" data-type=\"number\">time s</th>"
      "<th data-key=\"verdict\">verdict</th><th data-key=\"tags\">tags</th>"
      "</tr></thead><tbody>\n";
  for (size_t i = 0; i < in.runs.size(); ++i) {
    const RunRecord& r = in.runs[i];
    const Placement& p = in.placements[i].placement;
    auto it = drawn.find(r.id);
    std::string percent = p.percent_of_roof ? JsonNumber(*p.percent_of_roof) : "";
    std::string gflops = p.achieved ? JsonNumber(*p.achieved) : "";
    const Metric* time = FindMetric(r.metrics, "time_s", Source::kClock);
    std::string t = time && time->value ? JsonNumber(*time->value) : "";
    std::vector<std::string> tags;
    for (const auto& [k, v] : r.tags) tags.push_back(k + "=" + v);
    std::string verdict =
        p.placed ? p.verdict
                 : (in.placements[i].profile_id == 0 ? in.placements[i].missing : p.reason);
    s += "<tr data-run=\"" + std::to_string(r.id) + "\">" +
         Cell(RunRef(r.id), std::to_string(r.id), true) + Cell(r.target, r.target) +
         Cell(ParamsText(r.params), ParamsText(r.params)) +
         Cell(RunStatusName(r.status), RunStatusName(r.status)) +
         Cell(it != drawn.end() ? it->second->label : "(not drawn)",
              it != drawn.end() ? it->second->label : "") +
         Cell(p.binding, p.binding) +
         Cell(p.percent_of_roof ? Format("%.0f", *p.percent_of_roof) : "", percent, true) +
         Cell(p.achieved ? Format("%.3g", *p.achieved) + " (" +
                               std::string(SourceName(p.achieved_source)) + ")"
                         : "",
              gflops, true) +
         Cell(time && time->value ? Format("%.3g", *time->value) : "", t, true) +
         Cell(verdict, verdict) + Cell(Join(tags, " "), Join(tags, " ")) + "</tr>\n";
  }
  return s + "</tbody></table></section>\n";
}

}  // namespace

std::string JsonForScriptElement(const std::string& json) {
  std::string out;
  for (char c : json) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

bool SpeedupArrow(const RunRecord& before, const RunRecord& after, SceneArrow* arrow, Error* err) {
  const Metric* a = FindMetric(before.metrics, "time_s", Source::kClock);
  const Metric* b = FindMetric(after.metrics, "time_s", Source::kClock);
  for (const auto& [run, m] : {std::pair{&before, a}, std::pair{&after, b}})
    if (!m || !m->value || *m->value <= 0)
      return Fail(err, ErrorKind::kUsage,
                  "run " + std::to_string(run->id) + " has no wall time (time_s) to compare");
  arrow->from_run = before.id;
  arrow->to_run = after.id;
  arrow->label = "\xc3\x97";  // ×, appended: see RunRef
  arrow->label += Format("%.3g", *a->value / *b->value);
  return true;
}

std::vector<SceneArrow> BeforeAfterArrows(const std::vector<RunRecord>& runs) {
  // NAME → the newest run of each side (runs come newest first from the store, but ids order
  // them whatever the caller did).
  std::map<std::string, const RunRecord*> before, after;
  for (const RunRecord& r : runs)
    for (const auto& [k, v] : r.tags) {
      if (k != "before-after") continue;
      std::string side = v.substr(0, v.find(':'));
      std::string name = v.find(':') == std::string::npos ? "" : v.substr(v.find(':') + 1);
      auto& slot = side == "before" ? before[name] : after[name];
      if ((side == "before" || side == "after") && (!slot || r.id > slot->id)) slot = &r;
    }
  std::vector<SceneArrow> arrows;
  for (const auto& [name, b] : before) {
    auto a = after.find(name);
    if (!b || a == after.end() || !a->second) continue;
    SceneArrow arrow;
    if (SpeedupArrow(*b, *a->second, &arrow, nullptr)) arrows.push_back(arrow);
  }
  return arrows;
}

std::string HtmlReport(const HtmlReportInput& in) {
  JsonWriter w;
  w.BeginObject().Key("generated_at").String(in.generated_at);
  w.Key("profile_id").Int(in.profile->id).Key("threads").Int(in.scene->threads);
  w.Key("runs").BeginArray();
  for (size_t i = 0; i < in.runs.size(); ++i) {
    w.BeginObject().Key("id").Int(in.runs[i].id);
    w.Key("show").Raw(FormatRun(in.runs[i], OutputFormat::kJson, &in.placements[i]));
    w.EndObject();
  }
  w.EndArray();
  w.Key("arrows").BeginArray();
  for (const SceneArrow& a : in.arrows)
    w.BeginObject()
        .Key("from")
        .Int(a.from_run)
        .Key("to")
        .Int(a.to_run)
        .Key("label")
        .String(a.label)
        .EndObject();
  w.EndArray().EndObject();

  SvgOptions svg;
  svg.title = in.title;
  svg.standalone = false;
  svg.arrows = in.arrows;
  svg.series_lines = false;  // the runs' table says each verdict

  std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  // Nothing may be loaded from anywhere: only this page's own style and script run.
  s += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
       "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
       "connect-src 'none'; form-action 'none'; base-uri 'none'\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  s += "<meta name=\"generator\" content=\"rprof\">\n<title>" + E(in.title) + "</title>\n";
  s += std::string("<style>") + kCss + "</style>\n</head><body>\n";
  s += "<header><h1>rprof report</h1><p>" + E(in.title) + "; " + std::to_string(in.runs.size()) +
       " run" + (in.runs.size() == 1 ? "" : "s") + ", written " + E(in.generated_at) +
       ". Each value carries its source: clock, pmu, sim, model.</p>\n" + WarningsSummary(in) +
       "</header>\n";
  // The runs first: the roofline and their table on the first screen; the machine under them.
  s += "<section id=\"roofline\"><h2>Roofline <small class=\"screen-only muted\">hover a "
       "point for its level and rate; click it (or a row of the table) for the run's metrics, "
       "trust notes and verdict</small></h2>\n<div id=\"plot-and-detail\"><div id=\"plot\">\n";
  s += RooflineSvg(*in.scene, svg);
  s += "</div>\n<aside id=\"detail\" aria-live=\"polite\"><p class=\"muted\">No run selected."
       "</p></aside></div>\n";
  if (!in.arrows.empty()) {
    s += "<h3>Before and after</h3><ul id=\"arrows\">\n";
    for (const SceneArrow& a : in.arrows)
      s += "<li>#" + std::to_string(a.from_run) + " \xe2\x86\x92 #" + std::to_string(a.to_run) +
           ": " + E(a.label) + " in wall time</li>\n";
    s += "</ul>\n";
  }
  s += "</section>\n";
  s += RunsTable(in);
  s += MachineSection(*in.profile);
  s += "<div id=\"tooltip\" role=\"tooltip\" hidden></div>\n";
  s += "<script type=\"application/json\" id=\"rprof-data\">" + JsonForScriptElement(w.str()) +
       "</script>\n";
  s += std::string("<script>") + kScript + "</script>\n</body></html>\n";
  return s;
}

}  // namespace rprof
