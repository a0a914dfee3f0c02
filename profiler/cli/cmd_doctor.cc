// rprof doctor: one screen on what rprof can measure on this machine and why not the rest
// (the checks: pipeline/doctor_checks.h; the screen: report/doctor_report.h). Exits 0 when
// rprof can do its basic job here — wall time, the model, and FLOPs from sim or the PMU — else
// 3, naming what is missing. Nothing is created: not even the database.
#include <iostream>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/options.h"
#include "pipeline/doctor_checks.h"
#include "report/doctor_report.h"
#include "report/render.h"

namespace rprof {

bool DoctorCommand(CommandContext& context, const std::vector<std::string>& args, Error* err) {
  CommandLine cl("doctor", "",
                 "Shows what rprof can measure on this machine and why not the rest: "
                 "perf_event_paranoid, the hardware PMU (virtual machine, container), the core "
                 "PMU libpfm4 finds, hybrid cores, uncore, rdpmc, PAPI, software events, metric "
                 "groups, sim (valgrind + Zydis), gnuplot, the database and this machine's "
                 "profile; each ok, limited or missing, with the remedy. Creates nothing. Exit "
                 "status 0 when rprof can do its basic job here (wall time, the model, and "
                 "FLOPs from sim or the PMU), else 3.");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;

  // The database read-only, and only when the file is there: doctor creates nothing.
  DoctorFindings found =
      RunDoctorChecks(context.database_path(), [&context](bool* exists, Error* open_err) {
        return context.StoreIfExists(exists, open_err);
      });
  std::cout << Render(ChecksReport(found.checks, found.basic, found.verdict), cl.format(),
                      cl.text_width());
  // The verdict without its "rprof ": the error line already starts with it.
  if (!found.basic)
    return Fail(err, ErrorKind::kEnvironment,
                "doctor: " + found.verdict.substr(6) + "; " + found.remedy);
  return true;
}

}  // namespace rprof
