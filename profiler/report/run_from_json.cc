#include "report/run_from_json.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <utility>

#include "core/run_bounds.h"
#include "core/target_kind.h"
#include "functions/hot_functions.h"
#include "functions/hot_lines.h"

namespace rprof {

namespace {

using Type = JsonValue::Type;

// Whether a key must be there, or may be absent or null (written by an older rprof, or empty).
enum class Need { kRequired, kNullable };

// A key's place in the document, for messages: "metrics.flops.model.unit".
std::string Where(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

bool Wrong(const std::string& where, const char* expected, const JsonValue* found, Error* err) {
  return Fail(err, ErrorKind::kUsage,
              where + ": expected " + expected +
                  (found ? std::string(", found ") + JsonValue::TypeName(found->type())
                         : std::string(", but it is missing")));
}

// *out: the member `key` of object when it has `type`; nullptr when it is absent or null and
// `need` allows that. False with *err naming the key otherwise.
bool Member(const JsonValue& object, const std::string& path, std::string_view key, Type type,
            Need need, const JsonValue** out, Error* err) {
  const JsonValue* value = object.Find(key);
  *out = nullptr;
  if ((!value || value->is_null()) && need == Need::kNullable) return true;
  if (!value || value->type() != type)
    return Wrong(Where(path, key), JsonValue::TypeName(type), value, err);
  *out = value;
  return true;
}

// An array's item in messages: "trust[2]".
std::string Item(const std::string& where, size_t index) {
  return where + "[" + std::to_string(index) + "]";
}

// Calls read(item, index) on each item of `array` in order; false at the first false.
template <typename Read>
bool ForEachItem(const JsonValue& array, Read&& read) {
  for (size_t i = 0; i < array.items().size(); ++i)
    if (!read(array.items()[i], i)) return false;
  return true;
}

// ForEachItem over the array member `key` of object (see Member): none where it is absent or
// null and `need` allows that.
template <typename Read>
bool ReadArray(const JsonValue& object, const std::string& path, std::string_view key, Need need,
               Read&& read, Error* err) {
  const JsonValue* array = nullptr;
  if (!Member(object, path, key, Type::kArray, need, &array, err)) return false;
  return !array || ForEachItem(*array, read);
}

bool ReadString(const JsonValue& object, const std::string& path, std::string_view key, Need need,
                std::string* out, Error* err) {
  const JsonValue* value = nullptr;
  if (!Member(object, path, key, Type::kString, need, &value, err)) return false;
  *out = value ? value->string() : "";
  return true;
}

// A number written as an integer ("12", not "12.0" or "1.2e1") that fits an int64_t.
bool Integer(const JsonValue& value, int64_t* out) {
  const std::string& text = value.number_text();
  if (!value.is_number() || text.find_first_of(".eE") != std::string::npos) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool ReadInt(const JsonValue& object, const std::string& path, std::string_view key, Need need,
             std::optional<int64_t>* out, Error* err) {
  const JsonValue* value = nullptr;
  if (!Member(object, path, key, Type::kNumber, need, &value, err)) return false;
  out->reset();
  if (!value) return true;
  int64_t number = 0;
  if (!Integer(*value, &number)) return Wrong(Where(path, key), "an integer", value, err);
  *out = number;
  return true;
}

// An integer that must fit an int (exit codes, signals, cores).
bool ReadSmallInt(const JsonValue& object, const std::string& path, std::string_view key, Need need,
                  std::optional<int>* out, Error* err) {
  std::optional<int64_t> wide;
  if (!ReadInt(object, path, key, need, &wide, err)) return false;
  out->reset();
  if (!wide) return true;
  if (*wide < std::numeric_limits<int>::min() || *wide > std::numeric_limits<int>::max()) {
    return Fail(err, ErrorKind::kUsage,
                Where(path, key) + ": " + std::to_string(*wide) + " is out of range");
  }
  *out = static_cast<int>(*wide);
  return true;
}

bool ReadNumber(const JsonValue& object, const std::string& path, std::string_view key, Need need,
                std::optional<double>* out, Error* err) {
  const JsonValue* value = nullptr;
  if (!Member(object, path, key, Type::kNumber, need, &value, err)) return false;
  out->reset();
  if (value) *out = value->number();
  return true;
}

bool ReadStringArray(const JsonValue& object, const std::string& path, std::string_view key,
                     Need need, std::vector<std::string>* out, Error* err) {
  out->clear();
  auto read = [&](const JsonValue& item, size_t i) {
    if (!item.is_string()) return Wrong(Item(Where(path, key), i), "a string", &item, err);
    out->push_back(item.string());
    return true;
  };
  return ReadArray(object, path, key, need, read, err);
}

// "job": the run's rank in a parallel job; absent or null for a run of no job (and in the JSON
// of an rprof older than jobs).
bool ReadJob(const JsonValue& run, std::optional<JobRank>* out, Error* err) {
  const JsonValue* j = nullptr;
  out->reset();
  if (!Member(run, "", "job", Type::kObject, Need::kNullable, &j, err)) return false;
  if (!j) return true;
  JobRank job;
  std::optional<int> rank, size;
  if (!ReadString(*j, "job", "job_id", Need::kRequired, &job.job_id, err) ||
      !ReadSmallInt(*j, "job", "rank", Need::kRequired, &rank, err) ||
      !ReadSmallInt(*j, "job", "size", Need::kRequired, &size, err) ||
      !ReadSmallInt(*j, "job", "local_rank", Need::kNullable, &job.local_rank, err) ||
      !ReadSmallInt(*j, "job", "node", Need::kNullable, &job.node, err) ||
      !ReadString(*j, "job", "host", Need::kNullable, &job.host, err) ||
      !ReadString(*j, "job", "launcher", Need::kNullable, &job.launcher, err) ||
      // Absent from the JSON older rprofs wrote.
      !ReadString(*j, "job", "scheduler", Need::kNullable, &job.scheduler, err) ||
      !ReadString(*j, "job", "scheduler_job_id", Need::kNullable, &job.scheduler_job_id, err) ||
      !ReadString(*j, "job", "scheduler_step_id", Need::kNullable, &job.scheduler_step_id, err))
    return false;
  if (job.job_id.empty() || *rank < 0 || *size < 1 || *rank >= *size) {
    return Fail(err, ErrorKind::kUsage,
                "job: rank " + std::to_string(*rank) + " of " + std::to_string(*size) +
                    " in job '" + job.job_id + "' is not a rank (0 <= rank < size, a job id)");
  }
  job.rank = *rank;
  job.size = *size;
  *out = job;
  return true;
}

bool ReadMachine(const JsonValue& run, MachineRecord* machine, Error* err) {
  const JsonValue* m = nullptr;
  if (!Member(run, "", "machine", Type::kObject, Need::kRequired, &m, err)) return false;
  std::optional<int> cores;
  // caches and kernel: absent from the JSON older rprofs wrote (then stored as "").
  if (!ReadString(*m, "machine", "fingerprint", Need::kRequired, &machine->fingerprint, err) ||
      !ReadString(*m, "machine", "cpu_model", Need::kRequired, &machine->cpu_model, err) ||
      !ReadSmallInt(*m, "machine", "cores", Need::kRequired, &cores, err) ||
      !ReadString(*m, "machine", "hostname", Need::kRequired, &machine->hostname, err) ||
      !ReadString(*m, "machine", "caches", Need::kNullable, &machine->caches, err) ||
      !ReadString(*m, "machine", "kernel", Need::kNullable, &machine->kernel, err))
    return false;
  machine->cores = *cores;
  return true;
}

// Parameters as the store keeps them, values as text: numbers as written, strings as they are.
bool ReadParams(const JsonValue& run, KeyValues* params, Error* err) {
  const JsonValue* object = nullptr;
  if (!Member(run, "", "params", Type::kObject, Need::kRequired, &object, err)) return false;
  for (const auto& [key, value] : object->members()) {
    if (value.is_string())
      params->emplace_back(key, value.string());
    else if (value.is_number())
      params->emplace_back(key, value.number_text());
    else
      return Wrong(Where("params", key), "a string or a number", &value, err);
  }
  return true;
}

bool ReadTags(const JsonValue& run, KeyValues* tags, Error* err) {
  const JsonValue* object = nullptr;
  if (!Member(run, "", "tags", Type::kObject, Need::kRequired, &object, err)) return false;
  for (const auto& [key, value] : object->members()) {
    if (!value.is_string()) return Wrong(Where("tags", key), "a string", &value, err);
    tags->emplace_back(key, value.string());
  }
  return true;
}

// {NAME: {SOURCE: {"value", "unit", "note", "coverage", "spread_pct"}}} of one region.
bool ReadMetric(const std::string& where, const std::string& name, const JsonValue& by_source,
                const std::string& region, std::vector<Metric>* metrics, Error* err) {
  if (!by_source.is_object()) return Wrong(where, "an object of sources", &by_source, err);
  for (const auto& [source_name, fields] : by_source.members()) {
    std::string at = Where(where, source_name);
    std::optional<Source> source = ParseSource(source_name);
    if (!source) {
      return Fail(err, ErrorKind::kUsage,
                  at + ": no source " + source_name + " (clock, pmu, sim, model)");
    }
    if (!fields.is_object()) return Wrong(at, "an object", &fields, err);
    Metric m;
    m.name = name;
    m.region = region;
    m.source = *source;
    if (!fields.Find("value")) return Wrong(Where(at, "value"), "a number or null", nullptr, err);
    if (!ReadNumber(fields, at, "value", Need::kNullable, &m.value, err) ||
        !ReadString(fields, at, "unit", Need::kRequired, &m.unit, err) ||
        !ReadString(fields, at, "note", Need::kNullable, &m.note, err) ||
        !ReadNumber(fields, at, "coverage", Need::kNullable, &m.coverage, err) ||
        !ReadNumber(fields, at, "spread_pct", Need::kNullable, &m.spread_pct, err))
      return false;
    metrics->push_back(std::move(m));
  }
  return true;
}

bool ReadMetrics(const JsonValue& run, std::vector<Metric>* metrics, Error* err) {
  const JsonValue* whole = nullptr;
  if (!Member(run, "", "metrics", Type::kObject, Need::kRequired, &whole, err)) return false;
  for (const auto& [name, by_source] : whole->members())
    if (!ReadMetric(Where("metrics", name), name, by_source, "", metrics, err)) return false;
  const JsonValue* regions = nullptr;
  if (!Member(run, "", "regions", Type::kObject, Need::kNullable, &regions, err)) return false;
  if (!regions) return true;
  for (const auto& [region, members] : regions->members()) {
    std::string at = Where("regions", region);
    if (region.empty()) {
      return Fail(err, ErrorKind::kUsage, at + ": a region needs a name");
    }
    if (!members.is_object()) return Wrong(at, "an object", &members, err);
    for (const auto& [name, by_source] : members.members()) {
      // A region's placement sits among its metrics: an object with "placed", not sources.
      if (name == "placement" && by_source.is_object() && by_source.Find("placed")) continue;
      if (!ReadMetric(Where(at, name), name, by_source, region, metrics, err)) return false;
    }
  }
  return true;
}

// A hot line's metrics under its region (LineRegion): its "file" and "line" name it; its
// "last_line" and "bytes_per_flop" are written from its metrics (line_last, the bytes and FLOPs),
// so they come back with them.
bool ReadFunctionLine(const std::string& at, const std::string& function, const JsonValue& line,
                      std::vector<Metric>* metrics, Error* err) {
  if (!line.is_object()) return Wrong(at, "an object", &line, err);
  std::string file;
  std::optional<int64_t> number;
  if (!ReadString(line, at, "file", Need::kRequired, &file, err) ||
      !ReadInt(line, at, "line", Need::kRequired, &number, err))
    return false;
  if (*number < 1 || *number > UINT32_MAX)
    return Wrong(Where(at, "line"), "a line number from 1", line.Find("line"), err);
  const std::string region = LineRegion(function, file, static_cast<uint32_t>(*number));
  for (const auto& [key, value] : line.members()) {
    if (key == "file" || key == "line" || key == "last_line" || key == "bytes_per_flop") continue;
    if (!ReadMetric(Where(at, key), key, value, region, metrics, err)) return false;
  }
  return true;
}

// Hot functions ("functions", issue 28): each one's metrics under its region (FunctionRegion),
// its hot lines' under theirs. "source", "lines_reason" and its placement are written from its
// metrics and the run, so they come back with them. Import dropped them all: a recovery file
// came back with 8 of 11 metrics (issue 41).
bool ReadFunctions(const JsonValue& run, std::vector<Metric>* metrics, Error* err) {
  const JsonValue* functions = nullptr;
  if (!Member(run, "", "functions", Type::kObject, Need::kNullable, &functions, err)) return false;
  if (!functions) return true;
  for (const auto& [name, members] : functions->members()) {
    const std::string at = Where("functions", name);
    if (name.empty()) {
      return Fail(err, ErrorKind::kUsage, at + ": a function needs a name");
    }
    if (!members.is_object()) return Wrong(at, "an object", &members, err);
    const std::string region = FunctionRegion(name);
    for (const auto& [key, value] : members.members()) {
      if (key == "source" || key == "lines_reason") continue;
      if (key == "placement" && value.is_object() && value.Find("placed")) continue;
      if (key != "lines") {
        if (!ReadMetric(Where(at, key), key, value, region, metrics, err)) return false;
        continue;
      }
      if (value.is_null()) continue;
      if (!value.is_array()) return Wrong(Where(at, key), "an array or null", &value, err);
      auto read_line = [&](const JsonValue& line, size_t i) {
        return ReadFunctionLine(Item(Where(at, key), i), name, line, metrics, err);
      };
      if (!ForEachItem(value, read_line)) return false;
    }
  }
  return true;
}

bool ReadTrust(const JsonValue& run, std::vector<TrustNote>* trust, Error* err) {
  auto read = [&](const JsonValue& item, size_t i) {
    const std::string at = Item("trust", i);
    if (!item.is_object()) return Wrong(at, "an object", &item, err);
    TrustNote note;
    if (!ReadString(item, at, "kind", Need::kRequired, &note.kind, err) ||
        !ReadString(item, at, "detail", Need::kRequired, &note.detail, err))
      return false;
    trust->push_back(std::move(note));
    return true;
  };
  return ReadArray(run, "", "trust", Need::kNullable, read, err);
}

bool ReadSamples(const JsonValue& run, std::vector<double>* samples, Error* err) {
  auto read = [&](const JsonValue& item, size_t i) {
    if (!item.is_number()) return Wrong(Item("samples_s", i), "a number", &item, err);
    samples->push_back(item.number());
    return true;
  };
  if (!ReadArray(run, "", "samples_s", Need::kRequired, read, err)) return false;
  // repetitions is derived (one per sample); a file where they disagree was edited wrongly.
  std::optional<int64_t> repetitions;
  if (!ReadInt(run, "", "repetitions", Need::kNullable, &repetitions, err)) return false;
  if (repetitions && *repetitions != static_cast<int64_t>(samples->size())) {
    return Fail(err, ErrorKind::kUsage,
                "repetitions is " + std::to_string(*repetitions) + " but samples_s holds " +
                    std::to_string(samples->size()) + " times");
  }
  return true;
}

bool ReadStoredPlacement(const JsonValue& run, std::optional<PlacementRecord>* out, Error* err) {
  const JsonValue* p = nullptr;
  if (!Member(run, "", "stored_placement", Type::kObject, Need::kNullable, &p, err)) return false;
  out->reset();
  if (!p) return true;
  const std::string at = "stored_placement";
  PlacementRecord record;
  std::optional<int64_t> profile_id;
  std::optional<double> peak;
  const JsonValue* compulsory = nullptr;
  if (!ReadInt(*p, at, "profile_id", Need::kRequired, &profile_id, err) ||
      !ReadString(*p, at, "compute_ceiling", Need::kNullable, &record.compute_ceiling, err) ||
      !ReadNumber(*p, at, "peak_gflops", Need::kNullable, &peak, err) ||
      !ReadString(*p, at, "binding", Need::kNullable, &record.binding, err) ||
      !ReadNumber(*p, at, "attainable_gflops", Need::kNullable, &record.attainable_gflops, err) ||
      !ReadNumber(*p, at, "percent_of_roof", Need::kNullable, &record.percent_of_roof, err) ||
      !ReadString(*p, at, "verdict", Need::kRequired, &record.verdict, err) ||
      !ReadString(*p, at, "bound", Need::kNullable, &record.bound, err) ||
      !Member(*p, at, "bytes_compulsory_only", Type::kBool, Need::kNullable, &compulsory, err) ||
      !ReadString(*p, at, "note", Need::kNullable, &record.note, err) ||
      !ReadString(*p, at, "binding_level", Need::kNullable, &record.binding_level, err) ||
      !ReadString(*p, at, "binding_source", Need::kNullable, &record.binding_source, err) ||
      !ReadString(*p, at, "bound_text", Need::kNullable, &record.bound_text, err))
    return false;
  record.profile_id = *profile_id;
  record.peak_gflops = peak.value_or(0);
  if (compulsory) record.bytes_compulsory_only = compulsory->boolean();
  *out = std::move(record);
  return true;
}

// "2026-11-29T14:00:00Z", with optional fractions of a second: the times rprof stores (history
// --since compares them as text, so another form would sort wrong). Each field in its range.
bool IsUtcTimestamp(const std::string& text) {
  int year, month, day, hour, minute, second, used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute,
                  &second, &used) != 6 ||
      used != 19)
    return false;
  size_t at = 19;
  if (at < text.size() && text[at] == '.') {
    ++at;
    size_t digits = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at, ++digits;
    if (digits == 0) return false;
  }
  if (at + 1 != text.size() || text[at] != 'Z') return false;
  for (size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u, 11u, 12u, 14u, 15u, 17u, 18u})
    if (text[i] < '0' || text[i] > '9') return false;
  return year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 &&
         minute <= 59 && second <= 60;
}

}  // namespace

