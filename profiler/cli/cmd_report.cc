// rprof report: the chosen runs and their machine in one self-contained HTML file
// (report/html_report.h).
#include <iostream>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/options.h"
#include "cli/output_file.h"
#include "cli/plot_inputs.h"
#include "process/replace_file.h"
#include "report/html_report.h"
#include "report/roofline_plot.h"
#include "report/roofline_scene.h"
#include "report/text_table.h"
#include "roofline/stored_run_placement.h"

namespace rprof {

namespace {

bool EndsWith(const std::string& text, const std::string& end) {
  return text.size() > end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

bool ReportCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("report", "[RUN...|--last N|--kernel K|--tag K=V] [--compare A B] -o FILE.html",
                 "Writes one self-contained HTML file (no network, no other file; opens in any "
                 "browser, prints to PDF): the machine's ceilings, ladder, clocks and warnings; "
                 "the cache-aware roofline with every chosen run (hover a point for its summary, "
                 "click it for its metrics with their sources, trust notes and verdict, as "
                 "`rprof show` gives them); a table of the runs to sort and filter; an arrow "
                 "with the speed-up from each run tagged before-after=before[:NAME] to the one "
                 "tagged before-after=after[:NAME], and for --compare A B.",
                 CommandLine::Format::kNone);
  RunChoice choice;
  std::string output;
  std::vector<long long> compare;
  int threads = 1;
  AddRunChoiceOptions(&cl, &choice, false);
  cl.Add("output,o", po::value(&output), "write FILE.html");
  cl.Add("compare", po::value(&compare)->multitoken(),
         "A B: an arrow from run A to run B with B's speed-up (both join the report)");
  AddRoofOptions(&cl, &threads);
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  if (output.empty()) return Fail(err, ErrorKind::kUsage, "report: say where: -o FILE.html");
  if (!EndsWith(output, ".html") && !EndsWith(output, ".htm"))
    return Fail(err, ErrorKind::kUsage, "report: -o " + output + ": use a .html file name");
  if (!compare.empty() && compare.size() != 2)
    return Fail(err, ErrorKind::kUsage,
                "report: --compare takes two run ids (before, after), got " +
                    std::to_string(compare.size()));
  if (threads < 1) return Fail(err, ErrorKind::kUsage, "--threads must be at least 1");
  if (!CheckOutputFile("report: -o", output, err)) return false;

  RunStore* opened = nullptr;
  HtmlReportInput input;
  StoredProfile profile;
  if (!LoadRunChoice(context, choice, "report", &opened, &input.runs, &profile, err)) return false;
  RunStore& store = *opened;
  const RunRecord* compared[2] = {nullptr, nullptr};
  for (size_t i = 0; i < compare.size(); ++i) {
    for (const RunRecord& r : input.runs)
      if (r.id == compare[i]) compared[i] = &r;
    if (compared[i]) continue;
    RunRecord run;
    if (!store.Load(compare[i], &run, err)) return false;
    input.runs.push_back(std::move(run));
  }
  if (!HasCeilingsFor(profile.profile, threads))
    return Fail(err, ErrorKind::kUsage,
                "report: machine profile " + std::to_string(profile.id) + " has no ceilings for " +
                    std::to_string(threads) +
                    " thread(s); measure them with `rprof machine measure --threads " +
                    std::to_string(threads) + "`");
  input.arrows = BeforeAfterArrows(input.runs);
  if (!compare.empty()) {
    for (size_t i = 0; i < 2; ++i)
      for (const RunRecord& r : input.runs)
        if (r.id == compare[i]) compared[i] = &r;
    SceneArrow arrow;
    Error why;
    if (!SpeedupArrow(*compared[0], *compared[1], &arrow, &why))
      return Fail(err, ErrorKind::kUsage, "report: --compare: " + why.message);
    input.arrows.push_back(arrow);
  }
  for (const RunRecord& r : input.runs) input.placements.push_back(PlaceStoredRun(&store, r));
  RooflineScene scene =
      BuildRooflineScene(profile.profile, input.runs, threads, cl.Has("all-roofs"));
  for (const LeftOut& l : scene.left_out)
    std::cerr << "rprof: note: report: left out of the roofline " << EscapeForTerminal(l.name)
              << ": " << EscapeForTerminal(l.reason) << "\n";
  for (const std::string& w : scene.warnings)
    std::cerr << "rprof: warning: report: " << EscapeForTerminal(w) << "\n";
  input.title = RooflineTitle(profile, threads);
  input.profile = &profile;
  input.scene = &scene;
  input.generated_at = UtcNow();

  // Whole or not at all: a kill or a full disk leaves the previous report as it was.
  Error why;
  if (!ReplaceFile(output, HtmlReport(input), &why))
    return Fail(err, ErrorKind::kEnvironment,
                "report: -o " + output + ": cannot write: " + why.message +
                    "; the file is as it was before");
  std::cout << "wrote " << output << "\n";
  return true;
}

}  // namespace rprof
