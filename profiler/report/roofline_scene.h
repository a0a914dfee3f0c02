// What a roofline picture shows, decided once for every way of drawing it (SVG, terminal, the
// HTML report): the roofs of one thread count, and every run as placement (roofline/placement.h)
// placed it: a point at the intensity of every level it has bytes for, the binding one marked,
// at the rate placement held against the roof. Runs that cannot be drawn are listed with the
// reason. Nothing here re-decides a binding level or a percentage: they are placement's.
#ifndef RPROF_REPORT_ROOFLINE_SCENE_H_
#define RPROF_REPORT_ROOFLINE_SCENE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/run.h"
#include "machine/machine_profile.h"
#include "roofline/placement.h"

namespace rprof {

struct SceneRoof {
  bool compute = false;
  std::string precision;  // compute: "fp64", "fp32"
  std::string isa;        // compute: "avx2", ...
  // compute: the precision's best roof at these threads, the one placement holds runs against;
  // the others are the roofs of narrower vector code.
  bool best = false;
  std::string level;  // bandwidth: "l1", "l2", "l3", "dram"
  // bandwidth: in actual traffic (the convention of sim's and pmu's bytes), drawn where it is
  // above the compulsory-bytes roof (model's bytes).
  bool traffic = false;
  std::string ceiling;  // the ceiling's name, "dram_triad"
  double value = 0;     // GFLOP/s or GB/s
  std::string label;    // "fp64 avx2 fma 55.5 GFLOP/s", "DRAM 25 GB/s"
};

struct ScenePoint {
  std::string level;
  Source source = Source::kModel;
  double ai = 0;      // FLOP/byte at this level, this source's FLOPs and bytes
  double gflops = 0;  // the rate placement held against the roofs (Placement::achieved)
  double attainable = 0;
  bool binding = false;  // Placement::binding_level and binding_source
  // Where the point lies beyond the axes (the rule: RooflineScene's axes): -1 left of (below)
  // the frame, +1 right of (above) it, 0 within. A point beyond on either axis is not placed in
  // the frame but drawn as an edge marker: at the frame's edge, pointing outwards.
  int beyond_x = 0, beyond_y = 0;
  // An edge marker's label, with the value that put it there: "#9 tiny: 7e-07 GFLOP/s",
  // "#8 gemm: DRAM AI 1.6e+05". One per series and direction when the rate is beyond (every
  // point of a series has its rate), one per point when its intensity is; "" on the others.
  std::string edge_label;
  bool off_scale() const { return beyond_x != 0 || beyond_y != 0; }
};

// One run, or one marker region of a run.
struct SceneSeries {
  int64_t run_id = 0;
  std::string region;  // "" for the whole run
  std::string target;
  std::string name;  // in full: "#4 matmul-ikj n=64", "… region triad"
  // Short, for the picture, and what tells the series apart: the program's base name (never
  // its folders), the parameter that varies in a sweep, the region: "#4 matmul-ikj",
  // "triad n=512", "#7 solver assemble"; the run's id where the rest would read alike.
  std::string label;
  std::string precision;  // placement's: "fp64", "fp32", "mixed", ""
  int threads = 1;        // the thread count of the roofs the run was placed against
  Placement placement;
  std::vector<ScenePoint> points;  // every level and source placement has, binding one marked
};

struct LeftOut {
  int64_t run_id = 0;
  std::string name;
  std::string reason;
};

struct RooflineScene {
  int threads = 1;
  std::vector<SceneRoof> roofs;  // compute roofs, then bandwidth roofs l1 → dram
  std::vector<SceneSeries> series;
  std::vector<LeftOut> left_out;
  // Runs placed against the roofs of another thread count than the ones drawn.
  std::vector<std::string> warnings;
  // The axes, log scale. Each covers the roofs' useful region (x: 1/32 to 4x the ridge of the
  // lowest bandwidth roof, at least 32; y: where the lowest bandwidth roof enters the frame to
  // 3x the highest compute roof) and the bulk of the points, each point a factor 3 inside. The
  // bulk, per axis: the points split into clusters wherever two neighbours are more than
  // kFarDecades apart; the cluster of most points (the nearest to the roofs' region on a tie)
  // joins the region, then every cluster within kFarDecades of what the axis covers so far.
  // A point of any other cluster is beyond (ScenePoint::beyond_x, beyond_y): one function's
  // 1e-07 GFLOP/s no longer stretches the y axis over 7 decades and squashes every other point.
  double xmin = 1.0 / 64, xmax = 64, ymin = 0.1, ymax = 100;
  double top_compute = 0;  // the highest compute roof drawn: where bandwidth roofs end
  // Roofs of the profile not drawn because none of the runs is held against them (another
  // precision, another ISA, the other byte convention): `--all-roofs` draws them.
  int hidden_roofs = 0;
};

// How far (decades, log10) a cluster of points may lie beyond the rest of an axis and still
// widen it (RooflineScene's axes).
constexpr double kFarDecades = 2;

// Every run (and marker region) of `runs` against `profile`, the roofs of `threads` threads.
// Each run is placed by RunShapeOf, PlaceRun and PlaceRegion, as `rprof show` places it.
// The roofs: with `all_roofs`, every one; else only those that matter to the runs drawn: the
// best compute roof of each of their precisions and the roof of their own ISA (placement's
// isa_roof_ceiling), every memory level once in compulsory bytes, and in actual traffic at the
// levels where measured (sim, pmu) bytes are drawn. A student reads 5 lines, not 13.
RooflineScene BuildRooflineScene(const MachineProfile& profile, const std::vector<RunRecord>& runs,
                                 int threads, bool all_roofs = false);

// "#12": how pictures name a run.
std::string RunRef(int64_t run_id);

// What a picture left out, in one line of at most `max_chars` characters: "left out (9; the
// notes say why): #1 copy n=1000, #3 dot n=1000, +7 more". A list of one line per part took
// three quarters of a PNG's height; the notes on standard error name each with its reason.
std::string LeftOutLine(const std::vector<LeftOut>& left_out, size_t max_chars);

// `text` cut to `max_chars` characters, the last one "…" when cut.
std::string ShortenLabel(const std::string& text, int max_chars);

}  // namespace rprof

#endif  // RPROF_REPORT_ROOFLINE_SCENE_H_
