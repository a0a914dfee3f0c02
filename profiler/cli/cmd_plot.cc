// rprof plot: runs on their machine's roofline: an SVG or the terminal drawn by rprof itself
// (report/roofline_svg.h, report/roofline_terminal.h: labels placed so none covers another),
// PNG and PDF from that SVG by rsvg-convert (else by gnuplot), or the gnuplot script itself.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/options.h"
#include "cli/output_file.h"
#include "cli/plot_inputs.h"
#include "machine/current_machine.h"
#include "process/replace_file.h"
#include "process/scratch_dir.h"
#include "report/roofline_plot.h"
#include "report/roofline_scene.h"
#include "report/roofline_svg.h"
#include "report/roofline_terminal.h"
#include "report/terminal_size.h"
#include "report/terminal_width.h"
#include "report/text_table.h"
#include "store/profile_store.h"
#include "targets/target_path.h"

extern char** environ;

namespace rprof {

namespace {

// Runs `argv` (argv[0] found on PATH) to its end; false when it cannot start or fails.
bool RunTool(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Runs gnuplot on the script file; kEnvironment when gnuplot is missing or fails.
bool RunGnuplot(const std::string& script_path, Error* err) {
  if (!OnPath("gnuplot"))
    return Fail(err, ErrorKind::kEnvironment,
                "gnuplot not found: install the Debian package gnuplot-nox "
                "(apt-get install gnuplot-nox), or librsvg2-bin for rprof's own picture, or "
                "write the script with --gnuplot FILE");
  if (!RunTool({"gnuplot", script_path}))
    return Fail(err, ErrorKind::kEnvironment,
                "gnuplot failed on the roofline script (its message is above); --gnuplot FILE "
                "writes the script to look at");
  return true;
}

// `path` could not be written (process/replace_file.h): kEnvironment, saying so and that the
// file is left as it was.
bool NotWritten(const std::string& path, const Error& why, Error* err) {
  return Fail(err, ErrorKind::kEnvironment,
              path + ": cannot write: " + why.message + "; the file is as it was before");
}

// Renames a picture written whole beside `output` (ReplacementPath) over it.
bool CommitPicture(const std::string& temporary, const std::string& output, Error* err) {
  Error why;
  if (!CommitReplacement(temporary, output, &why)) return NotWritten(output, why, err);
  return true;
}

// The SVG rendered to PNG or PDF by librsvg's rsvg-convert: the same picture, the same labels.
// Written beside `output` and renamed over it once whole, as WriteText writes.
bool RenderSvg(const std::string& svg_path, const std::string& output, Error* err) {
  bool pdf = output.size() > 4 && output.compare(output.size() - 4, 4, ".pdf") == 0;
  const std::string temporary = ReplacementPath(output);
  if (!RunTool({"rsvg-convert", "-f", pdf ? "pdf" : "png", "-o", temporary, svg_path})) {
    DropReplacement(temporary);
    return Fail(err, ErrorKind::kEnvironment,
                "rsvg-convert failed on the roofline SVG (its message is above); -o FILE.svg "
                "writes the SVG itself");
  }
  return CommitPicture(temporary, output, err);
}

}  // namespace

namespace {

// What the picture leaves out, and runs drawn against roofs not their own, on stderr too: a
// plot written to a file says nothing on the terminal otherwise.
void PrintNotes(const RooflineScene& scene) {
  for (const LeftOut& l : scene.left_out)
    std::cerr << "rprof: note: plot: left out " << EscapeForTerminal(l.name) << ": "
              << EscapeForTerminal(l.reason) << "\n";
  for (const std::string& w : scene.warnings)
    std::cerr << "rprof: warning: plot: " << EscapeForTerminal(w) << "\n";
}

// Whole or not at all (process/replace_file.h): a kill or a full disk leaves the previous
// picture as it was.
bool WriteText(const std::string& path, const std::string& text, Error* err) {
  Error why;
  if (!ReplaceFile(path, text, &why)) return NotWritten(path, why, err);
  return true;
}

}  // namespace

bool PlotCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("plot", "[RUN...|--last N|--kernel K|--tag K=V] -o FILE.svg|--terminal",
                 "Draws runs on the cache-aware roofline of their machine: log-log, the compute "
                 "roof of each precision and ISA and the bandwidth roof of each memory level; "
                 "each run a point at the intensity of every level it has bytes for (marker per "
                 "level, colour per precision, filled measured, hollow model), its binding level "
                 "larger and labelled, as `rprof show` places it. Runs that cannot be drawn are "
                 "listed under the plot and on stderr. SVG and the terminal are drawn by rprof, "
                 "PNG and PDF by rsvg-convert from the same SVG (gnuplot's DRAM-only picture where "
                 "it is missing; --gnuplot FILE writes gnuplot's script).",
                 CommandLine::Format::kNone);
  RunChoice choice;
  std::string output, script, size;
  int threads = 1;
  AddRunChoiceOptions(&cl, &choice, true);
  cl.Add("output,o", po::value(&output), "write FILE.svg, FILE.png or FILE.pdf");
  cl.Add("terminal", "draw the roofline in the terminal");
  cl.Add("size", po::value(&size),
         "--terminal: WIDTHxHEIGHT in characters (default: the terminal's, $COLUMNS and $LINES)");
  cl.Add("gnuplot", po::value(&script), "write the gnuplot script (data inline) to FILE");
  AddRoofOptions(&cl, &threads);
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  bool terminal = cl.Has("terminal");
  if (output.empty() && !terminal && script.empty())
    return Fail(err, ErrorKind::kUsage,
                "plot: say where: -o FILE.svg|.png|.pdf, --terminal, or --gnuplot FILE");
  if (!output.empty() && terminal)
    return Fail(err, ErrorKind::kUsage, "plot: -o FILE or --terminal, not both");
  std::string term = TerminalForFile(output);
  if (!output.empty() && term.empty())
    return Fail(err, ErrorKind::kUsage,
                "plot: -o " + output + ": use a .svg, .png or .pdf file name");
  bool svg = !output.empty() && term.rfind("svg", 0) == 0;
  if (term.empty()) term = TerminalForFile("roofline.svg");
  if (threads < 1) return Fail(err, ErrorKind::kUsage, "--threads must be at least 1");
  size_t width = TerminalWidth(STDOUT_FILENO), height = 0;
  if (width == kNoWidthLimit) width = 120;
  if (!size.empty()) {
    if (!terminal) return Fail(err, ErrorKind::kUsage, "plot: --size is for --terminal");
    if (!ParseSize(size, &width, &height) || width < kMinPlotWidth || height < kMinPlotHeight)
      return Fail(err, ErrorKind::kUsage,
                  "plot: --size " + size + ": expected WIDTHxHEIGHT in characters, at least " +
                      std::to_string(kMinPlotWidth) + "x" + std::to_string(kMinPlotHeight) +
                      " (e.g. 80x24)");
  } else {
    // The frame takes the terminal's rows less the title, axes and a few lines of notes.
    height = std::clamp<size_t>(TerminalRows(STDOUT_FILENO), kMinPlotHeight + 8, 48) - 8;
  }
  // gnuplot's own message for a file it cannot write names neither the option nor the way out.
  if (!output.empty() && !CheckOutputFile("plot: -o", output, err)) return false;
  if (!script.empty() && !CheckOutputFile("plot: --gnuplot", script, err)) return false;

