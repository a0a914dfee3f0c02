#include "report/roofline_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/json.h"
#include "core/text.h"
#include "core/utf8.h"
#include "report/label_placement.h"
#include "report/text_wrap.h"

namespace rprof {

namespace {

constexpr double kWidth = 1000;
constexpr Box kFrame = {80, 50, 640, 460};
constexpr double kLegendX = 740;
constexpr double kFont = 11;
constexpr double kTitleFont = 14;
constexpr double kMarker = 5;         // a point's half size
constexpr double kBindingMarker = 7;  // the binding level's point
constexpr double kEdgeMarker = 7;     // a point beyond the axes: a triangle at the frame's edge
constexpr double kEdgeInset = 9;      // its centre from the frame's edge
// How far a label keeps from a roof line's centre: its stroke is up to 2 px wide.
constexpr double kLineClearance = 1.5;
// A wrapped line under the plot continues this many characters in.
constexpr size_t kHang = 4;
const char* const kFontFamily = "DejaVu Sans Mono, Liberation Mono, monospace";

std::string Num(double v) { return Format("%.2f", v); }

const char* PrecisionColour(const std::string& precision) {
  if (precision == "fp64") return "#1f5fa8";
  if (precision == "fp32") return "#d9730d";
  if (precision == "mixed") return "#7b3fa0";
  return "#555555";
}

// The marker of a level: L1 circle, L2 square, L3 diamond, DRAM triangle; an SVG path of
// half size r around (x, y).
std::string MarkerPath(const std::string& level, double x, double y, double r) {
  if (level == "l1")
    return std::string("M") + Num(x - r) + "," + Num(y) + "a" + Num(r) + "," + Num(r) + " 0 1,0 " +
           Num(2 * r) + ",0a" + Num(r) + "," + Num(r) + " 0 1,0 " + Num(-2 * r) + ",0Z";
  if (level == "l2")
    return std::string("M") + Num(x - r) + "," + Num(y - r) + "h" + Num(2 * r) + "v" + Num(2 * r) +
           "h" + Num(-2 * r) + "Z";
  if (level == "l3")
    return std::string("M") + Num(x) + "," + Num(y - r * 1.2) + "L" + Num(x + r * 1.2) + "," +
           Num(y) + "L" + Num(x) + "," + Num(y + r * 1.2) + "L" + Num(x - r * 1.2) + "," + Num(y) +
           "Z";
  return std::string("M") + Num(x) + "," + Num(y - r * 1.2) + "L" + Num(x + r * 1.15) + "," +
         Num(y + r) + "L" + Num(x - r * 1.15) + "," + Num(y + r) + "Z";
}

// The edge marker of a point beyond the axes: a triangle of half size r around (x, y) pointing
// outwards, the way the point lies.
std::string EdgeMarkerPath(const ScenePoint& p, double x, double y, double r) {
  double dx = p.beyond_x, dy = -p.beyond_y, n = std::hypot(dx, dy);
  dx /= n, dy /= n;
  double px = -dy, py = dx;  // across
  return "M" + Num(x + dx * r) + "," + Num(y + dy * r) + "L" +
         Num(x - dx * r * 0.7 + px * r * 0.9) + "," + Num(y - dy * r * 0.7 + py * r * 0.9) + "L" +
         Num(x - dx * r * 0.7 - px * r * 0.9) + "," + Num(y - dy * r * 0.7 - py * r * 0.9) + "Z";
}

std::string EdgeName(const ScenePoint& p) {
  std::string y = p.beyond_y < 0 ? "below" : p.beyond_y > 0 ? "above" : "";
  std::string x = p.beyond_x < 0 ? "left" : p.beyond_x > 0 ? "right" : "";
  return y.empty() ? x : x.empty() ? y : y + "-" + x;
}

class Axes {
 public:
  explicit Axes(const RooflineScene& s)
      : lx0_(std::log10(s.xmin)),
        lx1_(std::log10(s.xmax)),
        ly0_(std::log10(s.ymin)),
        ly1_(std::log10(s.ymax)) {}
  double X(double ai) const {
    return kFrame.x + (std::log10(ai) - lx0_) / (lx1_ - lx0_) * kFrame.w;
  }
  double Y(double gflops) const {
    return kFrame.bottom() - (std::log10(gflops) - ly0_) / (ly1_ - ly0_) * kFrame.h;
  }
  double AiAt(double x) const {
    return std::pow(10, lx0_ + (x - kFrame.x) / kFrame.w * (lx1_ - lx0_));
  }
  // Where a point is drawn: at its intensity and rate, or, beyond the axes, on the frame's
  // edge (at its intensity or rate along the edge where that one is within).
  std::pair<double, double> At(const ScenePoint& p) const {
    if (!p.off_scale()) return {X(p.ai), Y(p.gflops)};
    double left = kFrame.x + kEdgeInset, right = kFrame.right() - kEdgeInset;
    double top = kFrame.y + kEdgeInset, bottom = kFrame.bottom() - kEdgeInset;
    double x = p.beyond_x ? (p.beyond_x < 0 ? left : right) : std::clamp(X(p.ai), left, right);
    double y = p.beyond_y ? (p.beyond_y < 0 ? bottom : top) : std::clamp(Y(p.gflops), top, bottom);
    return {x, y};
  }