bool RunFromJson(const JsonValue& json, RunRecord* run, Error* err) {
  *run = RunRecord();
  if (!json.is_object()) return Wrong("the run", "an object", &json, err);
  std::string status;
  std::optional<int> exit_code, signal;
  std::optional<int64_t> calls;
  if (!ReadString(json, "", "uid", Need::kNullable, &run->uid, err) ||
      !ReadString(json, "", "target", Need::kRequired, &run->target, err) ||
      !ReadString(json, "", "target_kind", Need::kRequired, &run->target_kind, err) ||
      !ReadParams(json, &run->params, err) ||
      !ReadStringArray(json, "", "command", Need::kNullable, &run->command, err) ||
      !ReadString(json, "", "cwd", Need::kNullable, &run->cwd, err) ||
      !ReadString(json, "", "cpu_list", Need::kNullable, &run->cpu_list, err) ||
      !ReadString(json, "", "precision", Need::kNullable, &run->precision, err) ||
      !ReadString(json, "", "status", Need::kRequired, &status, err) ||
      !ReadSmallInt(json, "", "exit_code", Need::kNullable, &exit_code, err) ||
      !ReadSmallInt(json, "", "signal", Need::kNullable, &signal, err) ||
      !ReadString(json, "", "note", Need::kNullable, &run->note, err) ||
      !ReadString(json, "", "started_at", Need::kRequired, &run->started_at, err) ||
      !ReadString(json, "", "ended_at", Need::kRequired, &run->ended_at, err) ||
      !ReadString(json, "", "rprof_version", Need::kNullable, &run->rprof_version, err) ||
      !ReadMachine(json, &run->machine, err) || !ReadJob(json, &run->job, err) ||
      !ReadStringArray(json, "", "sources", Need::kRequired, &run->sources, err) ||
      !ReadSamples(json, &run->samples, err) ||
      !ReadInt(json, "", "calls_per_repetition", Need::kRequired, &calls, err) ||
      !ReadTags(json, &run->tags, err) || !ReadMetrics(json, &run->metrics, err) ||
      !ReadFunctions(json, &run->metrics, err) || !ReadTrust(json, &run->trust, err) ||
      !ReadStoredPlacement(json, &run->placement, err))
    return false;
  // The values the schema's CHECKs hold to, refused here with the key named.
  if (!run->uid.empty() && !IsRunUid(run->uid)) {
    return Fail(err, ErrorKind::kUsage,
                "uid: expected 32 lowercase hex digits, found \"" + run->uid.substr(0, 40) + "\"");
  }
  if (!ParseTargetKind(run->target_kind)) {
    return Fail(err, ErrorKind::kUsage, "target_kind: expected " + TargetKindChoices());
  }
  std::optional<RunStatus> parsed = ParseRunStatus(status);
  if (!parsed) {
    return Fail(err, ErrorKind::kUsage, "status: expected " + RunStatusChoices());
  }
  if (*calls < 1) {
    return Fail(err, ErrorKind::kUsage, "calls_per_repetition: expected 1 or more");
  }
  // What a process can end with: an exit status is a byte, a signal 1 to 64.
  if (exit_code && (*exit_code < 0 || *exit_code > 255)) {
    return Fail(err, ErrorKind::kUsage,
                "exit_code: expected 0 to 255, found " + std::to_string(*exit_code));
  }
  if (signal && (*signal < 1 || *signal > 64)) {
    return Fail(err, ErrorKind::kUsage,
                "signal: expected a signal number from 1 to 64, found " + std::to_string(*signal));
  }
  for (auto [key, value] :
       {std::pair{"started_at", &run->started_at}, std::pair{"ended_at", &run->ended_at}})
    if (!IsUtcTimestamp(*value)) {
      return Fail(err, ErrorKind::kUsage,
                  std::string(key) + ": expected a UTC time as rprof writes it " +
                      "(2026-11-29T14:00:00.000Z), found \"" + value->substr(0, 40) + "\"");
    }
  run->status = *parsed;
  run->exit_code = exit_code;
  run->signal = signal;
  run->calls_per_rep = *calls;
  // What the store holds every run to (core/run_bounds.h), said with the key.
  if (std::string violation = RunBoundsViolation(*run); !violation.empty())
    return Fail(err, ErrorKind::kUsage, std::move(violation));
  return true;
}

bool RunsFromJsonText(std::string_view text, std::vector<RunRecord>* runs, Error* err) {
  runs->clear();
  JsonValue json;
  Error json_err;
  if (!ParseJson(text, &json, &json_err)) {
    return Fail(err, ErrorKind::kUsage, "not JSON: " + json_err.message);
  }
  // One run (rprof show, a recovery file), or many (rprof history).
  if (!json.is_array()) {
    runs->emplace_back();
    return RunFromJson(json, &runs->back(), err);
  }
  if (json.items().empty()) {
    return Fail(err, ErrorKind::kUsage, "an empty array: no run to import");
  }
  for (size_t i = 0; i < json.items().size(); ++i) {
    runs->emplace_back();
    Error run_err;
    if (!RunFromJson(json.items()[i], &runs->back(), &run_err))
      return Fail(err, run_err.kind,
                  "run " + std::to_string(i + 1) + " of " + std::to_string(json.items().size()) +
                      ": " + run_err.message);
  }
  return true;
}

}  // namespace rprof
