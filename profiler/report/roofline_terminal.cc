#include "report/roofline_terminal.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/text.h"
#include "report/label_placement.h"
#include "report/text_wrap.h"

namespace rprof {

namespace {

constexpr int kLeftMargin = 7;  // y tick labels: "0.001 " fits

// Cells of UTF-8 text, one string per column.
class Grid {
 public:
  Grid(int w, int h)
      : w_(w), h_(h), cells_(static_cast<size_t>(w * h), " "), roof_(cells_.size(), false) {}
  void Put(int x, int y, const std::string& c) {
    if (!Has(x, y)) return;
    cells_[static_cast<size_t>(y * w_ + x)] = c;
    roof_[static_cast<size_t>(y * w_ + x)] = false;
  }
  // A cell of a roof line: what a point or a label may take, and blank beside itself.
  void PutRoof(int x, int y, char c) {
    Put(x, y, std::string(1, c));
    if (Has(x, y)) roof_[static_cast<size_t>(y * w_ + x)] = true;
  }
  bool Has(int x, int y) const { return x >= 0 && y >= 0 && x < w_ && y < h_; }
  bool IsRoof(int x, int y) const { return Has(x, y) && roof_[static_cast<size_t>(y * w_ + x)]; }
  void PutChar(int x, int y, char c) { Put(x, y, std::string(1, c)); }
  const std::string& At(int x, int y) const { return cells_[static_cast<size_t>(y * w_ + x)]; }
  void Write(int x, int y, const std::string& text) {
    size_t at = 0;
    for (int i = 0; at < text.size(); ++i) {
      size_t len = 1;
      unsigned char c = static_cast<unsigned char>(text[at]);
      if (c >= 0xf0)
        len = 4;
      else if (c >= 0xe0)
        len = 3;
      else if (c >= 0xc0)
        len = 2;
      Put(x + i, y, text.substr(at, len));
      at += len;
    }
  }
  std::string Row(int y) const {
    std::string out;
    for (int x = 0; x < w_; ++x) out += At(x, y);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }

