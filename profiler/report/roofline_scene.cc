#include "report/roofline_scene.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/target_kind.h"
#include "core/text.h"
#include "core/utf8.h"
#include "functions/hot_functions.h"
#include "functions/sampled_time.h"
#include "machine/profile_trust.h"
#include "report/label_placement.h"
#include "report/run_report.h"

namespace rprof {

namespace {

constexpr int kLabelChars = 20;
// A region's label may be longer: the program's name and the region's both matter.
constexpr int kRegionLabelChars = 28;
constexpr int kLeastNameChars = 6;  // a shortened program name keeps at least this much
const char* const kLevels[] = {"l1", "l2", "l3", "dram"};

std::string Short(double v) { return Format("%.3g", v); }

std::vector<SceneRoof> Roofs(const MachineProfile& profile, int threads) {
  std::vector<SceneRoof> roofs;
  // Compute: the best pattern of each precision and ISA; the best of a precision is its roof.
  std::map<std::pair<std::string, std::string>, const Ceiling*> compute;
  for (const Ceiling& c : profile.ceilings) {
    if (c.kind != "compute" || c.threads != threads || ImplausibleCeiling(profile, c)) continue;
    const Ceiling*& slot = compute[{c.precision, c.isa}];
    if (!slot || c.value > slot->value) slot = &c;
  }
  std::map<std::string, double> best;
  for (const auto& [key, c] : compute) best[key.first] = std::max(best[key.first], c->value);
  for (const auto& [key, c] : compute) {
    SceneRoof r;
    r.compute = true;
    r.precision = key.first;
    r.isa = key.second;
    r.best = c->value >= best[key.first];
    r.ceiling = c->name;
    r.value = c->value;
    r.label = c->precision + " " + c->isa + " " + c->pattern + " " + Short(c->value) + " GFLOP/s";
    roofs.push_back(r);
  }
  // Bandwidth: the roofs placement uses (BandwidthRoof), in both conventions.
  for (const char* level : kLevels) {
    const Ceiling* compulsory = BandwidthRoof(profile, level, threads, ByteConvention::kCompulsory);
    if (!compulsory) continue;
    SceneRoof r;
    r.level = level;
    r.ceiling = compulsory->name;
    r.value = compulsory->value;
    r.label = Upper(level) + " " + Short(r.value) + " GB/s";
    roofs.push_back(r);
    const Ceiling* traffic = BandwidthRoof(profile, level, threads, ByteConvention::kTraffic);
    double gbs = traffic ? CeilingValue(*traffic, ByteConvention::kTraffic) : 0;
    if (gbs > r.value * 1.02) {
      SceneRoof t = r;
      t.traffic = true;
      t.ceiling = traffic->name;
      t.value = gbs;
      t.label = Upper(level) + " " + Short(gbs) + " GB/s traffic";
      roofs.push_back(t);
    }
  }
  return roofs;
}

std::string StatusReason(const RunRecord& run) {
  std::string reason = RunStatusName(run.status);
  if (run.signal)
    reason += " (signal " + std::to_string(*run.signal) + ")";
  else if (run.exit_code)
    reason += " (exit status " + std::to_string(*run.exit_code) + ")";
  return reason + ": its counts are not those of a whole run";
}

// A program by its file's name: its folders are what two programs of one project share, the
// name is what tells them apart. Kernels and benchmark instances by their name, slashes and all
// ("BM_saxpy/1024").
std::string ShownName(const RunRecord& run) {
  if (!TargetKindTraits(run.target_kind).whole_process) return run.target;
  size_t slash = run.target.find_last_of('/');
  std::string base = slash == std::string::npos ? run.target : run.target.substr(slash + 1);
  return base.empty() ? run.target : base;
}

// What a series' label is made of, each part kept whole where it can be.
struct LabelParts {
  std::string id;       // "#7" or ""
  std::string name;     // "triad", "solver"
  std::string varying;  // "n=512" or ""
  std::string region;   // "" for the whole run

