// `rprof report`: one self-contained HTML file (no network, no other file: the roofline as
// inline SVG, a little JavaScript and CSS written for it, the data as JSON inside the page) that
// opens in any browser and prints to PDF: the machine (ceilings, ladder, clocks, warnings), the
// roofline with every selected run (hover a point for its summary, click it for its metrics
// with their sources, trust notes and verdict), a table of the runs that sorts and filters, and
// arrows from "before" to "after" runs with their speed-up.
#ifndef RPROF_REPORT_HTML_REPORT_H_
#define RPROF_REPORT_HTML_REPORT_H_

#include <string>
#include <vector>

#include "core/error.h"
#include "core/run.h"
#include "machine/machine_profile.h"
#include "report/roofline_scene.h"
#include "report/roofline_svg.h"
#include "roofline/placement.h"

namespace rprof {

struct HtmlReportInput {
  std::string title;
  const StoredProfile* profile = nullptr;  // the machine profile drawn
  const RooflineScene* scene = nullptr;    // built against *profile
  std::vector<SceneArrow> arrows;          // before → after
  std::vector<RunRecord> runs;             // every selected run
  // Each run's placement as `rprof show` makes it (PlaceStoredRun), in the order of `runs`: the
  // details a click shows are show's JSON of the run.
  std::vector<RunPlacement> placements;
  std::string generated_at;  // UTC, ISO 8601
};

// The document.
std::string HtmlReport(const HtmlReportInput& input);

// JSON made safe inside <script type="application/json">: every "<" written as \u003c, so no
// text in it (a run name holding "</script>") can end the element. JSON allows "<" only inside
// strings, where the escape means the same character.
std::string JsonForScriptElement(const std::string& json);

// The runs of `runs` to join by an arrow: for each tag before-after=before[:NAME], the newest
// run tagged before-after=after[:NAME] (the same NAME); the label is the speed-up in wall time
// (clock time_s of before / of after), "×1.8".
std::vector<SceneArrow> BeforeAfterArrows(const std::vector<RunRecord>& runs);

// The arrow from run `before` to run `after` (both in `runs`), labelled with the speed-up;
// false (with why in *err, kUsage) when either has no wall time.
[[nodiscard]] bool SpeedupArrow(const RunRecord& before, const RunRecord& after, SceneArrow* arrow,
                                Error* err);

}  // namespace rprof

#endif  // RPROF_REPORT_HTML_REPORT_H_
