// The seam: one driver measures any target with any sources, through the CounterSource
// interface only. Fake sources of every scope and a fake target show the order sources are
// prepared and finished in, what each one sees, and what is stored or refused; the registry
// tests pin what each --counters value runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "counters/source_registry.h"
#include "targets/measure.h"

namespace rprof {
namespace {

// What the fakes saw, in order.
std::vector<std::string> g_log;

class FakeSession : public CounterSession {
 public:
  Source source() const override { return Source::kPmu; }
  bool Start(Error*) override {
    ++starts;
    return true;
  }
  bool Stop(Error*) override { return true; }
  std::vector<Metric> Results(double calls) const override {
    return {{"events", starts / calls, "count", Source::kPmu, "", ""}};
  }
  int starts = 0;
};

class FakePrepared : public PreparedSource {
 public:
  FakePrepared(Source id, CounterScope scope, bool chosen)
      : id_(id), scope_(scope), chosen_(chosen) {}
  CounterSession* per_repetition() override {
    return scope_ == CounterScope::kPerRepetition ? &session_ : nullptr;
  }
  bool Finish(const CountedTarget&, const NativeOutcome& outcome, std::vector<Metric>* metrics,
              std::string* note, Error* err) override {
    std::string name(SourceName(id_));
    g_log.push_back("finish " + name + " after " + std::to_string(outcome.so_far.size()));
    switch (scope_) {
      case CounterScope::kStatic:
        metrics->push_back({"flops", 1000, "FLOP", id_, "", "declared"});
        return true;
      case CounterScope::kPerRepetition:
      case CounterScope::kPerProcess:
        *metrics = session_.Results(outcome.calls);
        return true;
      case CounterScope::kReplayed:
        if (!outcome.ok) return true;
        if (chosen_ && outcome.replay_native_s > 1)
          return Fail(err, ErrorKind::kEnvironment, name + ": the replay would take too long");
        if (outcome.replay_native_s > 1) {
          *note = name + " skipped: too long";
          return true;
        }
        // A replay sees the static source's values, finished before it.
        for (const Metric& m : outcome.so_far)
          if (m.name == "flops")
            metrics->push_back({"flops", m.value, "FLOP", id_, "", "replayed"});
        return true;
    }
    return true;
  }

 private:
  Source id_;
  CounterScope scope_;
  bool chosen_;
  FakeSession session_;
};

class FakeSource : public CounterSource {
 public:
  FakeSource(Source id, CounterScope scope, bool fail_prepare = false)
      : id_(id), scope_(scope), fail_prepare_(fail_prepare) {}
  Source id() const override { return id_; }
  const char* summary() const override { return "a fake"; }
  CounterScope scope(CountedTarget::Kind) const override { return scope_; }
  Availability Probe() const override { return {}; }
  std::unique_ptr<PreparedSource> Prepare(const CountedTarget&, const CounterRequest&, bool chosen,
                                          Error* err) const override {
    g_log.push_back("prepare " + std::string(SourceName(id_)));
    if (fail_prepare_) {
      Fail(err, ErrorKind::kEnvironment, "cannot prepare");
      return nullptr;
    }
    return std::make_unique<FakePrepared>(id_, scope_, chosen);
  }

 private:
  Source id_;
  CounterScope scope_;
  bool fail_prepare_;
};

class FakeTarget : public Target {
 public:
  explicit FakeTarget(RunStatus outcome = RunStatus::kOk, double replay_s = 0.1)
      : outcome_(outcome), replay_s_(replay_s) {}
  const CountedTarget& counted() const override { return counted_; }
  void Describe(RunRecord* run) const override {
    run->target_kind = "builtin";
    run->target = "fake";
  }
  bool Execute(const LiveCounters& counters, Execution* out, Error*) override {
    g_log.push_back("execute with " + std::to_string(counters.per_repetition.size()));
    Error why;
    for (int rep = 0; rep < 4; ++rep) {
      for (CounterSession* s : counters.per_repetition) EXPECT_TRUE(s->Start(&why));
      for (CounterSession* s : counters.per_repetition) EXPECT_TRUE(s->Stop(&why));
      out->samples.push_back(0.001 * (rep + 1));
    }
    out->samples_note = "median of 4 repetitions";
    out->timed_calls = 8;
    out->status = outcome_;
    if (outcome_ != RunStatus::kOk) out->note = "check failed: fake";
    out->replay_native_s = replay_s_;
    return true;
  }