 private:
  int w_, h_;
  std::vector<std::string> cells_;
  std::vector<bool> roof_;
};

// A point or a label written at (x, y), `len` cells long, stands apart from the roof it may
// sit on: a roof character right before or after it is blanked ("~1~~3~~d~" reads as one
// word; " 1 ~ 3 ~ d " as three points).
void ClearRoofAround(Grid* g, int x, int y, int len) {
  for (int c : {x - 1, x + len})
    if (g->IsRoof(c, y)) g->Put(c, y, " ");
}

// What a series' label may be, longest first: its label, then its run's id where that names
// this series alone (the hot functions and regions of one run share it).
std::vector<std::string> ShortLabels(const RooflineScene& scene, const SceneSeries& s) {
  int same_run = 0;
  for (const SceneSeries& other : scene.series) same_run += other.run_id == s.run_id;
  if (same_run > 1) return {s.label};
  return {s.label, RunRef(s.run_id)};
}

}  // namespace

char EdgeGlyph(const ScenePoint& point) {
  if (point.beyond_y) return point.beyond_y < 0 ? 'v' : '^';
  return point.beyond_x < 0 ? '<' : '>';
}

char PointGlyph(const std::string& level, bool measured) {
  int i = level == "l1" ? 0 : level == "l2" ? 1 : level == "l3" ? 2 : 3;
  return measured ? "123D"[i] : "abcd"[i];
}

std::string RooflineText(const RooflineScene& scene, const std::string& title, size_t width,
                         size_t height) {
  int w = static_cast<int>(std::max(width, kMinPlotWidth));
  int h = static_cast<int>(std::max(height, kMinPlotHeight));
  // The frame: columns kLeftMargin .. w-1, rows 0 .. h-1; inside it, the plot area.
  int fx = kLeftMargin, fw = w - kLeftMargin, fh = h;
  int ix0 = fx + 1, ix1 = fx + fw - 2, iy0 = 1, iy1 = fh - 2;  // inclusive
  Grid g(w, h + 2);                                            // + tick row + axis label row
  double lx0 = std::log10(scene.xmin), lx1 = std::log10(scene.xmax);
  double ly0 = std::log10(scene.ymin), ly1 = std::log10(scene.ymax);
  auto col = [&](double ai) {
    return ix0 + static_cast<int>(std::lround((std::log10(ai) - lx0) / (lx1 - lx0) * (ix1 - ix0)));
  };
  auto row = [&](double gf) {
    return iy1 - static_cast<int>(std::lround((std::log10(gf) - ly0) / (ly1 - ly0) * (iy1 - iy0)));
  };
  auto ai_at = [&](int c) {
    return std::pow(10, lx0 + (c - ix0) / static_cast<double>(ix1 - ix0) * (lx1 - lx0));
  };
  auto inside = [&](int c, int r) { return c >= ix0 && c <= ix1 && r >= iy0 && r <= iy1; };

  // Frame.
  for (int x = fx; x < fx + fw; ++x) g.PutChar(x, 0, '-'), g.PutChar(x, fh - 1, '-');
  for (int y = 0; y < fh; ++y) g.PutChar(fx, y, '|'), g.PutChar(fx + fw - 1, y, '|');
  for (int y : {0, fh - 1}) g.PutChar(fx, y, '+'), g.PutChar(fx + fw - 1, y, '+');
  // Ticks: decades, on the frame and as numbers outside it.
  for (int e = static_cast<int>(std::ceil(lx0 - 1e-9)); e <= lx1 + 1e-9; ++e) {
    int c = col(std::pow(10, e));
    std::string t = Format("%g", std::pow(10, e));
    g.PutChar(c, fh - 1, '+');
    int start = std::clamp(c - static_cast<int>(t.size()) / 2, 0, w - static_cast<int>(t.size()));
    g.Write(start, fh, t);
  }
  for (int e = static_cast<int>(std::ceil(ly0 - 1e-9)); e <= ly1 + 1e-9; ++e) {
    int r = row(std::pow(10, e));
    std::string t = Format("%g", std::pow(10, e));
    g.PutChar(fx, r, '+');
    if (static_cast<int>(t.size()) < kLeftMargin)
      g.Write(fx - 1 - static_cast<int>(t.size()), r, t);
  }
  g.Write(fx, fh + 1, "arithmetic intensity (FLOP/byte), GFLOP/s up");

  // Roofs: bandwidth '*' (traffic '.'), compute '=' (narrower ISAs '~').
  double top = scene.top_compute;
  for (const SceneRoof& r : scene.roofs) {
    if (r.compute) {
      char ch = r.best ? '=' : '~';
      int y = row(r.value);
      // From the ridge of the highest bandwidth roof rightwards, as the roofline bends.
      double top_bw = 0;
      for (const SceneRoof& b : scene.roofs)
        if (!b.compute) top_bw = std::max(top_bw, b.value);
      // The roofs of narrower vector code every third cell only: light enough that a row
      // they cross still reads as the points and labels on it.
      for (int c = ix0; c <= ix1; ++c)
        if (ai_at(c) * top_bw >= r.value && inside(c, y) && g.At(c, y) == " " &&
            (r.best || c % 3 == 0))
          g.PutRoof(c, y, ch);
      continue;
    }
    char ch = r.traffic ? '.' : '*';
    int prev = -1;
    for (int c = ix0; c <= ix1; ++c) {
      double ai = ai_at(c), gf = ai * r.value;
      if (top > 0 && gf > top) break;
      int y = row(gf);
      int from = prev < 0 ? y : std::min(prev - 1, y), to = prev < 0 ? y : std::max(prev - 1, y);
      if (prev >= 0 && y == prev) from = to = y;
      for (int yy = std::min(from, to); yy <= std::max(from, to); ++yy)
        if (inside(c, yy) && (g.At(c, yy) == " " || g.At(c, yy) == ".")) g.PutRoof(c, yy, ch);
      prev = y;
    }
  }

  // Points, then labels placed around them. Every box the placer holds (a point, a label) is
  // its cells and the one after them, which stays blank: "#3 dot1 #2 triad" ran a label into a
  // point and the next label; "#3 dot 1 #2 triad" reads as three things. The last column's
  // trailing cell is the frame's.
  LabelPlacer placer({static_cast<double>(ix0), static_cast<double>(iy0),
                      static_cast<double>(ix1 - ix0 + 2), static_cast<double>(iy1 - iy0 + 1)});
  auto text_box = [](double x, double y, double len) { return Box{x, y, len + 1, 1}; };
  // No label on a compute roof's row: written over it, "== L3 122 GB/s ==" reads as the
  // compute roof's own label.
  for (const SceneRoof& r : scene.roofs)
    if (r.compute) {
      double y = row(r.value) + 0.5;  // the middle of the row's cells
      placer.ReserveLine({static_cast<double>(ix0), y, static_cast<double>(ix1 + 1), y});
    }
  // Model points first, then measured ones, binding points last: where several share a cell,
  // the one that decided shows.
  std::vector<const ScenePoint*> order;
  for (const SceneSeries& s : scene.series)
    for (const ScenePoint& p : s.points) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [](const ScenePoint* a, const ScenePoint* b) {
    return std::pair(a->binding, IsMeasured(a->source)) <
           std::pair(b->binding, IsMeasured(b->source));
  });
  // A point beyond the axes sits on the frame's inner edge, its glyph the direction it lies in.
  auto cell_of = [&](const ScenePoint& p) {
    int c = p.beyond_x ? (p.beyond_x < 0 ? ix0 : ix1) : std::clamp(col(p.ai), ix0, ix1);
    int r = p.beyond_y ? (p.beyond_y < 0 ? iy1 : iy0) : std::clamp(row(p.gflops), iy0, iy1);
    return std::pair(c, r);
  };
  for (const ScenePoint* point : order) {
    const ScenePoint& p = *point;
    auto [c, r] = cell_of(p);
    if (!inside(c, r)) continue;
    g.PutChar(c, r, p.off_scale() ? EdgeGlyph(p) : PointGlyph(p.level, IsMeasured(p.source)));
    ClearRoofAround(&g, c, r, 1);
    placer.Reserve(text_box(c, r, 1));
  }
  // Roof labels: compute roofs at their right end above the line, bandwidth at their top.
  for (const SceneRoof& r : scene.roofs) {
    if (r.traffic || (r.compute && !r.best)) continue;  // the legend under the plot names them
    std::string label = r.label;
    double len = DisplayChars(label);
    std::vector<Box> candidates;
    if (r.compute) {
      int y = row(r.value);
      for (int dy : {-1, 1})
        for (double x = ix1 - len + 1; x >= ix0; x -= 4)
          candidates.push_back(text_box(x, y + dy, len));
    } else {
      for (int c = ix0; c <= ix1; c += 2) {
        double gf = ai_at(c) * r.value;
        if (top > 0 && gf > top) break;
        candidates.push_back(text_box(c - len - 1, row(gf) - 1.0, len));
      }
      std::reverse(candidates.begin(), candidates.end());  // nearest the top end first
    }
    int at = placer.Place(candidates);
    if (at >= 0) {
      g.Write(static_cast<int>(candidates[at].x), static_cast<int>(candidates[at].y), label);
      ClearRoofAround(&g, static_cast<int>(candidates[at].x), static_cast<int>(candidates[at].y),
                      static_cast<int>(len));
    }
  }
  // Run labels beside their binding points (or, short, the run's id), then edge markers' labels
  // with their values. A label with no free place is not written over anything: the line
  // under the frame names it.
  std::vector<std::string> unplaced;
  auto place_label = [&](int c, int r, const std::vector<std::string>& texts) {
    for (const std::string& text : texts) {
      double len = DisplayChars(text);
      std::vector<Box> candidates;
      for (int d = 0; d <= 3; ++d) {
        candidates.push_back(text_box(c + 2.0 + d, r - d, len));
        candidates.push_back(text_box(c - len - 1 - d, r - d, len));
        candidates.push_back(text_box(c + 2.0 + d, r + d, len));
        candidates.push_back(text_box(c - len - 1 - d, r + d, len));
        candidates.push_back(text_box(c - len / 2, r - 1.0 - d, len));
        candidates.push_back(text_box(c - len / 2, r + 1.0 + d, len));
      }
      for (Box& b : candidates) b.x = std::floor(b.x);
      int at = placer.Place(candidates);
      if (at < 0) continue;
      int x = static_cast<int>(candidates[at].x), y = static_cast<int>(candidates[at].y);
      g.Write(x, y, text);
      ClearRoofAround(&g, x, y, static_cast<int>(len));
      return true;
    }
    return false;
  };
  for (const SceneSeries& s : scene.series)
    for (const ScenePoint& p : s.points) {
      if (!p.binding || p.off_scale()) continue;
      auto [c, r] = cell_of(p);
      if (!place_label(c, r, ShortLabels(scene, s)))
        unplaced.push_back(s.label + " (" +
                           std::string(1, PointGlyph(p.level, IsMeasured(p.source))) + " at AI " +
                           Format("%.2g", p.ai) + ", " + Format("%.2g", p.gflops) + " GFLOP/s)");
    }
  for (const SceneSeries& s : scene.series)
    for (const ScenePoint& p : s.points) {
      if (p.edge_label.empty()) continue;
      auto [c, r] = cell_of(p);
      if (!place_label(c, r, {p.edge_label}))
        unplaced.push_back(p.edge_label + " (" + std::string(1, EdgeGlyph(p)) + ")");
    }

