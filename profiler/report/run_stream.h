// Many runs as one report: the runs of one command (every instance of a Google Benchmark
// binary) rendered one after another as one table text, one CSV with one header line, or one
// JSON array, as `rprof history` renders many. Each run is rendered as it ends (FormatRun), so a
// crash midway loses nothing that was rendered.
#ifndef RPROF_REPORT_RUN_STREAM_H_
#define RPROF_REPORT_RUN_STREAM_H_

#include <string>

#include "report/output_format.h"

namespace rprof {

class RunStream {
 public:
  explicit RunStream(OutputFormat format) : format_(format) {}

  // One run's report as FormatRun gives it in this stream's format.
  void Add(std::string one_run);

  // Whether no run was added.
  bool empty() const { return runs_ == 0; }

  // The whole report: the JSON array closed ("[]" when empty), the CSV under its one header.
  std::string Finish() const;

 private:
  OutputFormat format_;
  std::string text_;
  std::string csv_header_;  // the first run's first line
  int runs_ = 0;
};

}  // namespace rprof

#endif  // RPROF_REPORT_RUN_STREAM_H_
