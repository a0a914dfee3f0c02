// The run JSON read back into a RunRecord: the inverse of FormatRun's JSON (README "Output
// fields"), for `rprof import` of a recovery file, of `rprof show N --format json` or of
// `rprof history --format json`. What the JSON derives (time statistics, repetitions, the live
// placement against the newest profile) is not read: the store derives it again.
#ifndef RPROF_REPORT_RUN_FROM_JSON_H_
#define RPROF_REPORT_RUN_FROM_JSON_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/json_reader.h"
#include "core/run.h"

namespace rprof {

// One run object. False with *err (kUsage) naming the key and what is wrong with it
// ("metrics.flops.model.unit: expected a string, found null"). The run's id is left 0: the
// database it goes into gives it one.
[[nodiscard]] bool RunFromJson(const JsonValue& json, RunRecord* run, Error* err);

// A document holding one run object, or an array of them; strict JSON (core/json_reader.h).
// False with *err (kUsage) saying why the text is not that.
[[nodiscard]] bool RunsFromJsonText(std::string_view text, std::vector<RunRecord>* runs,
                                    Error* err);

}  // namespace rprof

#endif  // RPROF_REPORT_RUN_FROM_JSON_H_
