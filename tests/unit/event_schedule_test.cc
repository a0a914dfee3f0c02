// counters/pmu/event_schedule.h without hardware: a fake PMU with 4 core counters and a
// 2-counter uncore component decides what fits, and synthetic counts check the scaling, the
// coverage and the reason given when a pass never had its turn.
#include "counters/pmu/event_schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace rprof {
namespace {

// A PMU that knows its events by name: each takes one counter of its component unless its
// width says more.
class FakeProbe : public EventSetProbe {
 public:
  std::map<std::string, int> counters = {{"core", 4}, {"uncore", 2}};
  std::set<std::string> known;
  std::map<std::string, int> width;          // counters an event takes; 1 when not listed
  std::set<std::string> refused_components;  // NewSet fails for these
  std::vector<std::string> set_components;   // per opened set

  std::optional<int> NewSet(const std::string& component, Error* err) override {
    if (refused_components.count(component)) {
      Fail(err, ErrorKind::kEnvironment, component + ": permission denied");
      return std::nullopt;
    }
    set_components.push_back(component);
    used_.push_back(0);
    return static_cast<int>(set_components.size()) - 1;
  }

  AddResult TryAdd(int set, const std::string& event) override {
    if (!known.count(event)) return {AddResult::Kind::kError, "no such event"};
    int needs = width.count(event) ? width[event] : 1;
    if (used_[set] + needs > counters[set_components[set]])
      return {AddResult::Kind::kConflict, "no counter left"};
    used_[set] += needs;
    return {};
  }

