#include "report/label_placement.h"

#include "core/utf8.h"

namespace rprof {

bool Overlaps(const Box& a, const Box& b) {
  return a.x < b.right() && b.x < a.right() && a.y < b.bottom() && b.y < a.bottom();
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
    if (!free) continue;
    taken_.push_back(c);
    return static_cast<int>(i);
  }
  return -1;
}

}  // namespace rprof