  std::string out;
  for (const std::string& line : WrapText(title, static_cast<size_t>(w))) out += line + "\n";
  for (int y = 0; y < h + 2; ++y) out += g.Row(y) + "\n";
  std::vector<std::string> lines = {
      "points: 1 2 3 D = intensity at L1 L2 L3 DRAM (measured: sim, pmu), a b c d the same "
      "from the model; each label is at its run's binding level",
      "roofs (" + std::to_string(scene.threads) + " thread" + (scene.threads > 1 ? "s" : "") +
          "): * bandwidth, . bandwidth in actual traffic, = compute, ~ compute of narrower "
          "vector code"};
  std::vector<std::string> roofs;
  for (const SceneRoof& r : scene.roofs) roofs.push_back(r.label);
  lines.push_back("  " + Join(roofs, ", "));
  if (scene.hidden_roofs > 0)
    lines.push_back("  and " + std::to_string(scene.hidden_roofs) + " other roof" +
                    (scene.hidden_roofs > 1 ? "s" : "") +
                    " no run drawn is held against: --all-roofs draws them");
  if (std::any_of(scene.series.begin(), scene.series.end(), [](const SceneSeries& s) {
        return std::any_of(s.points.begin(), s.points.end(),
                           [](const ScenePoint& p) { return p.off_scale(); });
      }))
    lines.push_back(
        "v ^ < > a point beyond the axes, on the frame's edge: its label has its value");
  if (!unplaced.empty())
    lines.push_back("no room on the plot for the label of: " + Join(unplaced, ", "));
  for (const SceneSeries& s : scene.series)
    lines.push_back(s.label + " = " + s.name + ": " + s.placement.verdict);
  for (const std::string& warning : scene.warnings) lines.push_back("warning: " + warning);
  if (!scene.left_out.empty()) lines.push_back(LeftOutLine(scene.left_out, static_cast<size_t>(w)));
  for (const std::string& line : lines) out += WrapProse(line, static_cast<size_t>(w)) + "\n";
  return out;
}

}  // namespace rprof
