#include "report/run_stream.h"

namespace rprof {

void RunStream::Add(std::string one_run) {
  switch (format_) {
    case OutputFormat::kJson:
      while (!one_run.empty() && one_run.back() == '\n') one_run.pop_back();
      text_ += (runs_ == 0 ? "[" : ",\n") + one_run;
      break;
    case OutputFormat::kCsv: {
      // Every run's CSV has the same columns: the header once, above the first run's rows.
      std::string first_line = one_run.substr(0, one_run.find('\n') + 1);
      if (runs_ == 0)
        csv_header_ = first_line;
      else if (first_line == csv_header_)
        one_run.erase(0, first_line.size());
      text_ += one_run;
      break;
    }
    default:
      text_ += one_run;
  }
  ++runs_;
}

std::string RunStream::Finish() const {
  if (format_ == OutputFormat::kJson) return runs_ == 0 ? "[]\n" : text_ + "]\n";
  return text_;
}

}  // namespace rprof
