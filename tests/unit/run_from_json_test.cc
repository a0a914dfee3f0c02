// The run JSON read back: a run written by FormatRun (what `rprof show --format json` and the
// recovery files hold) reads back as the same RunRecord, every field; history's array reads as
// its runs; JSON of an older rprof (no uid, no machine caches) is taken; and anything that is
// not a run is refused with the key named.
#include "report/run_from_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/run_report.h"
#include "test_runs.h"

namespace rprof {
namespace {

using testing_support::FullRun;
using testing_support::SmallRun;

// FullRun with what the store adds (an id, a uid) and a stored placement.
RunRecord StoredFullRun() {
  RunRecord run = FullRun();
  run.id = 12;
  run.uid = "0123456789abcdef0123456789abcdef";
  PlacementRecord p;
  p.profile_id = 3;
  p.compute_ceiling = "fp64_avx2_fma";
  p.peak_gflops = 67.25;
  p.binding = "dram bandwidth (dram_triad)";
  p.bound = "dram bandwidth";
  p.bytes_compulsory_only = false;
  p.attainable_gflops = 1.5;
  p.percent_of_roof = 71.0 / 3;
  p.verdict = "DRAM-bandwidth-bound, 24 % of roof";
  p.note = "";
  run.placement = p;
  return run;
}

void ExpectSameRun(const RunRecord& got, const RunRecord& want) {
  EXPECT_EQ(got.id, 0) << "an id is the database's own";
  EXPECT_EQ(got.uid, want.uid);
  EXPECT_EQ(got.machine.fingerprint, want.machine.fingerprint);
  EXPECT_EQ(got.machine.cpu_model, want.machine.cpu_model);
  EXPECT_EQ(got.machine.cores, want.machine.cores);
  EXPECT_EQ(got.machine.caches, want.machine.caches);
  EXPECT_EQ(got.machine.kernel, want.machine.kernel);
  EXPECT_EQ(got.machine.hostname, want.machine.hostname);
  EXPECT_EQ(got.target_kind, want.target_kind);
  EXPECT_EQ(got.target, want.target);
  EXPECT_EQ(got.params, want.params);
  EXPECT_EQ(got.command, want.command);
  EXPECT_EQ(got.cwd, want.cwd);
  EXPECT_EQ(got.precision, want.precision);
  EXPECT_EQ(got.status, want.status);
  EXPECT_EQ(got.exit_code, want.exit_code);
  EXPECT_EQ(got.signal, want.signal);
  EXPECT_EQ(got.note, want.note);
  EXPECT_EQ(got.sources, want.sources);
  EXPECT_EQ(got.samples, want.samples);  // shortest exact text: every bit of each double
  EXPECT_EQ(got.calls_per_rep, want.calls_per_rep);
  EXPECT_EQ(got.tags, want.tags);
  EXPECT_EQ(got.started_at, want.started_at);
  EXPECT_EQ(got.ended_at, want.ended_at);
  EXPECT_EQ(got.rprof_version, want.rprof_version);
  // The JSON groups a region's metrics by name, so order is compared per (region, name, source).
  ASSERT_EQ(got.metrics.size(), want.metrics.size());
  for (const Metric& w : want.metrics) {
    SCOPED_TRACE(w.region + "/" + w.name + "/" + std::string(SourceName(w.source)));
    const Metric* g = FindMetric(got.metrics, w.name, w.source, w.region);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->value, w.value);
    EXPECT_EQ(g->unit, w.unit);
    EXPECT_EQ(g->note, w.note);
    EXPECT_EQ(g->coverage, w.coverage);
  }
  ASSERT_EQ(got.trust.size(), want.trust.size());
  for (size_t i = 0; i < want.trust.size(); ++i) {
    EXPECT_EQ(got.trust[i].kind, want.trust[i].kind);
    EXPECT_EQ(got.trust[i].detail, want.trust[i].detail);
  }
  ASSERT_EQ(got.placement.has_value(), want.placement.has_value());
  if (want.placement) {
    const PlacementRecord& g = *got.placement;
    const PlacementRecord& w = *want.placement;
    EXPECT_EQ(g.profile_id, w.profile_id);
    EXPECT_EQ(g.compute_ceiling, w.compute_ceiling);
    EXPECT_EQ(g.peak_gflops, w.peak_gflops);
    EXPECT_EQ(g.binding, w.binding);
    EXPECT_EQ(g.bound, w.bound);
    EXPECT_EQ(g.bytes_compulsory_only, w.bytes_compulsory_only);
    EXPECT_EQ(g.attainable_gflops, w.attainable_gflops);
    EXPECT_EQ(g.percent_of_roof, w.percent_of_roof);
    EXPECT_EQ(g.verdict, w.verdict);
    EXPECT_EQ(g.note, w.note);
  }
}

std::vector<RunRecord> ReadBack(const std::string& json) {
  std::vector<RunRecord> runs;
  Error err;
  EXPECT_TRUE(RunsFromJsonText(json, &runs, &err)) << err.message << "\n" << json;
  return runs;
}

std::string Refused(const std::string& json) {
  std::vector<RunRecord> runs;
  Error err;
  EXPECT_FALSE(RunsFromJsonText(json, &runs, &err)) << json;
  EXPECT_EQ(err.kind, ErrorKind::kUsage);
  return err.message;
}

// The JSON of SmallRun with one edit: `from` replaced by `to` (which must be there).
std::string Edited(const std::string& from, const std::string& to) {
  std::string json = FormatRun(SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {}),
                               OutputFormat::kJson);
  size_t at = json.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << json;
  if (at != std::string::npos) json.replace(at, from.size(), to);
  return json;
}

