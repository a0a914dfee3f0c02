#include "report/roofline_plot.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/text.h"
#include "functions/hot_lines.h"

namespace rprof {

namespace {

std::string Num(double v) { return Format("%.6g", v); }

std::string Short(double v) { return Format("%.3g", v); }

// A gnuplot string literal (terminals are set `noenhanced`, so only quotes and backslashes
// need escaping).
std::string Quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

struct Point {
  double ai, gflops;
};

}  // namespace

namespace {

// The whole run (region "") or one of its marker regions.
bool Plottable(const RunRecord& run, Source s, const std::string& region = "") {
  const Metric* ai = FindMetric(run.metrics, "ai_dram", s, region);
  const Metric* gf = FindMetric(run.metrics, "gflops", s, region);
  return ai && gf && ai->value && gf->value && *ai->value > 0 && *gf->value > 0;
}

// "" (the whole run) then every marker region, by name.
std::vector<std::string> Parts(const RunRecord& run) {
  std::set<std::string> regions;
  for (const Metric& m : run.metrics)
    if (!m.region.empty() && !IsLineRegion(m.region)) regions.insert(m.region);  // no point
  std::vector<std::string> parts = {""};
  parts.insert(parts.end(), regions.begin(), regions.end());
  return parts;
}

}  // namespace

bool HasCeilingsFor(const MachineProfile& profile, int threads) {
  for (const Ceiling& c : profile.ceilings)
    if (c.threads == threads) return true;
  return false;
}

int PlottableRuns(const std::vector<RunRecord>& runs) {
  int count = 0;
  for (const RunRecord& run : runs) {
    bool any = false;
    for (const std::string& part : Parts(run))
      for (Source s : CountingSources()) any = any || Plottable(run, s, part);
    count += any ? 1 : 0;
  }
  return count;
}

std::string TerminalForFile(const std::string& path) {
  auto ends = [&](const char* ext) {
    std::string e = ext;
    return path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".svg")) return "svg size 1000,650 dynamic noenhanced font 'sans,11'";
  if (ends(".png")) return "pngcairo size 1200,800 noenhanced font 'sans,11'";
  if (ends(".pdf")) return "pdfcairo size 10in,6.5in noenhanced font 'sans,10'";
  return "";
}

