#include "cli/command.h"

namespace rprof {

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"run",
       "measure a kernel, plugin or program, store the run and place it on the roofline "
       "(the default: `rprof triad` = `rprof run triad`)",
       Needs::kWritableStore, RunCommand},
      {"machine",
       "measure this machine's roofline (ceilings, memory ladder), show or list profiles",
       Needs::kExistingStore,
       MachineCommand,
       {"measure", "show", "list"},
       {{"measure", Needs::kWritableStore}}},
      {"kernels", "list the kernels with their parameters and model formulas", Needs::kNothing,
       KernelsCommand},
      {"history", "list stored runs, newest first", Needs::kExistingStore, HistoryCommand},
      {"show", "show one stored run with every metric and its source", Needs::kExistingStore,
       ShowCommand},
      {"compare", "compare two runs metric by metric (--fail-if-slower PCT for CI)",
       Needs::kExistingStore, CompareCommand},
      {"plot", "draw runs on this machine's roofline (svg, png, pdf or the terminal)",
       Needs::kExistingStore, PlotCommand},
      {"report", "write one self-contained HTML report: machine, roofline, runs (report.html)",
       Needs::kExistingStore, ReportCommand},
      {"validate", "check every built-in kernel's FLOP model against valgrind's count (sim)",
       Needs::kNothing, ValidateCommand},
      {"query", "run read-only SQL on the database", Needs::kReadOnlyStore, QueryCommand},
      {"import", "store runs saved as JSON (recovery files, show or history --format json), once",
       Needs::kWritableStore, ImportCommand},
      {"job", "one MPI job from its ranks' runs: per rank, over the ranks, and its verdict",
       Needs::kExistingStore, JobCommand},
      {"merge", "store other databases' runs, profiles and calibrations here (a job's nodes), once",
       Needs::kWritableStore, MergeCommand},
      {"events", "list counter events (PAPI presets, perf, libpfm4) and whether each counts here",
       Needs::kNothing, EventsCommand},
      {"calibrate",
       "check the counters against kernels of known counts; store what to trust",
       Needs::kWritableStore,
       CalibrateCommand,
       {},
       {{"--show", Needs::kExistingStore}}},
      {"doctor", "what rprof can measure on this machine, why not the rest, and the remedies",
       Needs::kNothing, DoctorCommand},
  };
  return commands;
}

const Command* FindCommand(const std::string& name) {
  for (const Command& c : Commands())
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace rprof