 private:
  double lx0_, lx1_, ly0_, ly1_;
};

std::string Text(const std::string& cls, double x, double baseline, double font,
                 const std::string& text, const std::string& extra = "") {
  return "<text class=\"" + cls + "\" x=\"" + Num(x) + "\" y=\"" + Num(baseline) +
         "\" font-size=\"" + Num(font) + "\"" + extra + ">" + XmlEscape(text) + "</text>\n";
}

// A text line under the plot or in the legend: cut to what fits in `width` pixels, the whole
// line in its <title>.
std::string Line(const std::string& cls, double x, double baseline, double width,
                 const std::string& text, const std::string& fill = "") {
  int fits = static_cast<int>(width / (kCharWidthEm * kFont));
  std::string shown = ShortenLabel(text, fits);
  std::string extra = fill.empty() ? "" : " fill=\"" + fill + "\"";
  std::string out = "<text class=\"" + cls + "\" x=\"" + Num(x) + "\" y=\"" + Num(baseline) +
                    "\" font-size=\"" + Num(kFont) + "\"" + extra + ">";
  if (shown != text) out += "<title>" + XmlEscape(text) + "</title>";
  return out + XmlEscape(shown) + "</text>\n";
}

// A text under the plot, whole: wrapped at words to what fits in `width` pixels, its
// continuation lines indented; `*baseline` moves past the lines written.
std::string WrappedLines(const std::string& cls, double x, double* baseline, double width,
                         const std::string& text, const std::string& fill = "") {
  size_t fits = static_cast<size_t>(width / (kCharWidthEm * kFont));
  std::vector<std::string> lines = WrapText(text, fits, fits - kHang);
  std::string extra = fill.empty() ? "" : " fill=\"" + fill + "\"";
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    double indent = i == 0 ? 0 : kHang * kCharWidthEm * kFont;
    out += Text(cls, x + indent, *baseline, kFont, lines[i], extra);
    *baseline += kLineEm * kFont;
  }
  return out;
}

std::string TickText(double v) { return Format("%g", v); }

// A roof's label short: the precision and ISA ("fp64 avx2"), or the level ("L2", with
// `convention`: "L2 traffic"; the legend, where each roof has its line style, says which).
std::string ShortRoofLabel(const SceneRoof& r, bool convention) {
  if (r.compute) return r.precision + " " + r.isa;
  return Upper(r.level) + (r.traffic && convention ? " traffic" : "");
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  char escape[12];
  for (size_t at = 0; at < text.size();) {
    Utf8Char next = NextUtf8Char(std::string_view(text).substr(at));
    std::string_view bytes = std::string_view(text).substr(at, next.length);
    at += next.length;
    // What XML 1.0 forbids, even as a character reference (a program names its regions and
    // paths as it likes): shown as the tables show it, \x1b or \xff, never written raw.
    if (!next.valid) {
      for (char byte : bytes) {
        std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned char>(byte));
        out += escape;
      }
      continue;
    }
    char32_t c = next.code_point;
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0xFFFE || c == 0xFFFF) {
      std::snprintf(escape, sizeof escape, c < 0x20 ? "\\x%02x" : "\\u%04x",
                    static_cast<unsigned>(c));
      out += escape;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += bytes;
    }
  }
  return out;
}