  std::string Text(const std::string& shown_name) const {
    std::string out = id;
    for (const std::string* part : {&shown_name, &varying, &region})
      if (!part->empty()) out += (out.empty() ? "" : " ") + *part;
    return out;
  }
  std::string Text() const { return Text(name); }
  // Within `max_chars`: the name is shortened first (its end cut), down to kLeastNameChars,
  // so the id, the parameter and the region stay whole; then the whole label is cut.
  std::string Fitted(int max_chars) const {
    int over = DisplayChars(Text()) - max_chars;
    std::string shown = name;
    if (over > 0) {
      int keep = std::max(kLeastNameChars, DisplayChars(name) - over);
      shown = ShortenLabel(name, keep);
    }
    return ShortenLabel(Text(shown), max_chars);
  }
};

// The label of each series: "#ID NAME [REGION]", or in a sweep (several series of one target
// and region whose parameters differ in exactly one key) "NAME KEY=VALUE [REGION]".
void LabelSeries(std::vector<SceneSeries>* series, const std::vector<RunRecord>& runs) {
  std::map<const SceneSeries*, LabelParts> parts_of;
  std::map<const SceneSeries*, LabelParts>* label_parts = &parts_of;
  std::map<int64_t, const RunRecord*> by_id;
  for (const RunRecord& r : runs) by_id[r.id] = &r;
  std::map<std::pair<std::string, std::string>, std::vector<SceneSeries*>> groups;
  for (SceneSeries& s : *series) groups[{s.target, s.region}].push_back(&s);
  for (auto& [key, members] : groups) {
    std::string varying;
    if (members.size() > 1) {
      std::set<std::string> keys;
      for (SceneSeries* s : members)
        for (const auto& [k, v] : by_id[s->run_id]->params) keys.insert(k);
      int differing = 0;
      for (const std::string& k : keys) {
        std::set<std::string> values;
        for (SceneSeries* s : members) {
          std::string value = "\x01";  // absent
          for (const auto& [pk, pv] : by_id[s->run_id]->params)
            if (pk == k) value = pv;
          values.insert(value);
        }
        if (values.size() > 1) ++differing, varying = k;
      }
      if (differing != 1) varying.clear();
    }
    for (SceneSeries* s : members) {
      LabelParts& parts = (*label_parts)[s];
      parts.name = ShownName(*by_id[s->run_id]);
      parts.id = RunRef(s->run_id);
      if (!varying.empty())
        for (const auto& [k, v] : by_id[s->run_id]->params)
          if (k == varying) parts.id.clear(), parts.varying = k + "=" + v;
      parts.region = s->region;
    }
  }
  // Two series of one label (a run repeated with the same parameters, two programs of one
  // name in different folders) are told apart by id.
  std::map<std::string, int> uses;
  for (SceneSeries& s : *series) ++uses[(*label_parts)[&s].Text()];
  for (SceneSeries& s : *series) {
    LabelParts& parts = (*label_parts)[&s];
    if (uses[parts.Text()] > 1 && parts.id.empty()) parts.id = RunRef(s.run_id);
    s.label = parts.Fitted(s.region.empty() ? kLabelChars : kRegionLabelChars);
  }
}

std::vector<std::string> SplitPlus(const std::string& names) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= names.size();) {
    size_t plus = std::min(names.find('+', at), names.size());
    if (plus > at) out.push_back(names.substr(at, plus - at));
    at = plus + 1;
  }
  return out;
}