 private:
  CountedTarget counted_;
  RunStatus outcome_;
  double replay_s_;
};

class MeasureDriverTest : public ::testing::Test {
 protected:
  void SetUp() override { g_log.clear(); }
  // In registry order, as ChooseSources gives them: live, replayed, static.
  FakeSource live_{Source::kPmu, CounterScope::kPerRepetition};
  FakeSource replayed_{Source::kSim, CounterScope::kReplayed};
  FakeSource static_{Source::kModel, CounterScope::kStatic};
  std::vector<ChosenSource> all_ = {{&live_, false}, {&replayed_, false}, {&static_, false}};
  CounterRequest request_;
  std::vector<SourceFailure> failed_;
};

TEST_F(MeasureDriverTest, StaticFirstThenLiveThenReplayed) {
  FakeTarget target;
  RunRecord run;
  Error err;
  ASSERT_TRUE(Measure(target, all_, request_, &run, &failed_, &err)) << err.message;
  std::vector<std::string> expected = {
      "prepare model",        "prepare pmu",        "prepare sim",       "execute with 1",
      "finish model after 1", "finish pmu after 2", "finish sim after 3"};
  EXPECT_EQ(g_log, expected);
  EXPECT_EQ(run.sources, (std::vector<std::string>{"clock", "model", "pmu", "sim"}));
  EXPECT_EQ(run.target, "fake");
  ASSERT_EQ(run.samples.size(), 4u);
  const Metric* time = FindMetric(run.metrics, "time_s", Source::kClock);
  ASSERT_NE(time, nullptr);
  EXPECT_DOUBLE_EQ(*time->value, 0.0025);
  EXPECT_EQ(time->note, "median of 4 repetitions");
  // The live session was started once per repetition and its total divided by the calls.
  const Metric* events = FindMetric(run.metrics, "events", Source::kPmu);
  ASSERT_NE(events, nullptr);
  EXPECT_DOUBLE_EQ(*events->value, 4.0 / 8);
  const Metric* replayed = FindMetric(run.metrics, "flops", Source::kSim);
  ASSERT_NE(replayed, nullptr);
  EXPECT_EQ(*replayed->value, 1000);
  // Derived rates for every source with FLOPs and a time.
  EXPECT_NE(FindMetric(run.metrics, "gflops", Source::kModel), nullptr);
}

TEST_F(MeasureDriverTest, AFailedTargetIsStoredAndNotReplayed) {
  FakeTarget target(RunStatus::kFailed);
  RunRecord run;
  Error err;
  ASSERT_TRUE(Measure(target, all_, request_, &run, &failed_, &err)) << err.message;
  EXPECT_EQ(run.status, RunStatus::kFailed);
  EXPECT_EQ(run.note, "check failed: fake");
  EXPECT_EQ(FindMetric(run.metrics, "flops", Source::kSim), nullptr);
  EXPECT_EQ(run.sources, (std::vector<std::string>{"clock", "model", "pmu"}));
}

TEST_F(MeasureDriverTest, ASkippedReplayIsNotedAndAChosenOneFails) {
  FakeTarget slow(RunStatus::kOk, 5.0);
  RunRecord run;
  Error err;
  ASSERT_TRUE(Measure(slow, all_, request_, &run, &failed_, &err)) << err.message;
  EXPECT_EQ(run.note, "sim skipped: too long");
  EXPECT_EQ(run.sources, (std::vector<std::string>{"clock", "model", "pmu"}));

  // Chosen, it fails after the target ran: the run is still stored, without sim's counts,
  // and the failure is reported for the exit status.
  std::vector<ChosenSource> chosen = {{&replayed_, true}, {&static_, false}};
  RunRecord kept;
  ASSERT_TRUE(Measure(slow, chosen, request_, &kept, &failed_, &err)) << err.message;
  ASSERT_EQ(failed_.size(), 1u);
  EXPECT_EQ(failed_[0].source, Source::kSim);
  EXPECT_EQ(failed_[0].error.kind, ErrorKind::kEnvironment);
  EXPECT_EQ(failed_[0].error.message, "sim: the replay would take too long");
  EXPECT_EQ(kept.status, RunStatus::kOk);
  EXPECT_EQ(kept.note, "sim counts absent: the replay would take too long");
  EXPECT_NE(FindMetric(kept.metrics, "time_s", Source::kClock), nullptr);
  EXPECT_EQ(FindMetric(kept.metrics, "flops", Source::kSim), nullptr);
}

TEST_F(MeasureDriverTest, ASourceThatCannotBePreparedStopsBeforeTheTargetRuns) {
  FakeSource broken(Source::kPmu, CounterScope::kPerRepetition, /*fail_prepare=*/true);
  std::vector<ChosenSource> sources = {{&broken, false}, {&static_, false}};
  FakeTarget target;
  RunRecord run;
  Error err;
  EXPECT_FALSE(Measure(target, sources, request_, &run, &failed_, &err));
  EXPECT_EQ(err.message, "cannot prepare");
  EXPECT_EQ(g_log, (std::vector<std::string>{"prepare model", "prepare pmu"}));
}

TEST(SourceRegistryTest, RegistryOrderIsThePreferenceOrder) {
  std::vector<Source> ids;
  for (const CounterSource* s : CounterSources()) ids.push_back(s->id());
  EXPECT_EQ(ids, CountingSources());
  for (Source id : CountingSources()) {
    ASSERT_NE(FindCounterSource(id), nullptr);
    EXPECT_EQ(FindCounterSource(SourceName(id)), FindCounterSource(id));
  }
  EXPECT_EQ(FindCounterSource("clock"), nullptr);
  EXPECT_EQ(CounterChoices(), (std::vector<std::string>{"auto", "pmu", "sim", "model"}));
}

std::vector<std::string> Chosen(const std::string& counters) {
  std::vector<ChosenSource> sources;
  Error err;
  EXPECT_TRUE(ChooseSources(counters, &sources, &err)) << err.message;
  std::vector<std::string> out;
  for (const ChosenSource& c : sources)
    out.push_back(std::string(SourceName(c.source->id())) + (c.chosen ? "!" : ""));
  return out;
}

TEST(SourceRegistryTest, WhatEachCountersValueRuns) {
  EXPECT_EQ(Chosen("auto"), (std::vector<std::string>{"pmu", "sim", "model"}));
  // A live source and the model beside it; never another replay.
  EXPECT_EQ(Chosen("pmu"), (std::vector<std::string>{"pmu!", "model"}));
  // The replay chosen; the live counters and the model cost no extra execution.
  EXPECT_EQ(Chosen("sim"), (std::vector<std::string>{"pmu", "sim!", "model"}));
  // The static source alone: no counters at all.
  EXPECT_EQ(Chosen("model"), (std::vector<std::string>{"model!"}));

  std::vector<ChosenSource> sources;
  Error err;
  EXPECT_FALSE(ChooseSources("hardware", &sources, &err));
  EXPECT_EQ(err.kind, ErrorKind::kUsage);
  EXPECT_NE(err.message.find("auto, pmu, sim or model"), std::string::npos) << err.message;
}

TEST(SourceRegistryTest, ScopesFollowTheTarget) {
  const CounterSource& pmu = *FindCounterSource(Source::kPmu);
  EXPECT_EQ(pmu.scope(CountedTarget::Kind::kKernel), CounterScope::kPerRepetition);
  EXPECT_EQ(pmu.scope(CountedTarget::Kind::kProgram), CounterScope::kPerProcess);
  EXPECT_EQ(FindCounterSource(Source::kSim)->scope(CountedTarget::Kind::kKernel),
            CounterScope::kReplayed);
  EXPECT_EQ(FindCounterSource(Source::kModel)->scope(CountedTarget::Kind::kProgram),
            CounterScope::kStatic);
  // The model needs nothing of the machine.
  EXPECT_TRUE(FindCounterSource(Source::kModel)->Probe().available);
}

}  // namespace
}  // namespace rprof
