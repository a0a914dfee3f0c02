// Where the labels of a picture go so that none covers another, a fixed mark (a ceiling's
// label, a point) or leaves the frame: a greedy placer over candidate boxes, in the picture's
// own units (SVG pixels, terminal cells). The text box of a label is estimated from its font size
// and its number of characters (TextBox), the same way in the placer and in the tests that
// check a drawn picture: the SVG draws its labels in a monospace font, where the estimate is the
// glyphs' real advance.
#ifndef RPROF_REPORT_LABEL_PLACEMENT_H_
#define RPROF_REPORT_LABEL_PLACEMENT_H_

#include <string_view>
#include <vector>

namespace rprof {

// An axis-aligned box: left, top, width, height (y grows downwards, as in SVG and on screens).
struct Box {
  double x = 0, y = 0, w = 0, h = 0;
  double right() const { return x + w; }
  double bottom() const { return y + h; }
};

// Whether the boxes share any area (touching edges do not overlap).
bool Overlaps(const Box& a, const Box& b);
// A straight line from (x0, y0) to (x1, y1): a roof, which no label may sit on.
struct Segment {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
// Whether the segment passes through the box (touching its edge does not count).
bool Crosses(const Segment& line, const Box& box);

// Whether `inner` lies wholly inside `outer`.
bool Inside(const Box& inner, const Box& outer);

// Characters of UTF-8 text as drawn: one per code point.
int DisplayChars(std::string_view text);

// How a monospace font's text fills a box, in em (font size) units: each character advances
// kCharWidthEm; the box starts kAscentEm above the baseline and is kLineEm tall.
constexpr double kCharWidthEm = 0.6;
constexpr double kAscentEm = 1.0;
constexpr double kLineEm = 1.25;

// The box of `text` drawn with its start at `x` and its baseline at `baseline`, in a font of
// `font_size` units.
Box TextBox(double x, double baseline, double font_size, std::string_view text);
// The baseline that puts the top of a text box at `top`.
double BaselineForTop(double top, double font_size);

// Candidate positions for a label of size w × h beside an anchor point (ax, ay): the eight
// directions around it at growing distances (`gap` apart), nearest first, right before left.
std::vector<Box> CandidatesAround(double ax, double ay, double w, double h, double gap, int rings);

// Places labels one after another: each takes the first of its candidates that lies inside the
// frame and overlaps nothing placed or reserved before it, nor lies on a reserved line.
class LabelPlacer {
 public:
  explicit LabelPlacer(const Box& frame) : frame_(frame) {}
  // A box no label may cover (a point's marker).
  void Reserve(const Box& box) { taken_.push_back(box); }
  // A line no label may lie on (a roof): kept `clearance` units from every label's box, for
  // the line's own width.
  void ReserveLine(const Segment& line, double clearance = 0) {
    lines_.push_back({line, clearance});
  }
  // The index of the candidate taken (and now reserved), or -1 when none is free.
  int Place(const std::vector<Box>& candidates);
  const Box& frame() const { return frame_; }

 private:
  struct Line {
    Segment segment;
    double clearance;
  };
  Box frame_;
  std::vector<Box> taken_;
  std::vector<Line> lines_;
};

}  // namespace rprof

#endif  // RPROF_REPORT_LABEL_PLACEMENT_H_