// Leaves in scene->roofs those the drawn runs are held against (BuildRooflineScene says which)
// and counts the others in hidden_roofs. With no series, every roof stays.
void KeepRoofsThatMatter(RooflineScene* scene) {
  if (scene->series.empty()) return;
  std::set<std::string> precisions, ceilings;
  std::set<std::string> measured_levels, model_levels;
  for (const SceneSeries& s : scene->series) {
    const Placement& p = s.placement;
    if (p.precision == "fp64" || p.precision == "fp32") {
      precisions.insert(p.precision);
    } else {  // mixed, or not known: placed against both precisions' roofs
      precisions.insert("fp64");
      precisions.insert("fp32");
    }
    for (const std::string& c : SplitPlus(p.isa_roof_ceiling)) ceilings.insert(c);
    for (const ScenePoint& pt : s.points)
      (IsMeasured(pt.source) ? measured_levels : model_levels).insert(pt.level);
  }
  // The ISA's roof is the best pattern of its precision and ISA: matched by that prefix.
  auto isa_roof = [&](const SceneRoof& r) {
    std::string prefix = r.precision + "_" + r.isa + "_";
    for (const std::string& c : ceilings)
      if (c == r.ceiling || c.rfind(prefix, 0) == 0) return true;
    return false;
  };
  std::vector<SceneRoof> kept;
  for (const SceneRoof& r : scene->roofs) {
    bool keep;
    if (r.compute)
      keep = (r.best && precisions.count(r.precision)) || isa_roof(r);
    else if (r.traffic)
      keep = measured_levels.count(r.level) > 0;
    else
      keep = model_levels.count(r.level) || !measured_levels.count(r.level) ||
             std::none_of(scene->roofs.begin(), scene->roofs.end(),
                          [&](const SceneRoof& t) { return t.traffic && t.level == r.level; });
    if (keep)
      kept.push_back(r);
    else
      ++scene->hidden_roofs;
  }
  scene->roofs = std::move(kept);
}

// What an axis covers of its points (RooflineScene's rule): the values from lo to hi are
// within; `points` is false where no point is.
struct AxisSpan {
  double lo = 1e300, hi = 0;
  bool points = false;
};

// Where `v` lies against what an axis keeps: 0 within, -1 under (0, not a number), +1 over.
int Beyond(double v, const AxisSpan& span) {
  if (v >= span.lo && v <= span.hi) return 0;
  return v > span.hi ? 1 : -1;
}

// The span of `values` (all > 0) the axis keeps, given the roofs' region [lo, hi] (lo > hi: no
// region on that side, as where no bandwidth roof is drawn).
AxisSpan KeptSpan(const std::vector<double>& values, double lo, double hi) {
  struct Cluster {
    double lo, hi;  // log10
    int count;
  };
  std::vector<double> logs;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) logs.push_back(std::log10(v));
  if (logs.empty()) return {};
  std::sort(logs.begin(), logs.end());
  std::vector<Cluster> clusters;
  for (double v : logs) {
    if (clusters.empty() || v - clusters.back().hi > kFarDecades) clusters.push_back({v, v, 0});
    clusters.back().hi = v;
    ++clusters.back().count;
  }
  double rlo = lo < 1e300 ? std::log10(lo) : 1e300, rhi = hi > 0 ? std::log10(hi) : -1e300;
  auto distance = [&](const Cluster& c) {
    if (rlo > rhi) return 0.0;
    return std::max({0.0, rlo - c.hi, c.lo - rhi});
  };
  const Cluster* bulk = &clusters.front();
  for (const Cluster& c : clusters)
    if (c.count > bulk->count || (c.count == bulk->count && distance(c) < distance(*bulk)))
      bulk = &c;
  // The roofs' region and the bulk, then every cluster near what is covered, outwards.
  double cover_lo = std::min(rlo, bulk->lo), cover_hi = std::max(rhi, bulk->hi);
  double kept_lo = bulk->lo, kept_hi = bulk->hi;
  for (bool grew = true; grew;) {
    grew = false;
    for (const Cluster& c : clusters) {
      bool near = c.hi >= cover_lo - kFarDecades && c.lo <= cover_hi + kFarDecades;
      if (!near || (c.lo >= kept_lo && c.hi <= kept_hi)) continue;
      kept_lo = std::min(kept_lo, c.lo), kept_hi = std::max(kept_hi, c.hi);
      cover_lo = std::min(cover_lo, c.lo), cover_hi = std::max(cover_hi, c.hi);
      grew = true;
    }
  }
  // Compared as values, not logs: a point at the span's end is within it.
  double klo = 1e300, khi = 0;
  for (double v : values)
    if (v > 0 && std::isfinite(v) && std::log10(v) >= kept_lo && std::log10(v) <= kept_hi)
      klo = std::min(klo, v), khi = std::max(khi, v);
  return {klo, khi, true};
}

