#include "cli/compare_invocations.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "core/stats.h"
#include "report/render.h"
#include "report/table.h"

namespace rprof {

// The one invocation uid `given` names (itself, or a unique prefix).
bool ResolveInvocation(RunStore* store, const std::string& given, std::string* uid, Error* err) {
  std::vector<std::string> found;
  Error why;
  bool ok = store->db()->ForEachRow(
      "SELECT DISTINCT value FROM tags WHERE key = 'invocation' AND "
      "substr(value, 1, length(?1)) = ?1",
      &why, [&](const Statement& s) { found.push_back(s.Text(0)); }, given);
  if (!ok) return store->DbFail(why.message, err);
  if (found.size() == 1 && !given.empty()) {
    *uid = found.front();
    return true;
  }
  return Fail(err, ErrorKind::kUsage,
              "--invocation " + given + ": " +
                  (found.empty() ? std::string("no stored invocation has this uid")
                                 : std::to_string(found.size()) + " invocations start so") +
                  "; `rprof history --kernel` or `rprof run` of the binary prints its uid");
}

namespace {

std::optional<double> Gflops(const RunRecord& run) {
  const Metric* m = PreferredMetric(run.metrics, "gflops");
  return m ? m->value : std::nullopt;
}

std::optional<double> Change(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *a == 0) return std::nullopt;
  return (*b / *a - 1) * 100;
}

}  // namespace

bool CompareInvocations(RunStore* store, const std::string& a, const std::string& b,
                        std::optional<double> fail_if_slower_pct, OutputFormat format,
                        size_t text_width, Error* err) {
  std::string uid[2];
  if (!ResolveInvocation(store, a, &uid[0], err) || !ResolveInvocation(store, b, &uid[1], err))
    return false;
  std::vector<RunRecord> runs[2];
  for (int i = 0; i < 2; ++i) {
    RunFilter filter;
    filter.tags = {{"invocation", uid[i]}};
    filter.limit = 0;
    if (!store->List(filter, &runs[i], err)) return false;
    std::reverse(runs[i].begin(), runs[i].end());  // the binary's order
  }
  Report report;
  report.AddField("a", Cell::Text(uid[0]));
  report.AddField("b", Cell::Text(uid[1]));
  report.AddText("A: invocation " + uid[0] + "\nB: invocation " + uid[1] + "\n" +
                 "time per iteration (Google Benchmark's real time, median of repetitions); p: "
                 "Mann-Whitney U over the repetitions' times, significant below 0.05 (needs 2 "
                 "or more each: --benchmark_repetitions=9 gives it power)\n\n");
  Table& table = report.AddTable({{"benchmark", "benchmark"},
                                  {"a_time_s", "A s/iter", Align::kRight},
                                  {"b_time_s", "B s/iter", Align::kRight},
                                  {"time_change_pct", "time %", Align::kRight},
                                  {"a_gflops", "A GFLOP/s", Align::kRight},
                                  {"b_gflops", "B GFLOP/s", Align::kRight},
                                  {"gflops_change_pct", "GFLOP/s %", Align::kRight},
                                  {"p_value", "p", Align::kRight},
                                  {"verdict", "verdict"}},
                                 kInAll, "benchmarks");
  std::string slower;
  for (const RunRecord& ra : runs[0]) {
    const RunRecord* rb = nullptr;
    for (const RunRecord& r : runs[1])
      if (r.target == ra.target && r.params == ra.params) rb = &r;
    if (!rb) {
      table.AddRow({Cell::Text(ra.target), Cell::Number(Summarize(ra.samples).median), Cell(),
                    Cell(), Cell::Number(Gflops(ra)), Cell(), Cell(), Cell(),
                    Cell::Text("only in A")});
      continue;
    }
    std::optional<double> ta, tb;
    if (!ra.samples.empty()) ta = Summarize(ra.samples).median;
    if (!rb->samples.empty()) tb = Summarize(rb->samples).median;
    std::optional<double> change = Change(ta, tb);
    std::optional<MannWhitney> test = MannWhitneyU(ra.samples, rb->samples);
    std::string verdict;
    if (!test) {
      verdict = "too few repetitions for a test";
    } else if (test->p_value < kSignificanceAlpha) {
      verdict = change && *change > 0 ? "slower (significant)" : "faster (significant)";
      if (fail_if_slower_pct && change && *change > *fail_if_slower_pct) {
        char line[200];
        std::snprintf(line, sizeof line, "%s %.1f %% slower (p = %.3g)", ra.target.c_str(), *change,
                      test->p_value);
        slower += (slower.empty() ? "" : "; ") + std::string(line);
      }
    } else {
      verdict = "not significant";
    }
    table.AddRow({Cell::Text(ra.target), Cell::Number(ta), Cell::Number(tb), Cell::Number(change),
                  Cell::Number(Gflops(ra)), Cell::Number(Gflops(*rb)),
                  Cell::Number(Change(Gflops(ra), Gflops(*rb))),
                  test ? Cell::Number(test->p_value) : Cell(), Cell::Text(verdict)});
  }
  for (const RunRecord& rb : runs[1]) {
    bool in_a = false;
    for (const RunRecord& r : runs[0])
      in_a = in_a || (r.target == rb.target && r.params == rb.params);
    if (!in_a)
      table.AddRow({Cell::Text(rb.target), Cell(), Cell::Number(Summarize(rb.samples).median),
                    Cell(), Cell(), Cell::Number(Gflops(rb)), Cell(), Cell(),
                    Cell::Text("only in B")});
  }
  std::cout << Render(report, format, text_width);
  if (!slower.empty()) {
    char limit[64];
    std::snprintf(limit, sizeof limit, " (limit %.1f %%)", *fail_if_slower_pct);
    return Fail(err, ErrorKind::kTargetFailed, "significantly slower: " + slower + limit);
  }
  return true;
}

}  // namespace rprof
