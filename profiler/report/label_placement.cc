#include "report/label_placement.h"

#include <algorithm>

#include "core/utf8.h"

namespace rprof {

bool Overlaps(const Box& a, const Box& b) {
  return a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom();
}

bool Crosses(const Segment& line, const Box& box) {
  // Liang-Barsky: the part of the segment (t in [0, 1]) inside each slab of the box.
  double t0 = 0, t1 = 1;
  double dx = line.x1 - line.x0, dy = line.y1 - line.y0;
  auto clip = [&](double p, double q) {  // p t < q
    if (p == 0) return q > 0;            // parallel: inside the slab or not
    double t = q / p;
    if (p < 0)
      t0 = std::max(t0, t);
    else
      t1 = std::min(t1, t);
    return true;
  };
  if (!clip(-dx, line.x0 - box.x) || !clip(dx, box.right() - line.x0) ||
      !clip(-dy, line.y0 - box.y) || !clip(dy, box.bottom() - line.y0))
    return false;
  return t0 < t1;
}

bool Inside(const Box& inner, const Box& outer) {
  return inner.x >= outer.x && inner.y >= outer.y && inner.right() <= outer.right() &&
         inner.bottom() <= outer.bottom();
}

int DisplayChars(std::string_view text) {
  int count = 0;
  for (size_t at = 0; at < text.size(); ++count) at += NextUtf8Char(text.substr(at)).length;
  return count;
}

Box TextBox(double x, double baseline, double font_size, std::string_view text) {
  return {x, baseline - kAscentEm * font_size, DisplayChars(text) * kCharWidthEm * font_size,
          kLineEm * font_size};
}

double BaselineForTop(double top, double font_size) { return top + kAscentEm * font_size; }

std::vector<Box> CandidatesAround(double ax, double ay, double w, double h, double gap, int rings) {
  std::vector<Box> out;
  for (int ring = 1; ring <= rings; ++ring) {
    double d = gap * ring;
    // right, left, above-right, below-right, above, below, above-left, below-left: a label
    // reads best to the right of its point, at its height.
    out.push_back({ax + d, ay - h / 2, w, h});
    out.push_back({ax - d - w, ay - h / 2, w, h});
    out.push_back({ax + d / 2, ay - d - h, w, h});
    out.push_back({ax + d / 2, ay + d, w, h});
    out.push_back({ax - w / 2, ay - d - h, w, h});
    out.push_back({ax - w / 2, ay + d, w, h});
    out.push_back({ax - d / 2 - w, ay - d - h, w, h});
    out.push_back({ax - d / 2 - w, ay + d, w, h});
  }
  return out;
}

int LabelPlacer::Place(const std::vector<Box>& candidates) {
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Box& c = candidates[i];
    if (!Inside(c, frame_)) continue;
    bool free = true;
    for (const Box& t : taken_)
      if (Overlaps(c, t)) {
        free = false;
        break;
      }
    for (const Line& line : lines_) {
      if (!free) break;
      Box wider = {c.x - line.clearance, c.y - line.clearance, c.w + 2 * line.clearance,
                   c.h + 2 * line.clearance};
      free = !Crosses(line.segment, wider);
    }
    if (!free) continue;
    taken_.push_back(c);
    return static_cast<int>(i);
  }
  return -1;
}

}  // namespace rprof