// The labels of a series' edge markers: one for the points beyond in rate alone (they share
// it), the binding one where it is among them; one for each point beyond in intensity.
void LabelEdgeMarkers(SceneSeries* s) {
  std::set<std::pair<int, int>> labelled;  // rate-only directions already labelled
  std::vector<ScenePoint*> order;
  for (ScenePoint& p : s->points)
    if (p.off_scale()) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const ScenePoint* a, const ScenePoint* b) {
    return a->binding > b->binding;
  });
  for (ScenePoint* p : order) {
    if (p->beyond_x == 0 && !labelled.insert({p->beyond_x, p->beyond_y}).second) continue;
    std::vector<std::string> values;
    if (p->beyond_y) values.push_back(Format("%.2g GFLOP/s", p->gflops));
    if (p->beyond_x) values.push_back(Upper(p->level) + " AI " + Format("%.2g", p->ai));
    p->edge_label = s->label + ": " + Join(values, ", ");
  }
}

}  // namespace

std::string RunRef(int64_t run_id) {
  // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "#" + std::string.
  std::string out = "#";
  out += std::to_string(run_id);
  return out;
}

std::string LeftOutLine(const std::vector<LeftOut>& left_out, size_t max_chars) {
  std::string line = "left out (" + std::to_string(left_out.size()) + "; the notes say why): ";
  size_t shown = 0;
  for (const LeftOut& l : left_out) {
    std::string more = ", +" + std::to_string(left_out.size() - shown - 1) + " more";
    std::string next = (shown ? ", " : "") + l.name;
    bool last = shown + 1 == left_out.size();
    if (line.size() + next.size() + (last ? 0 : more.size()) > max_chars && shown > 0) break;
    line += next;
    ++shown;
  }
  if (shown < left_out.size()) line += ", +" + std::to_string(left_out.size() - shown) + " more";
  return line;
}

std::string ShortenLabel(const std::string& text, int max_chars) {
  if (DisplayChars(text) <= max_chars) return text;
  std::string out;
  size_t at = 0;
  for (int n = 0; n < max_chars - 1 && at < text.size(); ++n) {
    size_t len = NextUtf8Char(std::string_view(text).substr(at)).length;
    out += text.substr(at, len);
    at += len;
  }
  return out + "\xe2\x80\xa6";
}

