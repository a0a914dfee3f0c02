// The roofline as gnuplot draws it: a self-contained gnuplot script (data inline) with every
// ceiling of a machine profile labelled and every run a labelled point per source at its DRAM
// intensity, its model point joined to its measured point; each marker region of a run a point
// of its own. `rprof plot --gnuplot FILE` writes it for users to restyle, and it renders PNG and
// PDF where rsvg-convert is missing. rprof's own cache-aware picture, which the SVG, the terminal,
// PNG/PDF through rsvg-convert and the HTML report draw, is report/roofline_svg.h.
#ifndef RPROF_REPORT_ROOFLINE_PLOT_H_
#define RPROF_REPORT_ROOFLINE_PLOT_H_

#include <string>
#include <vector>

#include "core/run.h"
#include "machine/machine_profile.h"

namespace rprof {

struct PlotOptions {
  std::string terminal;  // gnuplot "set terminal" line body: "svg size 1000,650", "dumb 100 32"
  std::string output;    // file to write; "" for stdout
  std::string title;
  int threads = 1;  // which ceilings to draw
};

// True when the profile has ceilings for `threads` to draw.
bool HasCeilingsFor(const MachineProfile& profile, int threads);

// How many of the runs can be drawn: those with a FLOP rate and a DRAM intensity, per source,
// for the whole run or for one of its marker regions.
int PlottableRuns(const std::vector<RunRecord>& runs);

// The script: a point per run and per marker region (labelled "#ID TARGET region NAME"), per
// source. Runs and regions without FLOPs or bytes are left out (and listed in a comment).
std::string RooflineGnuplotScript(const MachineProfile& profile, const std::vector<RunRecord>& runs,
                                  const PlotOptions& options);

// The terminal line for an output file name by its extension (.svg, .png, .pdf); "" when the
// extension is not one gnuplot renders here.
std::string TerminalForFile(const std::string& path);

}  // namespace rprof

#endif  // RPROF_REPORT_ROOFLINE_PLOT_H_