 private:
  std::vector<int> used_;  // counters taken, per set
};

std::vector<EventToSchedule> Core(const std::vector<std::string>& names) {
  std::vector<EventToSchedule> events;
  for (const std::string& name : names) events.push_back({name, "core", false});
  return events;
}

FakeProbe ProbeKnowing(const std::vector<std::string>& names) {
  FakeProbe probe;
  probe.known.insert(names.begin(), names.end());
  return probe;
}

TEST(EventSchedule, EverythingFitsInOnePass) {
  FakeProbe probe = ProbeKnowing({"a", "b", "c"});
  EventSchedule schedule = BuildSchedule(Core({"a", "b", "c"}), &probe);
  ASSERT_EQ(schedule.components.size(), 1u);
  ASSERT_EQ(schedule.components[0].passes.size(), 1u);
  EXPECT_EQ(schedule.components[0].passes[0].events, (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(schedule.missing.empty());
  EXPECT_EQ(schedule.PassCount(), 1);
}

TEST(EventSchedule, SixCoreEventsOnFourCountersTakeTwoPasses) {
  FakeProbe probe = ProbeKnowing({"e0", "e1", "e2", "e3", "e4", "e5"});
  EventSchedule schedule = BuildSchedule(Core({"e0", "e1", "e2", "e3", "e4", "e5"}), &probe);
  ASSERT_EQ(schedule.components.size(), 1u);
  const ComponentSchedule& core = schedule.components[0];
  EXPECT_EQ(core.component, "core");
  ASSERT_EQ(core.passes.size(), 2u);
  EXPECT_EQ(core.passes[0].events, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(core.passes[1].events, (std::vector<size_t>{4, 5}));
  EXPECT_NE(core.passes[0].set, core.passes[1].set);
  EXPECT_TRUE(schedule.missing.empty());
  EXPECT_EQ(schedule.PassCount(), 2);
}

TEST(EventSchedule, UnknownEventIsMissingWithTheProbesReason) {
  FakeProbe probe = ProbeKnowing({"a", "b"});
  EventSchedule schedule = BuildSchedule(Core({"a", "typo", "b"}), &probe);
  ASSERT_EQ(schedule.missing.size(), 1u);
  EXPECT_EQ(schedule.missing[0].event, 1u);
  EXPECT_EQ(schedule.missing[0].reason, "no such event");
  ASSERT_EQ(schedule.components.size(), 1u);
  ASSERT_EQ(schedule.components[0].passes.size(), 1u);
  EXPECT_EQ(schedule.components[0].passes[0].events, (std::vector<size_t>{0, 2}));
}

TEST(EventSchedule, AFailedFirstEventOpensNoExtraSet) {
  FakeProbe probe = ProbeKnowing({"a"});
  EventSchedule schedule = BuildSchedule(Core({"typo", "a"}), &probe);
  ASSERT_EQ(schedule.missing.size(), 1u);
  EXPECT_EQ(probe.set_components.size(), 1u) << "the set left empty by 'typo' is reused";
  ASSERT_EQ(schedule.components.size(), 1u);
  EXPECT_EQ(schedule.components[0].passes[0].events, (std::vector<size_t>{1}));
}

TEST(EventSchedule, UncoreEventsGetTheirOwnSet) {
  FakeProbe probe = ProbeKnowing({"c0", "u0", "c1", "u1"});
  std::vector<EventToSchedule> events = {
      {"c0", "core", false}, {"u0", "uncore", true}, {"c1", "core", false}, {"u1", "uncore", true}};
  EventSchedule schedule = BuildSchedule(events, &probe);
  EXPECT_TRUE(schedule.missing.empty());
  ASSERT_EQ(schedule.components.size(), 2u);
  const ComponentSchedule& core = schedule.components[0];
  const ComponentSchedule& uncore = schedule.components[1];
  EXPECT_EQ(core.component, "core");
  EXPECT_FALSE(core.socket_wide);
  ASSERT_EQ(core.passes.size(), 1u);
  EXPECT_EQ(core.passes[0].events, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(uncore.component, "uncore");
  EXPECT_TRUE(uncore.socket_wide);
  ASSERT_EQ(uncore.passes.size(), 1u);
  EXPECT_EQ(uncore.passes[0].events, (std::vector<size_t>{1, 3}));
  EXPECT_EQ(probe.set_components[static_cast<size_t>(uncore.passes[0].set)], "uncore");
  EXPECT_EQ(schedule.PassCount(), 1);
}

TEST(EventSchedule, UncoreNeverRotates) {
  FakeProbe probe = ProbeKnowing({"u0", "u1", "u2"});
  std::vector<EventToSchedule> events = {
      {"u0", "uncore", true}, {"u1", "uncore", true}, {"u2", "uncore", true}};
  EventSchedule schedule = BuildSchedule(events, &probe);
  ASSERT_EQ(schedule.components.size(), 1u);
  EXPECT_EQ(schedule.components[0].passes.size(), 1u);
  ASSERT_EQ(schedule.missing.size(), 1u);
  EXPECT_EQ(schedule.missing[0].event, 2u);
  EXPECT_NE(schedule.missing[0].reason.find("no uncore counter left"), std::string::npos)
      << schedule.missing[0].reason;
  EXPECT_EQ(schedule.PassCount(), 1);
}

TEST(EventSchedule, ConflictInAnEmptySetIsMissing) {
  FakeProbe probe = ProbeKnowing({"a", "huge", "b"});
  probe.width = {{"huge", 5}};
  EventSchedule schedule = BuildSchedule(Core({"a", "huge", "b"}), &probe);
  ASSERT_EQ(schedule.missing.size(), 1u);
  EXPECT_EQ(schedule.missing[0].event, 1u);
  EXPECT_NE(schedule.missing[0].reason.find("even alone"), std::string::npos)
      << schedule.missing[0].reason;
  EXPECT_NE(schedule.missing[0].reason.find("no counter left"), std::string::npos)
      << schedule.missing[0].reason;
  ASSERT_EQ(schedule.components.size(), 1u);
  EXPECT_EQ(schedule.components[0].passes.size(), 1u) << "the empty set is not a pass";
  EXPECT_EQ(schedule.PassCount(), 1);
}

TEST(EventSchedule, ComponentThatCannotOpenASetLosesAllItsEvents) {
  FakeProbe probe = ProbeKnowing({"c0", "u0", "u1"});
  probe.refused_components = {"uncore"};
  std::vector<EventToSchedule> events = {
      {"c0", "core", false}, {"u0", "uncore", true}, {"u1", "uncore", true}};
  EventSchedule schedule = BuildSchedule(events, &probe);
  ASSERT_EQ(schedule.missing.size(), 2u);
  EXPECT_EQ(schedule.missing[0].reason, "uncore: permission denied");
  EXPECT_EQ(schedule.missing[1].reason, "uncore: permission denied");
  ASSERT_EQ(schedule.components.size(), 1u);
  EXPECT_EQ(schedule.components[0].component, "core");
}

TEST(EventSchedule, AnEventListedTwiceIsCountedOnce) {
  FakeProbe probe = ProbeKnowing({"a"});
  EventSchedule schedule = BuildSchedule(Core({"a", "a"}), &probe);
  ASSERT_EQ(schedule.missing.size(), 1u);
  EXPECT_EQ(schedule.missing[0].event, 1u);
  EXPECT_NE(schedule.missing[0].reason.find("more than once"), std::string::npos);
  EXPECT_EQ(schedule.PassCount(), 1);
}

TEST(EventSchedule, LaterEventsFillEarlierPasses) {
  // "wide" takes 3 counters: it does not fit beside e0 and e1 and opens pass 2; e2 still fits
  // in pass 1.
  FakeProbe probe = ProbeKnowing({"e0", "e1", "wide", "e2"});
  probe.width = {{"wide", 3}};
  EventSchedule schedule = BuildSchedule(Core({"e0", "e1", "wide", "e2"}), &probe);
  ASSERT_EQ(schedule.components[0].passes.size(), 2u);
  EXPECT_EQ(schedule.components[0].passes[0].events, (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(schedule.components[0].passes[1].events, (std::vector<size_t>{2}));
}

// A schedule of 6 core events (2 passes) and 1 uncore event.
EventSchedule TwoPassSchedule() {
  FakeProbe probe = ProbeKnowing({"e0", "e1", "e2", "e3", "e4", "e5", "u0"});
  std::vector<EventToSchedule> events = Core({"e0", "e1", "e2", "e3", "e4", "e5"});
  events.push_back({"u0", "uncore", true});
  return BuildSchedule(events, &probe);
}

TEST(PassAccumulator, PassesTakeTurnsPerComponent) {
  EventSchedule schedule = TwoPassSchedule();
  ASSERT_EQ(schedule.components.size(), 2u);
  PassAccumulator accumulator(schedule);
  EXPECT_EQ(accumulator.PassOf(0, 0), 0u);
  EXPECT_EQ(accumulator.PassOf(0, 1), 1u);
  EXPECT_EQ(accumulator.PassOf(0, 2), 0u);
  EXPECT_EQ(accumulator.PassOf(1, 0), 0u) << "one uncore pass counts every repetition";
  EXPECT_EQ(accumulator.PassOf(1, 1), 0u);
}

TEST(PassAccumulator, ScalesByTheShareOfTimeEachPassCounted) {
  EventSchedule schedule = TwoPassSchedule();
  PassAccumulator accumulator(schedule);
  // Six equal repetitions: pass 1 and pass 2 of the core component count three each; every
  // pass-1 event counts 10 per repetition, every pass-2 event 7, the uncore event 5.
  for (int r = 0; r < 6; ++r) {
    size_t pass = accumulator.PassOf(0, accumulator.repetitions());
    std::vector<long long> core(schedule.components[0].passes[pass].events.size(),
                                pass == 0 ? 10 : 7);
    accumulator.AddRepetition(0.25, {core, {5}});
  }
  EXPECT_EQ(accumulator.repetitions(), 6);
  PassAccumulator::Total first = accumulator.TotalOf(0, 0, 2);
  ASSERT_TRUE(first.value.has_value()) << first.reason;
  EXPECT_DOUBLE_EQ(*first.value, 3 * 10 * 2.0) << "counted half the time: ×2";
  ASSERT_TRUE(first.coverage.has_value());
  EXPECT_DOUBLE_EQ(*first.coverage, 0.5);
  PassAccumulator::Total second = accumulator.TotalOf(0, 1, 1);
  ASSERT_TRUE(second.value.has_value()) << second.reason;
  EXPECT_DOUBLE_EQ(*second.value, 3 * 7 * 2.0);
  EXPECT_DOUBLE_EQ(second.coverage.value_or(1), 0.5);
  PassAccumulator::Total uncore = accumulator.TotalOf(1, 0, 0);
  ASSERT_TRUE(uncore.value.has_value());
  EXPECT_DOUBLE_EQ(*uncore.value, 6 * 5);
  EXPECT_FALSE(uncore.coverage.has_value()) << "counted throughout: no coverage";
}

TEST(PassAccumulator, UnequalRepetitionsScaleByTimeNotByCount) {
  EventSchedule schedule = TwoPassSchedule();
  PassAccumulator accumulator(schedule);
  std::vector<long long> pass1(4, 100), pass2(2, 30);
  accumulator.AddRepetition(0.3, {pass1, {0}});  // pass 1 counts 0.3 s
  accumulator.AddRepetition(0.1, {pass2, {0}});  // pass 2 counts 0.1 s of 0.4 s
  PassAccumulator::Total second = accumulator.TotalOf(0, 1, 0);
  ASSERT_TRUE(second.value.has_value());
  EXPECT_DOUBLE_EQ(*second.value, 30 * 4.0);
  EXPECT_DOUBLE_EQ(second.coverage.value_or(1), 0.25);
  EXPECT_DOUBLE_EQ(accumulator.TotalOf(0, 0, 0).coverage.value_or(1), 0.75);
}

TEST(PassAccumulator, SinglePassIsUnscaled) {
  FakeProbe probe = ProbeKnowing({"a", "b"});
  EventSchedule schedule = BuildSchedule(Core({"a", "b"}), &probe);
  PassAccumulator accumulator(schedule);
  accumulator.AddRepetition(0.1, {{3, 4}});
  accumulator.AddRepetition(0.3, {{5, 6}});
  PassAccumulator::Total b = accumulator.TotalOf(0, 0, 1);
  ASSERT_TRUE(b.value.has_value());
  EXPECT_EQ(*b.value, 10.0) << "exactly the raw sum";
  EXPECT_FALSE(b.coverage.has_value());
  EXPECT_TRUE(b.reason.empty());
}

TEST(PassAccumulator, PassThatNeverRanIsAbsentWithTheRepetitionsItNeeds) {
  // 10 core events on 4 counters: 3 passes; only 2 repetitions run.
  std::vector<std::string> names = {"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"};
  FakeProbe probe = ProbeKnowing(names);
  EventSchedule schedule = BuildSchedule(Core(names), &probe);
  ASSERT_EQ(schedule.PassCount(), 3);
  PassAccumulator accumulator(schedule);
  accumulator.AddRepetition(0.1, {std::vector<long long>(4, 1)});
  accumulator.AddRepetition(0.1, {std::vector<long long>(4, 1)});
  PassAccumulator::Total third = accumulator.TotalOf(0, 2, 0);
  EXPECT_FALSE(third.value.has_value()) << "never counted: absent, never 0";
  EXPECT_FALSE(third.coverage.has_value());
  EXPECT_EQ(third.reason, "counted in pass 3 of 3, but only 2 repetitions ran: use -r 3 or more");
  EXPECT_TRUE(accumulator.TotalOf(0, 1, 0).value.has_value());
}

}  // namespace
}  // namespace rprof