std::string RooflineSvg(const RooflineScene& scene, const SvgOptions& options) {
  Axes ax(scene);
  LabelPlacer placer(kFrame);
  double lh = kLineEm * kFont;

  // Points first: no label may cover one.
  for (const SceneSeries& s : scene.series)
    for (const ScenePoint& p : s.points) {
      double r = (p.off_scale() ? kEdgeMarker : p.binding ? kBindingMarker : kMarker) + 1;
      auto [x, y] = ax.At(p);
      placer.Reserve({x - r, y - r, 2 * r, 2 * r});
    }

  std::string roofs, roof_labels;
  double top = scene.top_compute;
  double top_bw = 0;
  for (const SceneRoof& r : scene.roofs)
    if (!r.compute) top_bw = std::max(top_bw, r.value);
  // Each roof's line, in pixels; every line reserved before any label is placed, so that no
  // label (a roof's, a run's, an arrow's) sits on one.
  std::vector<Segment> lines;
  for (const SceneRoof& r : scene.roofs) {
    double x0, y0, x1, y1;
    if (r.compute) {
      double ridge = top_bw > 0 ? r.value / top_bw : scene.xmin;
      x0 = ax.X(std::max(ridge, scene.xmin)), y0 = y1 = ax.Y(r.value), x1 = kFrame.right();
    } else {
      double ai0 = std::max(scene.xmin, scene.ymin / r.value);
      double ai1 = top > 0 ? top / r.value : scene.xmax;
      x0 = ax.X(ai0), y0 = ax.Y(ai0 * r.value), x1 = ax.X(ai1), y1 = ax.Y(ai1 * r.value);
    }
    lines.push_back({x0, y0, x1, y1});
    placer.ReserveLine(lines.back(), kLineClearance);
  }
  for (size_t i = 0; i < scene.roofs.size(); ++i) {
    const SceneRoof& r = scene.roofs[i];
    std::string colour = r.compute ? PrecisionColour(r.precision) : "#444444";
    std::string dash = r.compute ? (r.best ? "" : " stroke-dasharray=\"6,4\"")
                                 : (r.traffic ? " stroke-dasharray=\"3,3\"" : "");
    double width = r.compute ? (r.best ? 2 : 1.2) : (r.traffic ? 1.2 : 2);
    const double x0 = lines[i].x0, y0 = lines[i].y0, x1 = lines[i].x1, y1 = lines[i].y1;
    roofs += "<line class=\"roof\" data-ceiling=\"" + XmlEscape(r.ceiling) + "\" x1=\"" + Num(x0) +
             "\" y1=\"" + Num(y0) + "\" x2=\"" + Num(x1) + "\" y2=\"" + Num(y1) + "\" stroke=\"" +
             colour + "\" stroke-width=\"" + Num(width) + "\"" + dash + "/>\n";
    // The label beside its line, where it is free: compute roofs above (then below) their
    // right end, sliding left; bandwidth roofs above-left of a point on the line, sliding up,
    // then below-right of it. Where the whole label finds no room (bandwidth roofs a few
    // pixels apart), its short form ("L2", "fp64 avx2") does; the legend has every value.
    for (const std::string& text : {r.label, ShortRoofLabel(r, true), ShortRoofLabel(r, false)}) {
      double w = DisplayChars(text) * kCharWidthEm * kFont;
      std::vector<Box> candidates;
      if (r.compute) {
        for (double x = x1 - 4 - w; x >= x0; x -= 12) candidates.push_back({x, y0 - lh - 3, w, lh});
        for (double x = x1 - 4 - w; x >= x0; x -= 12) candidates.push_back({x, y0 + 3, w, lh});
      } else {
        for (double t = 0.04; t <= 0.95; t += 0.02) {
          double x = x0 + (x1 - x0) * t, y = y0 + (y1 - y0) * t;
          candidates.push_back({x - w - 3, y - lh - 3, w, lh});
        }
        for (double t = 0.04; t <= 0.95; t += 0.02) {
          double x = x0 + (x1 - x0) * t, y = y0 + (y1 - y0) * t;
          candidates.push_back({x + 3, y + 3, w, lh});
        }
      }
      int at = placer.Place(candidates);
      if (at < 0) continue;
      roof_labels +=
          Text("roof-label", candidates[at].x, BaselineForTop(candidates[at].y, kFont), kFont, text,
               " fill=\"" + colour + "\" data-ceiling=\"" + XmlEscape(r.ceiling) + "\"");
      break;
    }
  }

  // Series: the points of one run joined, each at its level's marker, the binding one larger.
  std::string series_svg, run_labels, leaders, edge_labels;
  std::vector<std::string> unplaced;  // labels with no free place: named under the plot
  for (const SceneSeries& s : scene.series) {
    const Placement& p = s.placement;
    std::string colour = PrecisionColour(s.precision);
    series_svg +=
        "<g class=\"series\" data-run=\"" + std::to_string(s.run_id) + "\" data-region=\"" +
        XmlEscape(s.region) + "\" data-label=\"" + XmlEscape(s.label) + "\" data-binding=\"" +
        XmlEscape(p.binding) + "\" data-binding-level=\"" + p.binding_level +
        "\" data-binding-source=\"" + std::string(SourceName(p.binding_source)) +
        "\" data-percent-of-roof=\"" + (p.percent_of_roof ? JsonNumber(*p.percent_of_roof) : "") +
        "\" data-achieved-gflops=\"" + JsonNumber(*p.achieved) + "\" data-verdict=\"" +
        XmlEscape(p.verdict) + "\">\n<title>" + XmlEscape(s.name + ": " + p.verdict) + "</title>\n";
    std::map<Source, std::vector<const ScenePoint*>> by_source;
    for (const ScenePoint& pt : s.points)
      if (!pt.off_scale()) by_source[pt.source].push_back(&pt);  // no join to an edge marker
    for (auto& [source, pts] : by_source) {
      if (pts.size() < 2) continue;
      std::sort(pts.begin(), pts.end(),
                [](const ScenePoint* a, const ScenePoint* b) { return a->ai < b->ai; });
      std::string d;
      for (const ScenePoint* pt : pts) {
        d += d.empty() ? "M" : "L";
        d += Num(ax.X(pt->ai)) + "," + Num(ax.Y(pt->gflops));
      }
      // The join runs through its points' centres and may cross another run's point drawn
      // earlier: it never takes the mouse from that point.
      series_svg += "<path class=\"join\" d=\"" + d + "\" fill=\"none\" stroke=\"" + colour +
                    "\" stroke-width=\"1\" stroke-opacity=\"0.6\" pointer-events=\"none\"" +
                    (IsMeasured(source) ? "" : " stroke-dasharray=\"2,2\"") + "/>\n";
    }
    // Model points under measured ones, the binding point on top: where they coincide (every
    // level of a streaming kernel moves the same bytes) the one that decided shows.
    std::vector<const ScenePoint*> order;
    for (const ScenePoint& pt : s.points) order.push_back(&pt);
    std::stable_sort(order.begin(), order.end(), [](const ScenePoint* a, const ScenePoint* b) {
      return std::pair(a->binding, IsMeasured(a->source)) <
             std::pair(b->binding, IsMeasured(b->source));
    });
    const ScenePoint* binding = nullptr;
    for (const ScenePoint* ptr : order) {
      const ScenePoint& pt = *ptr;
      if (pt.binding) binding = &pt;
      bool measured = IsMeasured(pt.source);
      double r = pt.binding ? kBindingMarker : kMarker;
      std::string title = s.label + ": " + Upper(pt.level) + " (" +
                          std::string(SourceName(pt.source)) + ") AI " + Format("%.3g", pt.ai) +
                          " FLOP/B, " + Format("%.3g", pt.gflops) + " GFLOP/s, " +
                          Format("%.0f", pt.gflops / pt.attainable * 100) + " % of the " +
                          Upper(pt.level) + " roof" + (pt.binding ? " (binding)" : "");
      auto [px, py] = ax.At(pt);
      // Beyond the axes: a triangle on the frame's edge, pointing where the point lies.
      std::string edge = pt.off_scale() ? " data-edge=\"" + EdgeName(pt) + "\"" : "";
      if (pt.off_scale()) title += " (beyond the axes)";
      series_svg += "<path class=\"point\" data-level=\"" + pt.level + "\" data-source=\"" +
                    std::string(SourceName(pt.source)) + "\" data-ai=\"" + JsonNumber(pt.ai) +
                    "\" data-gflops=\"" + JsonNumber(pt.gflops) + "\" data-binding=\"" +
                    (pt.binding ? "true" : "false") + "\"" + edge + " d=\"" +
                    (pt.off_scale() ? EdgeMarkerPath(pt, px, py, kEdgeMarker)
                                    : MarkerPath(pt.level, px, py, r)) +
                    "\" fill=\"" + (measured ? colour : "#ffffff") + "\" stroke=\"" +
                    (pt.binding ? "#000000" : colour) + "\" stroke-width=\"" +
                    (pt.binding ? "2.5" : "1.5") + "\"><title>" + XmlEscape(title) +
                    "</title></path>\n";
    }
    series_svg += "</g>\n";
    // Each edge marker's label, with its value: a run label's candidates, around the marker.
    for (const ScenePoint& pt : s.points) {
      if (pt.edge_label.empty()) continue;
      auto [ex, ey] = ax.At(pt);
      double w = DisplayChars(pt.edge_label) * kCharWidthEm * kFont;
      std::vector<Box> candidates = CandidatesAround(ex, ey, w, lh, 11, 8);
      int at = placer.Place(candidates);
      if (at < 0) {
        unplaced.push_back(pt.edge_label);
        continue;
      }
      const Box& box = candidates[at];
      if (at >= 8) {  // past the first ring: a leader back to its marker, as a run label's
        double lx = std::clamp(ex, box.x, box.right()), ly = std::clamp(ey, box.y, box.bottom());
        leaders += "<line class=\"edge-leader\" data-run=\"" + std::to_string(s.run_id) +
                   "\" x1=\"" + Num(ex) + "\" y1=\"" + Num(ey) + "\" x2=\"" + Num(lx) + "\" y2=\"" +
                   Num(ly) + "\" stroke=\"#888888\" stroke-width=\"0.8\"/>\n";
      }
      edge_labels += Text("edge-label", candidates[at].x, BaselineForTop(candidates[at].y, kFont),
                          kFont, pt.edge_label, " data-run=\"" + std::to_string(s.run_id) + "\"");
    }
    if (!binding || binding->off_scale()) continue;
    double bx = ax.X(binding->ai), by = ax.Y(binding->gflops);
    // Short, the run's id: where it names this series alone (a run's hot functions share it).
    int same_run = 0;
    for (const SceneSeries& other : scene.series) same_run += other.run_id == s.run_id;
    std::vector<std::string> texts = {s.label};
    if (same_run == 1) texts.push_back(RunRef(s.run_id));
    bool placed = false;
    for (const std::string& text : texts) {
      double w = DisplayChars(text) * kCharWidthEm * kFont;
      std::vector<Box> candidates = CandidatesAround(bx, by, w, lh, 10, 10);
      int at = placer.Place(candidates);
      if (at < 0) continue;
      const Box& box = candidates[at];
      // A label pushed past the first ring around its point gets a thin leader line back to
      // it (drawn under every label): far from its point, a label alone does not say which
      // point it names.
      if (at >= 8) {
        double lx = std::clamp(bx, box.x, box.right()), ly = std::clamp(by, box.y, box.bottom());
        leaders += "<line class=\"leader\" data-run=\"" + std::to_string(s.run_id) + "\" x1=\"" +
                   Num(bx) + "\" y1=\"" + Num(by) + "\" x2=\"" + Num(lx) + "\" y2=\"" + Num(ly) +
                   "\" stroke=\"#888888\" stroke-width=\"0.8\"/>\n";
      }
      run_labels += Text("run-label", candidates[at].x, BaselineForTop(candidates[at].y, kFont),
                         kFont, text, " data-run=\"" + std::to_string(s.run_id) + "\"");
      placed = true;
      break;
    }
    if (!placed) unplaced.push_back(s.label);
  }

  // Arrows: before → after, between binding points, labelled with the speed-up.
  std::string arrows;
  for (const SceneArrow& a : options.arrows) {
    const ScenePoint *from = nullptr, *to = nullptr;
    for (const SceneSeries& s : scene.series)
      for (const ScenePoint& pt : s.points)
        if (pt.binding && s.region.empty()) {
          if (s.run_id == a.from_run) from = &pt;
          if (s.run_id == a.to_run) to = &pt;
        }
    if (!from || !to) continue;
    auto [x0, y0] = ax.At(*from);  // a point beyond the axes: its edge marker
    auto [x1, y1] = ax.At(*to);
    arrows += "<line class=\"arrow\" data-from=\"" + std::to_string(a.from_run) + "\" data-to=\"" +
              std::to_string(a.to_run) + "\" x1=\"" + Num(x0) + "\" y1=\"" + Num(y0) + "\" x2=\"" +
              Num(x1) + "\" y2=\"" + Num(y1) +
              "\" stroke=\"#2a9d3a\" stroke-width=\"2\" marker-end=\"url(#arrowhead)\"/>\n";
    double w = DisplayChars(a.label) * kCharWidthEm * kFont;
    std::vector<Box> candidates = CandidatesAround((x0 + x1) / 2, (y0 + y1) / 2, w, lh, 8, 6);
    int at = placer.Place(candidates);
    if (at >= 0)
      arrows += Text("arrow-label", candidates[at].x, BaselineForTop(candidates[at].y, kFont),
                     kFont, a.label, " fill=\"#2a9d3a\"");
  }

  // Ticks: every decade in range.
  std::string ticks;
  for (int e = static_cast<int>(std::ceil(std::log10(scene.xmin) - 1e-9));
       std::pow(10, e) <= scene.xmax * (1 + 1e-9); ++e) {
    double v = std::pow(10, e), x = ax.X(v);
    ticks += "<line class=\"grid\" x1=\"" + Num(x) + "\" y1=\"" + Num(kFrame.y) + "\" x2=\"" +
             Num(x) + "\" y2=\"" + Num(kFrame.bottom()) + "\" stroke=\"#e4e4e4\"/>\n";
    std::string t = TickText(v);
    ticks += Text("tick", x - DisplayChars(t) * kCharWidthEm * kFont / 2, kFrame.bottom() + 16,
                  kFont, t);
  }
  for (int e = static_cast<int>(std::ceil(std::log10(scene.ymin) - 1e-9));
       std::pow(10, e) <= scene.ymax * (1 + 1e-9); ++e) {
    double v = std::pow(10, e), y = ax.Y(v);
    ticks += "<line class=\"grid\" x1=\"" + Num(kFrame.x) + "\" y1=\"" + Num(y) + "\" x2=\"" +
             Num(kFrame.right()) + "\" y2=\"" + Num(y) + "\" stroke=\"#e4e4e4\"/>\n";
    std::string t = TickText(v);
    ticks += Text("tick", kFrame.x - 6 - DisplayChars(t) * kCharWidthEm * kFont, y + 4, kFont, t);
  }

  // The legend, beside the frame.
  std::string legend;
  double ly = kFrame.y + kFont;
  double lwidth = kWidth - kLegendX - 4;
  auto heading = [&](const std::string& text) {
    legend += Line("legend", kLegendX, ly, lwidth, text, "#000000");
    ly += lh + 2;
  };
  heading("marker: level of the bytes");
  for (const auto& [level, name] : std::vector<std::pair<std::string, std::string>>{
           {"l1", "L1"}, {"l2", "L2"}, {"l3", "L3"}, {"dram", "DRAM"}}) {
    legend += "<path class=\"legend-marker\" d=\"" +
              MarkerPath(level, kLegendX + 6, ly - 4, kMarker) +
              "\" fill=\"#ffffff\" stroke=\"#333333\" stroke-width=\"1.5\"/>\n";
    legend += Line("legend", kLegendX + 18, ly, lwidth - 18, name);
    ly += lh;
  }
  legend += "<path class=\"legend-marker\" d=\"" +
            MarkerPath("l1", kLegendX + 6, ly - 4, kBindingMarker) +
            "\" fill=\"#ffffff\" stroke=\"#000000\" stroke-width=\"2.5\"/>\n";
  legend += Line("legend", kLegendX + 18, ly, lwidth - 18, "the binding level");
  ly += lh;
  if (std::any_of(scene.series.begin(), scene.series.end(), [](const SceneSeries& s) {
        return std::any_of(s.points.begin(), s.points.end(),
                           [](const ScenePoint& p) { return p.off_scale(); });
      })) {
    ScenePoint below;
    below.beyond_y = -1;
    legend += "<path class=\"legend-marker\" d=\"" +
              EdgeMarkerPath(below, kLegendX + 6, ly - 4, kMarker) +
              "\" fill=\"#ffffff\" stroke=\"#333333\" stroke-width=\"1.5\"/>\n";
    legend += Line("legend", kLegendX + 18, ly, lwidth - 18, "beyond the axes: its value");
    ly += lh;
  }
  ly += 6;
  heading("colour: precision");
  for (const char* precision : {"fp64", "fp32", "mixed"}) {
    legend += "<rect x=\"" + Num(kLegendX) + "\" y=\"" + Num(ly - 9) +
              "\" width=\"12\" height=\"10\" fill=\"" + PrecisionColour(precision) + "\"/>\n";
    legend += Line("legend", kLegendX + 18, ly, lwidth - 18, precision);
    ly += lh;
  }
  ly += 6;
  heading("fill: source");
  legend += "<path d=\"" + MarkerPath("l1", kLegendX + 6, ly - 4, kMarker) +
            "\" fill=\"#555555\" stroke=\"#555555\"/>\n";
  legend += Line("legend", kLegendX + 18, ly, lwidth - 18, "measured (sim, pmu)");
  ly += lh;
  legend += "<path d=\"" + MarkerPath("l1", kLegendX + 6, ly - 4, kMarker) +
            "\" fill=\"#ffffff\" stroke=\"#555555\" stroke-width=\"1.5\"/>\n";
  legend += Line("legend", kLegendX + 18, ly, lwidth - 18, "model (compulsory bytes)");
  ly += lh + 6;
  heading("roofs, " + std::to_string(scene.threads) + " thread" + (scene.threads > 1 ? "s" : ""));
  for (const SceneRoof& r : scene.roofs) {
    std::string colour = r.compute ? PrecisionColour(r.precision) : "#444444";
    std::string dash = (r.compute && !r.best) || r.traffic ? " stroke-dasharray=\"4,3\"" : "";
    legend += "<line x1=\"" + Num(kLegendX) + "\" y1=\"" + Num(ly - 4) + "\" x2=\"" +
              Num(kLegendX + 14) + "\" y2=\"" + Num(ly - 4) + "\" stroke=\"" + colour +
              "\" stroke-width=\"2\"" + dash + "/>\n";
    legend += Line("legend", kLegendX + 18, ly, lwidth - 18, r.label, colour);
    ly += lh;
  }
  if (scene.hidden_roofs > 0) {
    legend += Line("legend", kLegendX, ly, lwidth,
                   std::to_string(scene.hidden_roofs) + " other roof" +
                       (scene.hidden_roofs > 1 ? "s" : "") + ": --all-roofs");
    ly += lh;
  }

  // Under the plot: one line per series, the warnings, what was left out and why.
  std::string below;
  double by = std::max(kFrame.bottom() + 62, ly + 10);
  double bwidth = kWidth - 20;
  if (options.series_lines) {
    below += WrappedLines("below", 10, &by, bwidth,
                          "runs drawn: label = run: verdict (placement's, as rprof show prints it)",
                          "#000000");
    for (const SceneSeries& s : scene.series)
      below += WrappedLines("below", 10, &by, bwidth,
                            s.label + " = " + s.name + ": " + s.placement.verdict);
  }
  for (const std::string& w : scene.warnings)
    below += WrappedLines("below", 10, &by, bwidth, "warning: " + w, "#a83232");
  if (!unplaced.empty())
    below +=
        WrappedLines("below", 10, &by, bwidth,
                     "no room on the plot for the label of: " + Join(unplaced, ", "), "#000000");
  if (!scene.left_out.empty())
    below += WrappedLines(
        "below left-out", 10, &by, bwidth,
        LeftOutLine(scene.left_out, static_cast<size_t>(bwidth / (kCharWidthEm * kFont))),
        "#000000");
  double height = by + 8;

  std::string s;
  if (options.standalone) s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg";
  if (options.standalone) s += " xmlns=\"http://www.w3.org/2000/svg\"";
  s += " class=\"roofline\" width=\"" + Num(kWidth) + "\" height=\"" + Num(height) +
       "\" viewBox=\"0 0 " + Num(kWidth) + " " + Num(height) + "\" font-family=\"" + kFontFamily +
       "\" data-threads=\"" + std::to_string(scene.threads) + "\">\n";
  s += "<defs><clipPath id=\"frame-clip\"><rect x=\"" + Num(kFrame.x) + "\" y=\"" + Num(kFrame.y) +
       "\" width=\"" + Num(kFrame.w) + "\" height=\"" + Num(kFrame.h) +
       "\"/></clipPath><marker id=\"arrowhead\" markerWidth=\"10\" markerHeight=\"8\" refX=\"9\" "
       "refY=\"4\" orient=\"auto\"><path d=\"M0,0L10,4L0,8Z\" fill=\"#2a9d3a\"/></marker>"
       "</defs>\n";
  s += "<rect x=\"0\" y=\"0\" width=\"" + Num(kWidth) + "\" height=\"" + Num(height) +
       "\" fill=\"#ffffff\"/>\n";
  std::string title =
      ShortenLabel(options.title, static_cast<int>((kWidth - 20) / (kCharWidthEm * kTitleFont)));
  s += Text("title", 10, 22, kTitleFont, title);
  s += Text("axis-label", 10, kFrame.y - 8, kFont, "performance (GFLOP/s)");
  s += Text("axis-label", kFrame.x, kFrame.bottom() + 36, kFont,
            "arithmetic intensity (FLOP/byte): a point per memory level with bytes");
  s += ticks;
  s += "<rect id=\"frame\" x=\"" + Num(kFrame.x) + "\" y=\"" + Num(kFrame.y) + "\" width=\"" +
       Num(kFrame.w) + "\" height=\"" + Num(kFrame.h) + "\" fill=\"none\" stroke=\"#333333\"/>\n";
  s += "<g clip-path=\"url(#frame-clip)\">\n" + roofs + "</g>\n";
  // Arrows, labels and leaders only annotate the points: the mouse goes through them to the
  // points below (an arrow or a leader ends at its point's centre, where a hover aims).
  s += "<g clip-path=\"url(#frame-clip)\">\n" + series_svg +
       "<g class=\"arrows\" pointer-events=\"none\">\n" + arrows + "</g>\n</g>\n";
  s += "<g class=\"labels\" pointer-events=\"none\" style=\"paint-order:stroke\" "
       "stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\">\n" +
       leaders + roof_labels + run_labels + edge_labels + "</g>\n";
  s += legend + below + "</svg>\n";
  return s;
}

}  // namespace rprof
