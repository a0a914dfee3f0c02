// What `rprof doctor` prints (report/doctor_report.h).
#include "report/doctor_report.h"

namespace rprof {

namespace {

// Indexed by CheckStatus, in its order.
constexpr const char* kCheckStatusNames[] = {"ok", "limited", "missing"};

}  // namespace

const char* CheckStatusName(CheckStatus status) {
  return kCheckStatusNames[static_cast<int>(status)];
}

Report ChecksReport(const std::vector<DoctorCheck>& checks, bool basic,
                    const std::string& verdict) {
  Report report;
  Table& text =
      report.AddTable({{"name", "check"}, {"status", "status"}, {"detail", "detail"}}, kInText);
  Table& table = report.AddTable(
      {{"name", "name"}, {"status", "status"}, {"detail", "detail"}, {"remedy", "remedy"}}, kInData,
      "checks");
  for (const DoctorCheck& c : checks) {
    table.AddRow({Cell::Text(c.name), Cell::Text(CheckStatusName(c.status)), Cell::Text(c.detail),
                  Cell::TextOrNull(c.remedy)});
    text.AddRow({Cell::Text(c.name), Cell::Text(CheckStatusName(c.status)), Cell::Text(c.detail)});
    if (!c.remedy.empty())
      text.AddRow({Cell::Text(""), Cell::Text(""), Cell::Text("fix: " + c.remedy)});
  }
  report.AddText("\n" + verdict + ".\n");
  report.AddField("basic_job", Cell::Bool(basic));
  report.AddField("verdict", Cell::Text(verdict));
  return report;
}

}  // namespace rprof