TEST(RunFromJson, ShowsJsonReadsBackAsTheSameRun) {
  RunRecord run = StoredFullRun();
  std::vector<RunRecord> runs = ReadBack(FormatRun(run, OutputFormat::kJson));
  ASSERT_EQ(runs.size(), 1u);
  ExpectSameRun(runs[0], run);
}

TEST(RunFromJson, ARunWithoutPlacementUidOrOptionalValues) {
  RunRecord run = SmallRun("triad", RunStatus::kInterrupted, "2026-01-01T00:00:00.000Z", {});
  run.precision = "";
  run.metrics.push_back({"bytes_dram", std::nullopt, "B", Source::kPmu, "", "no hardware PMU"});
  std::vector<RunRecord> runs = ReadBack(FormatRun(run, OutputFormat::kJson));
  ASSERT_EQ(runs.size(), 1u);
  ExpectSameRun(runs[0], run);
}

TEST(RunFromJson, HistorysArrayReadsAsItsRuns) {
  std::vector<RunRecord> list = {StoredFullRun(),
                                 SmallRun("dot", RunStatus::kOk, "2026-01-02T00:00:00.000Z", {})};
  std::vector<RunRecord> runs = ReadBack(FormatRunList(list, OutputFormat::kJson));
  ASSERT_EQ(runs.size(), 2u);
  ExpectSameRun(runs[0], list[0]);
  ExpectSameRun(runs[1], list[1]);
}

TEST(RunFromJson, ParametersKeepTheirText) {
  std::vector<RunRecord> runs =
      ReadBack(Edited("\"params\":{\"n\":10}", "\"params\":{\"n\":10000000000,\"mode\":\"x y\"}"));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].params, (KeyValues{{"n", "10000000000"}, {"mode", "x y"}}));
}