std::string RooflineGnuplotScript(const MachineProfile& profile, const std::vector<RunRecord>& runs,
                                  const PlotOptions& options) {
  // Compute roofs: the best pattern per (precision, isa); bandwidth roofs: best per level, in
  // compulsory bytes (the model's points) and, as placement holds measured bytes, in actual
  // traffic (sim's and pmu's points) where that roof is higher.
  std::map<std::string, const Ceiling*> compute, bandwidth, traffic;
  for (const Ceiling& c : profile.ceilings) {
    // As BandwidthRoof: no copy_nt, and the widest ISA's bandwidth ceilings only.
    if (c.threads != options.threads || c.pattern == "copy_nt" || IsScalarBandwidthCeiling(c))
      continue;
    std::string key = c.kind == "compute" ? c.precision + " " + c.isa : c.level;
    auto& slot = c.kind == "compute" ? compute[key] : bandwidth[key];
    if (!slot || c.value > slot->value) slot = &c;
    if (c.kind != "bandwidth") continue;
    auto& t = traffic[key];
    if (!t ||
        CeilingValue(c, ByteConvention::kTraffic) > CeilingValue(*t, ByteConvention::kTraffic))
      t = &c;
  }
  double peak = 0, top_bw = 0, low_bw = 1e300;
  for (const auto& [k, c] : compute) peak = std::max(peak, c->value);
  for (const auto& [k, c] : bandwidth) {
    top_bw = std::max(top_bw, c->value);
    low_bw = std::min(low_bw, c->value);
  }

  // Run points: per source with both AI (DRAM bytes: the classic roofline) and a rate.
  struct RunPoints {
    std::string label;
    std::vector<std::pair<std::string, Point>> by_source;  // measured first, model last
  };
  std::vector<RunPoints> points;
  std::vector<std::string> skipped;
  for (const RunRecord& run : runs) {
    // The whole run, then each marker region as a point of its own.
    for (const std::string& part : Parts(run)) {
      RunPoints rp;
      rp.label = "#";
      rp.label += std::to_string(run.id) + " " + run.target;
      if (!part.empty()) rp.label += " region " + part;
      for (Source s : CountingSources()) {
        if (!Plottable(run, s, part)) continue;
        rp.by_source.push_back({std::string(SourceName(s)),
                                {*FindMetric(run.metrics, "ai_dram", s, part)->value,
                                 *FindMetric(run.metrics, "gflops", s, part)->value}});
      }
      if (rp.by_source.empty())
        skipped.push_back(rp.label);
      else
        points.push_back(std::move(rp));
    }
  }

  double xmin = 1.0 / 64, xmax = 64, ymin = 1e300, ymax = peak > 0 ? peak * 2 : 100;
  for (const auto& rp : points)
    for (const auto& [s, p] : rp.by_source) {
      xmin = std::min(xmin, p.ai / 2);
      xmax = std::max(xmax, p.ai * 2);
      ymin = std::min(ymin, p.gflops / 2);
      ymax = std::max(ymax, p.gflops * 2);
    }
  if (low_bw < 1e300) ymin = std::min(ymin, low_bw * xmin);
  if (ymin >= 1e300) ymin = 0.1;

  std::string s =
      "# rprof roofline: gnuplot script, data inline; edit freely and run `gnuplot FILE`\n";
  for (const auto& label : skipped) s += "# left out (no FLOPs or no bytes): " + label + "\n";
  s += "set terminal " + options.terminal + "\n";
  if (!options.output.empty()) s += "set output " + Quote(options.output) + "\n";
  s += "set title " + Quote(options.title) + "\n";
  s += "set logscale xy\nset grid xtics ytics mxtics mytics lc rgb '#dddddd'\n";
  s += "set xlabel 'arithmetic intensity (FLOP/byte, DRAM bytes)'\n";
  s += "set ylabel 'performance (GFLOP/s)'\n";
  s += "set xrange [" + Num(xmin) + ":" + Num(xmax) + "]\nset yrange [" + Num(ymin) + ":" +
       Num(ymax) + "]\nset key off\nset clip two\n";

  // Ceilings as line segments, each labelled where it ends.
  s += "$roofs << EOD\n";
  std::string labels;
  for (const auto& [level, c] : bandwidth) {
    double x_end = peak > 0 ? peak / c->value : xmax;  // meets the highest compute roof
    s += Num(xmin) + " " + Num(c->value * xmin) + "\n" + Num(x_end) + " " + Num(peak) + "\n\n";
    labels += "set label " + Quote(Upper(level) + " " + Short(c->value) + " GB/s") + " at " +
              Num(xmin * 1.15) + "," + Num(c->value * xmin * 1.35) + " left tc rgb '#1f5fa8'\n";
  }
  bool measured_points = false;
  for (const auto& rp : points)
    for (const auto& [source, p] : rp.by_source)
      measured_points |= IsMeasured(ParseSource(source).value_or(Source::kModel));
  for (const auto& [level, c] : traffic) {
    double gbs = CeilingValue(*c, ByteConvention::kTraffic);
    if (!measured_points || gbs <= bandwidth[level]->value * 1.02) continue;
    double x_end = peak > 0 ? peak / gbs : xmax;
    s += Num(xmin) + " " + Num(gbs * xmin) + "\n" + Num(x_end) + " " + Num(peak) + "\n\n";
    labels += "set label " + Quote(Upper(level) + " " + Short(gbs) + " GB/s traffic (sim, pmu)") +
              " at " + Num(xmin * 1.15) + "," + Num(gbs * xmin * 1.9) + " left tc rgb '#5f8fc8'\n";
  }
  // Roofs within 2 % of each other (fp32 SSE and fp64 AVX2 often are) share one line and label.
  std::vector<std::pair<double, std::string>> roofs;
  for (const auto& [key, c] : compute) {
    std::string name = key + " " + c->pattern;
    // A plain copy for the lambda: C++20 lets lambdas capture structured bindings, clang 14 not.
    double value = c->value;
    auto same = std::find_if(roofs.begin(), roofs.end(), [value](const auto& r) {
      return std::fabs(r.first - value) <= 0.02 * r.first;
    });
    if (same != roofs.end())
      same->second += ", " + name;
    else
      roofs.push_back({c->value, name});
  }
  for (const auto& [value, names] : roofs) {
    double x_start = top_bw > 0 ? value / top_bw : xmin;
    s += Num(x_start) + " " + Num(value) + "\n" + Num(xmax) + " " + Num(value) + "\n\n";
    labels += "set label " + Quote(names + " " + Short(value) + " GFLOP/s") + " at " +
              Num(xmax / 1.1) + "," + Num(value * 1.12) + " right tc rgb '#a83232'\n";
  }
  s += "EOD\n";

  // Runs: one line per point (x y label), and model→measured links.
  s += "$runs << EOD\n";
  std::string links;
  for (const auto& rp : points) {
    // Sources that land on the same spot (sim confirming the model) share one point and label.
    std::vector<std::pair<Point, std::string>> spots;
    for (const auto& [source, p] : rp.by_source) {
      const Point& point = p;  // a lambda may not capture a structured binding in clang 14
      auto same = std::find_if(spots.begin(), spots.end(), [&point](const auto& spot) {
        return std::fabs(spot.first.ai - point.ai) <= 0.01 * point.ai &&
               std::fabs(spot.first.gflops - point.gflops) <= 0.01 * point.gflops;
      });
      if (same != spots.end())
        same->second += ", " + source;
      else
        spots.push_back({p, source});
    }
    for (const auto& [p, sources] : spots)
      s += Num(p.ai) + " " + Num(p.gflops) + " " + Quote(rp.label + " (" + sources + ")") + "\n";
    if (rp.by_source.size() > 1) {
      const Point& measured = rp.by_source.front().second;
      const Point& model = rp.by_source.back().second;
      links += Num(model.ai) + " " + Num(model.gflops) + "\n" + Num(measured.ai) + " " +
               Num(measured.gflops) + "\n\n";
    }
  }
  s += "EOD\n$links << EOD\n" + links + "EOD\n";
  s += labels;
  s += "plot $roofs with lines lw 2 lc rgb '#555555'";
  if (!links.empty()) s += ", \\\n     $links with lines dt 2 lc rgb '#888888'";
  if (!points.empty())
    s += ", \\\n     $runs using 1:2 with points pt 7 ps 1.2 lc rgb '#2a9d3a', \\\n"
         "     $runs using 1:2:3 with labels left offset 0.8,0.4 font ',9'";
  s += "\n";
  return s;
}

}  // namespace rprof
