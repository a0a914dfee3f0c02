// The roofline drawn in text, for a terminal: a frame of `width` × `height` characters with the
// roofs, a character per point (its level: 1 2 3 D measured, a b c d from the model; a point
// beyond the axes on the frame's edge, v ^ < >, labelled with its value), labels placed inside
// the frame by report/label_placement.h without covering or touching each other, a point or a
// roof's label (a label with no free place is named under the frame instead); under it a legend,
// one line per run (its verdict) and the runs left out, wrapped to the width. Written here rather
// than by gnuplot's "dumb" terminal, whose labels overwrite the frame and whose grid hides the
// points.
#ifndef RPROF_REPORT_ROOFLINE_TERMINAL_H_
#define RPROF_REPORT_ROOFLINE_TERMINAL_H_

#include <cstddef>
#include <string>

#include "report/roofline_scene.h"

namespace rprof {

// The smallest picture that still has room for its axes and a few decades.
constexpr size_t kMinPlotWidth = 40;
constexpr size_t kMinPlotHeight = 12;

// The text: no line wider than `width` columns; the frame `height` rows tall (both at least the
// minimums above).
std::string RooflineText(const RooflineScene& scene, const std::string& title, size_t width,
                         size_t height);

// The glyph of a point: the level's ("1", "2", "3", "D") measured; "a", "b", "c", "d" model.
char PointGlyph(const std::string& level, bool measured);
// The glyph of a point beyond the axes (ScenePoint::beyond_x, beyond_y), drawn on the frame's
// inner edge: where it lies, "v" below, "^" above, "<" left, ">" right (below or above first).
char EdgeGlyph(const ScenePoint& point);

}  // namespace rprof

#endif  // RPROF_REPORT_ROOFLINE_TERMINAL_H_