TEST(RunFromJson, JsonOfAnOlderRprofWithoutUidCachesOrKernel) {
  std::string json = FormatRun(SmallRun("triad", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {}),
                               OutputFormat::kJson);
  for (const char* key :
       {"\"uid\":null,", "\"cwd\":null,", ",\"caches\":\"L1d 32K, L2 1M, L3 32M\"",
        ",\"kernel\":\"6.1.0-test\"", "\"rprof_version\":\"0.1.0\","}) {
    size_t at = json.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    json.erase(at, std::string(key).size());
  }
  std::vector<RunRecord> runs = ReadBack(json);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].uid, "");
  EXPECT_EQ(runs[0].machine.caches, "");
}

TEST(RunFromJson, WhatIsNotARunIsRefusedWithTheKeyNamed) {
  EXPECT_EQ(Refused("garbage").rfind("not JSON: line 1, column 1", 0), 0u);
  EXPECT_EQ(Refused("[]"), "an empty array: no run to import");
  EXPECT_EQ(Refused("42"), "the run: expected an object, found a number");
  EXPECT_EQ(Refused("{\"a\": 1}"), "target: expected a string, but it is missing");
  EXPECT_EQ(Refused("[{\"a\": 1}]"), "run 1 of 1: target: expected a string, but it is missing");
  EXPECT_EQ(Refused(Edited("\"status\":\"ok\"", "\"status\":\"fine\"")),
            "status: expected ok, failed, crashed or interrupted");
  EXPECT_EQ(Refused(Edited("\"target_kind\":\"builtin\"", "\"target_kind\":\"script\"")),
            "target_kind: expected builtin, plugin, executable or benchmark");
  EXPECT_EQ(Refused(Edited("\"uid\":null", "\"uid\":\"1234\"")),
            "uid: expected 32 lowercase hex digits, found \"1234\"");
  EXPECT_EQ(Refused(Edited("\"clock\":{", "\"abacus\":{")),
            "metrics.time_s.abacus: no source abacus (clock, pmu, sim, model)");
  EXPECT_EQ(Refused(Edited("\"unit\":\"s\"", "\"unit\":null")),
            "metrics.time_s.clock.unit: expected a string, found null");
  EXPECT_EQ(Refused(Edited("\"value\":0.5", "\"worth\":0.5")),
            "metrics.time_s.clock.value: expected a number or null, but it is missing");
  EXPECT_EQ(Refused(Edited("\"samples_s\":[0.5]", "\"samples_s\":[0.5,\"x\"]")),
            "samples_s[1]: expected a number, found a string");
  EXPECT_EQ(Refused(Edited("\"repetitions\":1", "\"repetitions\":2")),
            "repetitions is 2 but samples_s holds 1 times");
  EXPECT_EQ(Refused(Edited("\"calls_per_repetition\":1", "\"calls_per_repetition\":1.5")),
            "calls_per_repetition: expected an integer, found a number");
  EXPECT_EQ(Refused(Edited("\"cores\":8", "\"cores\":\"8\"")),
            "machine.cores: expected a number, found a string");
  EXPECT_EQ(Refused(Edited("\"cores\":8", "\"cores\":99999999999")),
            "machine.cores: 99999999999 "
            "is out of range");
  EXPECT_EQ(Refused(Edited("\"tags\":{}", "\"tags\":{\"lab\":0}")),
            "tags.lab: expected a string, found a number");
}

TEST(RunFromJson, ARegionsPlacementIsNotAMetric) {
  RunRecord run = SmallRun("app", RunStatus::kOk, "2026-01-01T00:00:00.000Z", {});
  run.metrics.push_back({"time_s", 0.25, "s", Source::kClock, "solve", ""});
  RunPlacement placement;  // not placed: every region gets {"placed": false, ...}
  placement.missing = "no machine profile";
  std::string json = FormatRun(run, OutputFormat::kJson, &placement);
  ASSERT_NE(json.find("\"solve\":{\"time_s\""), std::string::npos) << json;
  std::vector<RunRecord> runs = ReadBack(json);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].metrics.size(), 2u);
  EXPECT_NE(FindMetric(runs[0].metrics, "time_s", Source::kClock, "solve"), nullptr);
}

}  // namespace
}  // namespace rprof
