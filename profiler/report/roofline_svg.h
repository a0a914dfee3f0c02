// The roofline as an SVG document written here, not by gnuplot: label positions are decided by
// rprof's own placer (report/label_placement.h) in the picture's pixels, which gnuplot's labels
// (placed in graph coordinates, their extent unknown to the script) cannot be checked against;
// and the points carry their placement as data (class and data-* attributes, a <title> each),
// so the HTML report can show a run's details and tests can read what was drawn.
//
// Every <text> uses a monospace font and text-anchor start, so its box is TextBox(x, y,
// font-size, text) exactly as the placer computed it.
#ifndef RPROF_REPORT_ROOFLINE_SVG_H_
#define RPROF_REPORT_ROOFLINE_SVG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "report/roofline_scene.h"

namespace rprof {

// An arrow from one run's binding point to another's: a before/after pair.
struct SceneArrow {
  int64_t from_run = 0;
  int64_t to_run = 0;
  std::string label;  // "×1.8"
};

struct SvgOptions {
  std::string title;
  bool standalone = true;  // an XML prolog and xmlns: a file of its own; false inside HTML
  std::vector<SceneArrow> arrows;
  // A line under the plot per series (label, full name, verdict). The HTML report leaves them
  // out: its runs' table beside says the same, and the table then fits the first screen.
  bool series_lines = true;
};

// The document. Roofs and points inside a frame (<rect id="frame">), a legend beside it (marker
// per level, colour per precision, filled = measured, hollow = model, each roof), and under it
// one line per series (label, full name, verdict), the warnings and the runs left out with
// their reasons. Each series is a <g class="series"> with data-run, data-region,
// data-binding, data-binding-level, data-binding-source, data-percent-of-roof (as JSON writes
// numbers) and data-verdict; each point a <path class="point"> with data-level, data-source,
// data-ai, data-gflops, data-binding. A point beyond the axes (RooflineScene's rule) is a triangle
// on the frame's edge pointing where it lies, its path with data-edge ("below", "right",
// "below-left", ...) and its value in <text class="edge-label">. Labels on the plot: <text
// class="run-label">, <text class="roof-label">, <text class="edge-label"> and <text
// class="arrow-label">; one with no free place is named in a line under the plot instead.
std::string RooflineSvg(const RooflineScene& scene, const SvgOptions& options);

// Text safe inside XML (and HTML) text and attribute values: & < > " ' as entities, and what
// XML 1.0 forbids outright (control bytes but tab, newline and return; U+FFFE, U+FFFF; bytes of
// no well-formed UTF-8 character) written as the tables write it: \x1b, \xff, \ufffe.
std::string XmlEscape(const std::string& text);

}  // namespace rprof

#endif  // RPROF_REPORT_ROOFLINE_SVG_H_