RooflineScene BuildRooflineScene(const MachineProfile& profile, const std::vector<RunRecord>& runs,
                                 int threads, bool all_roofs) {
  RooflineScene scene;
  scene.threads = threads;
  scene.roofs = Roofs(profile, threads);
  for (const RunRecord& run : runs) {
    std::string name = RunRef(run.id) + " " + run.target;
    std::string params = ParamsText(run.params);
    if (!params.empty()) name += " " + params;
    if (run.status != RunStatus::kOk) {
      scene.left_out.push_back({run.id, name, StatusReason(run)});
      continue;
    }
    RunShape shape = RunShapeOf(run, profile);
    std::vector<std::pair<std::string, Placement>> parts = {
        {"", PlaceRun(run.metrics, shape, profile)}};
    for (const std::string& region : RegionNames(run.metrics))
      parts.push_back({region, PlaceRegion(run.metrics, region, shape, profile)});
    // Hot functions with their sampled time alone (no source counted them) are left out in one
    // line per run, not one each: the reason is the same for all.
    int time_only = 0;
    for (auto& [region, p] : parts) {
      std::string part_name = region.empty() ? name : name + " region " + region;
      if (!p.placed && IsFunctionRegion(region) && p.reason == kTimeProfileOnly) {
        ++time_only;
        continue;
      }
      if (!p.placed) {
        scene.left_out.push_back({run.id, part_name, p.reason});
        continue;
      }
      if (p.levels.empty()) {  // no FLOPs: judged by its bandwidth alone
        scene.left_out.push_back({run.id, part_name, p.verdict});
        continue;
      }
      if (!p.achieved) {
        scene.left_out.push_back(
            {run.id, part_name, "no measured rate (GFLOP/s) to draw: " + p.verdict});
        continue;
      }
      SceneSeries s;
      s.run_id = run.id;
      s.region = region;
      s.target = run.target;
      s.name = part_name;
      s.precision = p.precision;
      s.threads = p.threads;
      for (const LevelPlacement& lp : p.levels) {
        ScenePoint& pt = s.points.emplace_back();
        pt.level = lp.level, pt.source = lp.source, pt.ai = lp.ai, pt.gflops = *p.achieved;
        pt.attainable = lp.attainable;
        pt.binding = lp.level == p.binding_level && lp.source == p.binding_source;
      }
      s.placement = std::move(p);
      if (s.threads != threads)
        scene.warnings.push_back(
            s.name + ": placed against its own " + std::to_string(s.threads) + "-thread roofs (" +
            s.placement.threads_note + "); the roofs drawn are " + std::to_string(threads) +
            "-thread ones: --threads " + std::to_string(s.threads) + " draws its own");
      scene.series.push_back(std::move(s));
    }
    if (time_only > 0)
      scene.left_out.push_back(
          {run.id, name + " " + std::to_string(time_only) + " hot functions", kTimeProfileOnly});
  }
  LabelSeries(&scene.series, runs);
  if (!all_roofs) KeepRoofsThatMatter(&scene);

  double low_bw = 1e300;
  for (const SceneRoof& r : scene.roofs) {
    if (r.compute)
      scene.top_compute = std::max(scene.top_compute, r.value);
    else
      low_bw = std::min(low_bw, r.value);
  }
  std::vector<double> ais, rates;
  for (const SceneSeries& s : scene.series)
    for (const ScenePoint& p : s.points) ais.push_back(p.ai), rates.push_back(p.gflops);
  // x: the roofs' region, then the points' bulk, each point a factor 3 inside.
  double xmin = 1.0 / 32, xmax = 32;
  for (const SceneRoof& r : scene.roofs)
    if (!r.compute && scene.top_compute > 0) xmax = std::max(xmax, scene.top_compute / r.value * 4);
  AxisSpan x = KeptSpan(ais, xmin, xmax);
  if (x.points) xmin = std::min(xmin, x.lo / 3), xmax = std::max(xmax, x.hi * 3);
  // y: from where the lowest bandwidth roof enters the frame to above the highest compute roof.
  double ymax = scene.top_compute > 0 ? scene.top_compute * 3 : 100;
  double ymin = low_bw < 1e300 ? low_bw * xmin : 1e300;
  AxisSpan y = KeptSpan(rates, ymin, ymax);
  if (y.points) ymin = std::min(ymin, y.lo / 3), ymax = std::max(ymax, y.hi * 3);
  if (ymin >= 1e300) ymin = 0.1;
  for (SceneSeries& s : scene.series) {
    for (ScenePoint& p : s.points) {
      p.beyond_x = Beyond(p.ai, x);
      p.beyond_y = Beyond(p.gflops, y);
    }
    LabelEdgeMarkers(&s);
  }
  scene.xmin = xmin, scene.xmax = xmax, scene.ymin = ymin, scene.ymax = ymax;
  return scene;
}

}  // namespace rprof