  RunStore* store = nullptr;
  std::vector<RunRecord> runs;
  StoredProfile profile;
  if (!LoadRunChoice(context, choice, "plot", &store, &runs, &profile, err)) return false;
  if (!HasCeilingsFor(profile.profile, threads))
    return Fail(err, ErrorKind::kUsage,
                "plot: machine profile " + std::to_string(profile.id) + " has no ceilings for " +
                    std::to_string(threads) +
                    " thread(s); measure them with `rprof machine "
                    "measure --threads " +
                    std::to_string(threads) + "`");
  RooflineScene scene = BuildRooflineScene(profile.profile, runs, threads, cl.Has("all-roofs"));
  std::string title = RooflineTitle(profile, threads);
  if (scene.series.empty()) {
    std::string why;
    for (const LeftOut& l : scene.left_out) why += "\n  " + l.name + ": " + l.reason;
    return Fail(err, ErrorKind::kUsage,
                "plot: none of the chosen runs can be drawn: each needs FLOPs, bytes and a rate "
                "(programs need --flops/--bytes, regions declared with rprof_region_declare, or "
                "--counters sim):" +
                    why);
  }
  PrintNotes(scene);

  if (terminal) {
    std::cout << RooflineText(scene, title, width, height);
    if (script.empty()) return true;
  }
  if (svg) {
    SvgOptions options;
    options.title = title;
    if (!WriteText(output, RooflineSvg(scene, options), err)) return false;
    std::cout << "wrote " << output << "\n";
    if (script.empty()) return true;
  }

  // PNG and PDF: the SVG rendered by rsvg-convert where it is installed, else gnuplot's own
  // picture (report/roofline_plot.h: DRAM intensity only), said; the script is gnuplot's.
  bool rendered = !output.empty() && !svg && OnPath("rsvg-convert");
  if (rendered) {
    std::string temp;
    if (!ScratchPath("plot.svg", &temp, err)) return false;
    SvgOptions options;
    options.title = title;
    if (!WriteText(temp, RooflineSvg(scene, options), err)) return false;
    bool ok = RenderSvg(temp, output, err);
    unlink(temp.c_str());
    if (!ok) return false;
    std::cout << "wrote " << output << "\n";
  }
  PlotOptions plot;
  plot.terminal = term;
  plot.output = output;
  plot.threads = threads;
  plot.title = title;
  std::string text = RooflineGnuplotScript(profile.profile, runs, plot);
  if (!script.empty() && !WriteText(script, text, err)) return false;
  if (output.empty() || svg || rendered) return true;
  std::cerr << "rprof: note: plot: rsvg-convert not found (Debian package librsvg2-bin): " << output
            << " is gnuplot's picture, a point per source at DRAM intensity; "
            << "-o FILE.svg, or librsvg2-bin, gives the cache-aware one\n";
  // gnuplot writes the picture beside it, renamed over it once gnuplot is done.
  plot.output = ReplacementPath(output);
  std::string temp;
  if (!ScratchPath("plot.gp", &temp, err)) return false;
  if (!WriteText(temp, RooflineGnuplotScript(profile.profile, runs, plot), err)) return false;
  std::cout.flush();
  bool ok = RunGnuplot(temp, err);
  unlink(temp.c_str());
  if (!ok) {
    DropReplacement(plot.output);
    return false;
  }
  if (!CommitPicture(plot.output, output, err)) return false;
  std::cout << "wrote " << output << "\n";
  return true;
}

}  // namespace rprof
