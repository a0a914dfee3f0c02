// The backend of the marker library (marker_backend.h): what the calls of rprof/marker.h do
// under rprof. A per-thread region table on the hot path, one process-wide block of results
// appended once at exit in the format marker.h documents. librprof-marker loads it with dlopen
// only when rprof started the program, so none of this (nor libstdc++, nor PAPI) is in a
// program that runs on its own.
//
// Who touches what. Each thread owns a ThreadState and is the only writer of its regions. The
// thread that writes the results (at exit, possibly while other threads still run) reads every
// thread's totals; those totals are relaxed atomics written by their owner with a plain load and
// store (no locked instruction on the hot path), so that read is well defined. Everything else
// process-wide (the list of threads, the totals of threads that ended, declarations) is guarded
// by Process::mu, which the hot path never takes.
#include "marker/marker_backend.h"

#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "marker/marker_counters.h"
#include "rprof/marker.h"

namespace rprof::marker {

namespace {

enum Mode : int { kUnknown = 0, kOff = 1, kOn = 2 };

// Decided by the first call of the process (reading RPROF_MARKER_OUT once); set to kOff again
// once the results are written. kOff makes every call one load and one predictable branch.
std::atomic<int> g_mode{kUnknown};

// A number written only by its owner thread and read by the thread that writes the results.
class Tally {
 public:
  uint64_t Get() const { return value_.load(std::memory_order_relaxed); }
  void Set(uint64_t value) { value_.store(value, std::memory_order_relaxed); }
  void Add(uint64_t n) { Set(Get() + n); }

 private:
  std::atomic<uint64_t> value_{0};
};

// A thread that has entered a region (SpanMember) and its share of the region's open windows.
struct SpanMember {
  const void* thread = nullptr;  // its ThreadState: who it is
  clockid_t clock{};             // its CPU clock, readable from any thread while it lives
  uint64_t cpu_at_open = 0;      // its CPU time when the current window opened (or it first came)
  uint64_t inside_ns = 0;        // its CPU time in its own calls during the current window
  bool in_window = false;        // it entered during the current window
};

// A region's span over the whole process, where counters run. A window is a stretch of time in
// which the region is open in at least one thread (the union of its threads' calls). Over its
// windows: the CPU time of the whole process, of the threads inside in their own calls, and of
// those same threads outside their calls (waiting at a barrier for the others: their own
// bookkeeping, not missing work). What remains is the CPU time of threads that never entered
// it while it was open: work a PMU region does not count, because each thread's counters count
// that thread only (OpenMP's team or a BLAS pool working for a region only the calling thread
// opened; sim counts it). Shared by the region's threads under `mu`, taken at a call's begin and
// end only, beside the counter reads (system calls themselves). Lock order: Process::mu, then
// a span's mu; never the other way.
struct ProcessSpan {
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  uint64_t open = 0;           // threads inside now
  uint64_t opened_cpu_ns = 0;  // the process's CPU time when the current window opened
  uint64_t open_cpu_ns = 0;    // CPU time of the whole process in closed windows
  uint64_t inside_cpu_ns = 0;  // CPU time of the threads inside, in their calls
  uint64_t member_gap_ns = 0;  // CPU time of those threads outside their calls, in windows
  std::vector<SpanMember> members;
};

// One region as seen by one thread.
struct Region {
  std::unique_ptr<char[]> name;  // the library's own copy
  // Owner thread only: the open call.
  uint64_t begin_ns = 0;
  bool begin_counted = false;
  long long begin_values[kMaxEvents] = {};
  ProcessSpan* span = nullptr;  // set at the region's first call where counters run
  bool begin_spanned = false;   // this call joined `span`
  uint64_t begin_thread_cpu_ns = 0;
  // Written by the owner, read at exit.
  Tally depth;  // begins not yet ended: 0 closed, 1 open, more when begun again while open
  Tally calls;
  Tally ns;
  Tally counts[kMaxEvents];
  Tally uncounted_no_counters;  // calls in a thread whose counters did not run
  Tally uncounted_partial;      // calls whose begin or end could not be read
  Tally nested_begins;
  Tally unbalanced_ends;
};

// Regions in fixed chunks so that a region never moves: the lookup cache and the exit reader
// hold plain pointers. A chunk is published to the exit reader by `used` and `next` (release).
struct RegionChunk {
  static constexpr int kSize = 16;
  Region regions[kSize];
  std::atomic<int> used{0};
  std::atomic<RegionChunk*> next{nullptr};
  ~RegionChunk() { delete next.load(std::memory_order_relaxed); }
};

// The key of an empty cache entry: an address no caller can pass.
const char kNoKey = 0;
constexpr int kCacheBits = 6;

struct ThreadState {
  // Direct-mapped cache from a name's address to its region; a hit is confirmed by comparing
  // the text, so a reused buffer holding another name never picks the wrong region.
  struct Entry {
    const char* key;
    Region* region;
  };
  Entry cache[1 << kCacheBits];
  RegionChunk first;
  RegionChunk* last = &first;
  size_t counted = 0;                        // events counted per region in this process
  std::unique_ptr<ThreadCounters> counters;  // nullptr when none or they cannot run here
  // In a forked child, the thread that forked: the parent's counters, let go of at the next
  // call (not in the fork handler: a child that only execs never touches PAPI).
  std::unique_ptr<ThreadCounters> inherited_counters;
  bool restart_counters = false;  // after a fork, in the thread that forked
  std::string counters_error;     // why counters is nullptr; under Process::mu
  clockid_t cpu_clock{};          // this thread's CPU clock (pthread_getcpuclockid)
  bool has_cpu_clock = false;
  ThreadState* next = nullptr;  // Process::threads; under Process::mu

  ThreadState() {
    for (Entry& entry : cache) entry = {&kNoKey, nullptr};
  }
  ~ThreadState() {
    if (inherited_counters != nullptr) inherited_counters->Abandon();
  }
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;
};

// One region merged over threads, for the results.
struct RegionTotals {
  uint64_t calls = 0;
  uint64_t ns = 0;       // summed over threads
  uint64_t max_ns = 0;   // the most one thread spent inside: the region's wall time
  uint64_t threads = 0;  // threads that completed a call
  uint64_t counts[kMaxEvents] = {};
  uint64_t uncounted = 0;
  std::set<std::string> uncounted_reasons;
  uint64_t nested_begins = 0;
  uint64_t unbalanced_ends = 0;
  uint64_t open_at_thread_end = 0;
  uint64_t open_at_exit = 0;
};

struct Declaration {
  double flops = -1;  // negative: not declared
  double bytes = -1;
  const char* precision = nullptr;  // "fp64", "fp32"; nullptr: not declared
  uint64_t conflicts = 0;
  double conflict_flops = -1;  // the last differing declaration
  double conflict_bytes = -1;
  uint64_t invalid = 0;
};

struct Process {
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  std::string out_path;
  std::vector<EventStatus> events;  // as asked for; the ok ones are counted, in this order
  size_t counted = 0;
  std::unique_ptr<CounterBackend> backend;
  pthread_key_t thread_key{};  // its destructor retires a thread's state when the thread ends
  bool have_key = false;
  ThreadState* threads = nullptr;
  std::map<std::string, RegionTotals> retired;  // regions of threads that have ended
  std::map<std::string, Declaration> declared;
  std::map<std::string, std::unique_ptr<ProcessSpan>> spans;  // by region name; never removed
  std::atomic<uint64_t> null_names{0};
  std::atomic<uint64_t> empty_names{0};
  std::atomic<uint64_t> lost_calls{0};  // ignored because memory ran out
  bool written = false;
};

// Created at the first active call and never destroyed: threads may still run markers while
// the process exits, after static destructors. Written under g_init_mu, before g_mode becomes
// kOn (release); readers either saw kOn (acquire) or hold g_init_mu.
Process* g = nullptr;
pthread_mutex_t g_init_mu = PTHREAD_MUTEX_INITIALIZER;

// Only a pointer: a thread_local with a destructor would run before the atexit handler and
// could not be touched by markers called from later destructors. initial-exec: one load.
thread_local ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

class Lock {
 public:
  explicit Lock(pthread_mutex_t* mu) : mu_(mu) { pthread_mutex_lock(mu_); }
  ~Lock() { pthread_mutex_unlock(mu_); }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  pthread_mutex_t* mu_;
};

inline uint64_t ClockNs(clockid_t clock) {
  timespec now;
  clock_gettime(clock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000u + static_cast<uint64_t>(now.tv_nsec);
}

inline uint64_t NowNs() { return ClockNs(CLOCK_MONOTONIC); }

// ---- Spans (ProcessSpan) ----

SpanMember* FindMember(ProcessSpan* span, const void* thread) {
  for (SpanMember& m : span->members)
    if (m.thread == thread) return &m;
  return nullptr;
}

// A member's CPU time outside its calls in the window now ending, added to the span's.
// `self`: the calling thread's own CPU time, for its own entry (its clock id may be stale after
// a fork).
void CloseMemberWindow(ProcessSpan* span, SpanMember* m, const void* self, uint64_t self_cpu) {
  if (!m->in_window) return;
  m->in_window = false;
  uint64_t now = m->thread == self ? self_cpu : ClockNs(m->clock);
  uint64_t spent = now > m->cpu_at_open ? now - m->cpu_at_open : 0;
  if (spent > m->inside_ns) span->member_gap_ns += spent - m->inside_ns;
}

// Under span->mu: the calling thread (state `ts`, CPU time `thread_cpu`) enters the region.
void EnterSpan(ProcessSpan* span, ThreadState* ts, uint64_t thread_cpu) {
  if (span->open == 0) {
    span->opened_cpu_ns = ClockNs(CLOCK_PROCESS_CPUTIME_ID);
    for (SpanMember& m : span->members) {
      m.cpu_at_open = m.thread == ts ? thread_cpu : ClockNs(m.clock);
      m.inside_ns = 0;
      m.in_window = false;
    }
  }
  ++span->open;
  SpanMember* me = FindMember(span, ts);
  if (me == nullptr && ts->has_cpu_clock) {
    // Its first call of the region: what it did before this window's start is not known, so its
    // share of the window counts from now (a first late entry's wait counts as elsewhere).
    try {
      span->members.push_back({ts, ts->cpu_clock, thread_cpu, 0, false});
      me = &span->members.back();
    } catch (...) {
      return;  // out of memory: its gaps count as elsewhere
    }
  }
  if (me != nullptr) me->in_window = true;
}

// Under span->mu: the calling thread leaves the region, having spent `own` CPU inside.
void ExitSpan(ProcessSpan* span, ThreadState* ts, uint64_t thread_cpu, uint64_t own) {
  span->inside_cpu_ns += own;
  if (SpanMember* me = FindMember(span, ts)) me->inside_ns += own;
  if (span->open == 0 || --span->open > 0) return;
  uint64_t cpu = ClockNs(CLOCK_PROCESS_CPUTIME_ID);
  if (cpu > span->opened_cpu_ns) span->open_cpu_ns += cpu - span->opened_cpu_ns;
  for (SpanMember& m : span->members) CloseMemberWindow(span, &m, ts, thread_cpu);
}

template <typename Fn>
void ForEachRegion(ThreadState* ts, Fn&& fn) {
  for (RegionChunk* chunk = &ts->first; chunk != nullptr;
       chunk = chunk->next.load(std::memory_order_acquire)) {
    int used = chunk->used.load(std::memory_order_acquire);
    for (int i = 0; i < used; ++i) fn(chunk->regions[i]);
  }
}

// ---- Results ----

void AddThreadRegion(const ThreadState& ts, size_t counted, const Region& region,
                     RegionTotals* totals) {
  uint64_t calls = region.calls.Get();
  uint64_t ns = region.ns.Get();
  totals->calls += calls;
  totals->ns += ns;
  if (calls > 0) {
    ++totals->threads;
    if (ns > totals->max_ns) totals->max_ns = ns;
  }
  for (size_t k = 0; k < counted; ++k) totals->counts[k] += region.counts[k].Get();
  uint64_t none = region.uncounted_no_counters.Get();
  uint64_t partial = region.uncounted_partial.Get();
  totals->uncounted += none + partial;
  if (none > 0)
    totals->uncounted_reasons.insert(ts.counters_error.empty() ? "the counters did not run"
                                                               : ts.counters_error);
  if (partial > 0)
    totals->uncounted_reasons.insert(
        "the counters did not run for the whole call (a fork during the call, or a failed read)");
  totals->nested_begins += region.nested_begins.Get();
  totals->unbalanced_ends += region.unbalanced_ends.Get();
}

void AppendField(std::string* out, std::string_view text) {
  out->push_back('\t');
  for (char c : text) out->push_back(c == '\t' || c == '\n' || c == '\r' ? ' ' : c);
}

void AppendUint(std::string* out, uint64_t value) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out->append(buffer, result.ptr);
}

// Shortest text that reads back to the same double; never depends on the locale.
void AppendReal(std::string* out, double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out->append(buffer, result.ptr);
}

void AppendSeconds(std::string* out, uint64_t ns) {
  AppendUint(out, ns / 1000000000u);
  std::string fraction = std::to_string(ns % 1000000000u);
  out->push_back('.');
  out->append(9 - fraction.size(), '0');
  out->append(fraction);
}

void AppendDeclared(std::string* out, double value) {
  out->push_back('\t');
  if (value < 0)
    out->push_back('-');
  else
    AppendReal(out, value);
}

void AppendProblem(std::string* out, std::string_view region, const std::string& message) {
  out->append("problem");
  AppendField(out, region);
  AppendField(out, message);
  out->push_back('\n');
}

std::string Times(uint64_t n) { return n == 1 ? "once" : std::to_string(n) + " times"; }

std::string RealText(double value) {
  std::string text;
  AppendReal(&text, value);
  return text;
}

// The block of this process. Called with g->mu held.
std::string FormatBlock() {
  std::map<std::string, RegionTotals> regions = g->retired;
  for (ThreadState* ts = g->threads; ts != nullptr; ts = ts->next)
    ForEachRegion(ts, [&](const Region& region) {
      RegionTotals& totals = regions[region.name.get()];
      AddThreadRegion(*ts, g->counted, region, &totals);
      if (region.depth.Get() > 0) ++totals.open_at_exit;
    });

  std::string out = "rprof-markers";
  AppendField(&out, std::to_string(RPROF_MARKER_FORMAT_VERSION));
  AppendField(&out, std::to_string(getpid()));
  out.push_back('\n');
  for (size_t i = 0; i < g->events.size(); ++i) {
    const EventStatus& event = g->events[i];
    out.append("event");
    AppendField(&out, std::to_string(i));
    AppendField(&out, event.name);
    AppendField(&out, event.ok ? "ok" : "missing");
    AppendField(&out, event.reason);
    out.push_back('\n');
  }

  for (const auto& [name, totals] : regions) {
    if (totals.calls == 0) continue;
    out.append("region");
    AppendField(&out, name);
    out.push_back('\t');
    AppendUint(&out, totals.calls);
    out.push_back('\t');
    AppendSeconds(&out, totals.ns);
    out.push_back('\t');
    AppendSeconds(&out, totals.max_ns);
    out.push_back('\t');
    AppendUint(&out, totals.threads);
    auto declared = g->declared.find(name);
    AppendDeclared(&out, declared == g->declared.end() ? -1 : declared->second.flops);
    AppendDeclared(&out, declared == g->declared.end() ? -1 : declared->second.bytes);
    // Version 3: the precision of the declared FLOPs.
    AppendField(&out, declared == g->declared.end() || !declared->second.precision
                          ? "-"
                          : declared->second.precision);
    size_t k = 0;
    for (const EventStatus& event : g->events) {
      out.push_back('\t');
      if (event.ok && totals.uncounted == 0)
        AppendUint(&out, totals.counts[k]);
      else
        out.push_back('-');
      if (event.ok) ++k;
    }
    out.push_back('\n');
  }

  // Version 4: each counted region's span over the process (ProcessSpan); a window still open
  // (a thread inside at exit) is counted up to now.
  const uint64_t cpu_now = ClockNs(CLOCK_PROCESS_CPUTIME_ID);
  const uint64_t self_cpu = ClockNs(CLOCK_THREAD_CPUTIME_ID);
  for (const auto& [name, span] : g->spans) {
    auto totals = regions.find(name);
    if (totals == regions.end() || totals->second.calls == 0) continue;
    Lock lock(&span->mu);
    uint64_t open = span->open_cpu_ns;
    uint64_t gaps = span->member_gap_ns;
    if (span->open > 0) {
      if (cpu_now > span->opened_cpu_ns) open += cpu_now - span->opened_cpu_ns;
      ProcessSpan now = {};
      for (SpanMember m : span->members) CloseMemberWindow(&now, &m, t_state, self_cpu);
      gaps += now.member_gap_ns;
    }
    out.append("span");
    AppendField(&out, name);
    out.push_back('\t');
    AppendSeconds(&out, open);
    out.push_back('\t');
    AppendSeconds(&out, span->inside_cpu_ns);
    out.push_back('\t');
    AppendSeconds(&out, gaps);
    out.push_back('\n');
  }

  for (const auto& [name, totals] : regions) {
    if (totals.uncounted > 0 && g->counted > 0) {
      std::string why;
      for (const std::string& reason : totals.uncounted_reasons)
        why += (why.empty() ? "" : "; ") + reason;
      AppendProblem(&out, name,
                    std::to_string(totals.uncounted) + " of " + std::to_string(totals.calls) +
                        " calls ran without counters (" + why +
                        "); the region's event totals are left out");
    }
    if (totals.nested_begins > 0)
      AppendProblem(&out, name,
                    "begun again while already open in the same thread, " +
                        Times(totals.nested_begins) +
                        "; nested uses of one name count as one call, from the outer begin "
                        "to the outer end");
    if (totals.unbalanced_ends > 0)
      AppendProblem(&out, name,
                    "ended without a matching begin in that thread, " +
                        Times(totals.unbalanced_ends) + "; those ends were ignored");
    if (totals.open_at_thread_end > 0)
      AppendProblem(&out, name,
                    "still open when its thread ended, " + Times(totals.open_at_thread_end) +
                        "; those calls are not counted");
    if (totals.open_at_exit > 0)
      AppendProblem(&out, name,
                    "still open at process exit in " + std::to_string(totals.open_at_exit) +
                        (totals.open_at_exit == 1 ? " thread" : " threads") +
                        "; that call is not counted");
  }
  for (const auto& [name, declaration] : g->declared) {
    if (declaration.conflicts > 0)
      AppendProblem(&out, name,
                    "declared again with different values, " + Times(declaration.conflicts) +
                        " (last: flops " + RealText(declaration.conflict_flops) + ", bytes " +
                        RealText(declaration.conflict_bytes) + "); the first declaration is kept");
    if (declaration.invalid > 0)
      AppendProblem(&out, name,
                    "declared with a value that is not a finite number, " +
                        Times(declaration.invalid) + "; ignored");
  }
  if (uint64_t n = g->null_names.load(std::memory_order_relaxed); n > 0)
    AppendProblem(&out, "*", "a null region name was passed " + Times(n) + "; ignored");
  if (uint64_t n = g->empty_names.load(std::memory_order_relaxed); n > 0)
    AppendProblem(&out, "*", "an empty region name was passed " + Times(n) + "; ignored");
  if (uint64_t n = g->lost_calls.load(std::memory_order_relaxed); n > 0)
    AppendProblem(&out, "*", "out of memory: " + std::to_string(n) + " marker calls were ignored");
  return out;
}

bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Once per process, at exit or when the library is unloaded, whichever comes first. Nothing is
// printed on failure: rprof finds no block for this process and says so.
void WriteResults() {
  if (g_mode.load(std::memory_order_acquire) != kOn) return;
  std::string block;
  std::string path;
  {
    Lock lock(&g->mu);
    if (g->written) return;
    g->written = true;
    try {
      block = FormatBlock();
      path = g->out_path;
    } catch (...) {
      block.clear();
    }
  }
  g_mode.store(kOff, std::memory_order_release);
  if (block.empty()) return;
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  WriteAll(fd, block);
  close(fd);
}

void WriteResultsAtExit() { WriteResults(); }

__attribute__((destructor)) void OnUnload() {
  WriteResults();
  // The key's destructor lives in this library: threads that end after it is unloaded must not
  // call it. Under g_init_mu: another thread may be making the process's first call right now.
  Lock lock(&g_init_mu);
  if (g != nullptr && g->have_key) {
    pthread_key_delete(g->thread_key);
    g->have_key = false;
  }
}

// ---- Threads ----

// pthread key destructor: a thread ends; its totals join the retired ones.
void ThreadEnded(void* arg) {
  ThreadState* ts = static_cast<ThreadState*>(arg);
  if (t_state == ts) t_state = nullptr;
  {
    Lock lock(&g->mu);
    for (ThreadState** link = &g->threads; *link != nullptr; link = &(*link)->next) {
      if (*link == ts) {
        *link = ts->next;
        break;
      }
    }
    if (!g->written) {
      try {
        ForEachRegion(ts, [&](const Region& region) {
          RegionTotals& totals = g->retired[region.name.get()];
          AddThreadRegion(*ts, g->counted, region, &totals);
          if (region.depth.Get() > 0) ++totals.open_at_thread_end;
        });
      } catch (...) {
        g->lost_calls.fetch_add(1, std::memory_order_relaxed);
      }
    }
    // Its spans lose a member: a call still open ends here (its time inside is its own), and
    // its share of an open window is settled while its clock can still be read.
    const uint64_t thread_cpu = ClockNs(CLOCK_THREAD_CPUTIME_ID);
    ForEachRegion(ts, [&](Region& region) {
      ProcessSpan* span = region.span;
      if (span == nullptr) return;
      Lock span_lock(&span->mu);
      if (region.begin_spanned) {
        region.begin_spanned = false;
        ExitSpan(span, ts, thread_cpu, thread_cpu - region.begin_thread_cpu_ns);
      }
      for (size_t i = 0; i < span->members.size(); ++i) {
        if (span->members[i].thread != ts) continue;
        CloseMemberWindow(span, &span->members[i], ts, thread_cpu);
        span->members.erase(span->members.begin() + static_cast<long>(i));
        break;
      }
    });
  }
  delete ts;  // stops this thread's counters
}

std::vector<std::string> SplitEvents(const char* list) {
  std::vector<std::string> names;
  if (list == nullptr) return names;
  std::string_view rest(list);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
    if (name.empty()) continue;
    bool seen = false;
    for (const std::string& other : names) seen = seen || other == name;
    if (!seen) names.emplace_back(name);
  }
  return names;
}

void BeforeFork() {
  pthread_mutex_lock(&g_init_mu);
  pthread_mutex_lock(&g->mu);
}

void AfterForkInParent() {
  pthread_mutex_unlock(&g->mu);
  pthread_mutex_unlock(&g_init_mu);
}

// The child starts with no results of its own: the parent reports what ran before the fork.
// Only the thread that forked exists here; the others' states are dropped, not freed (their
// counters belong to PAPI's records of threads that do not exist in this process).
void AfterForkInChild() {
  ThreadState* self = t_state;
  g->threads = nullptr;
  g->retired.clear();
  g->written = false;
  g->null_names = 0;
  g->empty_names = 0;
  g->lost_calls = 0;
  for (auto& [name, declaration] : g->declared) {
    declaration.conflicts = 0;
    declaration.invalid = 0;
  }
  // Spans start again with the one thread there is: open where it is inside.
  for (auto& [name, span] : g->spans) {
    pthread_mutex_init(&span->mu, nullptr);  // another thread may have held it at the fork
    span->open = 0;
    span->open_cpu_ns = 0;
    span->inside_cpu_ns = 0;
    span->member_gap_ns = 0;
    span->members.clear();
  }
  if (self != nullptr)
    self->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &self->cpu_clock) == 0;
  if (self != nullptr) {
    self->next = nullptr;
    g->threads = self;
    uint64_t now = NowNs();
    const uint64_t thread_cpu = ClockNs(CLOCK_THREAD_CPUTIME_ID);
    ForEachRegion(self, [&](Region& region) {
      region.calls.Set(0);
      region.ns.Set(0);
      for (Tally& count : region.counts) count.Set(0);
      region.uncounted_no_counters.Set(0);
      region.uncounted_partial.Set(0);
      region.nested_begins.Set(0);
      region.unbalanced_ends.Set(0);
      // A call open across the fork is the child's from here on.
      region.begin_ns = now;
      region.begin_counted = false;
      if (region.begin_spanned && region.depth.Get() > 0) {
        EnterSpan(region.span, self, thread_cpu);
        region.begin_thread_cpu_ns = thread_cpu;
      } else {
        region.begin_spanned = false;
      }
    });
    if (self->counters != nullptr) {
      self->inherited_counters = std::move(self->counters);
      self->restart_counters = true;
      self->counters_error = "the counters were restarting after a fork";
    }
  }
  pthread_mutex_unlock(&g->mu);
  pthread_mutex_unlock(&g_init_mu);
}

bool StartProcess(const char* out_path, const char* event_list) {
  auto process = std::make_unique<Process>();
  process->out_path = out_path;
  process->backend = CreateCounterBackend();
  std::vector<std::string> names = SplitEvents(event_list);
  if (!names.empty()) process->events = process->backend->Open(names);
  for (const EventStatus& event : process->events)
    if (event.ok) ++process->counted;
  process->have_key = pthread_key_create(&process->thread_key, ThreadEnded) == 0;
  g = process.release();
  atexit(WriteResultsAtExit);
  pthread_atfork(BeforeFork, AfterForkInParent, AfterForkInChild);
  return true;
}

// The first call of the process, in whichever thread makes it.
__attribute__((noinline, cold)) int InitOnce() {
  Lock lock(&g_init_mu);
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode == kUnknown) {
    mode = kOff;
    const char* out_path = getenv("RPROF_MARKER_OUT");
    if (out_path != nullptr && *out_path != '\0') {
      try {
        if (StartProcess(out_path, getenv("RPROF_MARKER_EVENTS"))) mode = kOn;
      } catch (...) {
        mode = kOff;  // out of memory before anything was measured: stay inactive
      }
    }
    g_mode.store(mode, std::memory_order_release);
  }
  return mode;
}

// This thread's counters, or null with *err. Never throws: the marker API is called from C.
std::unique_ptr<ThreadCounters> StartCounters(Error* err) {
  try {
    return g->backend->StartThread(err);
  } catch (...) {
    try {
      Fail(err, ErrorKind::kEnvironment, "out of memory");
    } catch (...) {
    }
    return nullptr;
  }
}

// Sets the thread's counters and why they are missing, under the lock.
void KeepCounters(ThreadState* ts, std::unique_ptr<ThreadCounters> counters,
                  const std::string& why) {
  ts->counters = std::move(counters);
  try {
    ts->counters_error = why;
  } catch (...) {
  }
}

// The first call in a thread (and the first of the process).
__attribute__((noinline, cold)) ThreadState* EnterThread() {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode == kUnknown) mode = InitOnce();
  if (mode != kOn) return nullptr;
  ThreadState* ts = new (std::nothrow) ThreadState;
  if (ts == nullptr) {
    g->lost_calls.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  ts->counted = g->counted;
  ts->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &ts->cpu_clock) == 0;
  std::unique_ptr<ThreadCounters> counters;
  Error why;
  if (ts->counted > 0) counters = StartCounters(&why);
  {
    Lock lock(&g->mu);
    KeepCounters(ts, std::move(counters), why.message);
    ts->next = g->threads;
    g->threads = ts;
    if (g->have_key) pthread_setspecific(g->thread_key, ts);
  }
  t_state = ts;
  return ts;
}

// After a fork, the thread that forked starts fresh counters at its next call.
__attribute__((noinline, cold)) ThreadCounters* RestartCounters(ThreadState* ts) {
  if (!ts->restart_counters) return nullptr;
  ts->restart_counters = false;
  if (ts->inherited_counters != nullptr) {
    ts->inherited_counters->Abandon();
    ts->inherited_counters.reset();
  }
  Error why;
  std::unique_ptr<ThreadCounters> counters = StartCounters(&why);
  Lock lock(&g->mu);
  KeepCounters(ts, std::move(counters), why.message);
  return ts->counters.get();
}

// ---- Lookup ----

inline size_t CacheIndex(const char* name) {
  return static_cast<size_t>((reinterpret_cast<uintptr_t>(name) * 0x9E3779B97F4A7C15ull) >>
                             (64 - kCacheBits));
}

Region* AddRegion(ThreadState* ts, const char* name) {
  size_t length = std::strlen(name);
  std::unique_ptr<char[]> copy(new (std::nothrow) char[length + 1]);
  if (copy == nullptr) return nullptr;
  std::memcpy(copy.get(), name, length + 1);
  RegionChunk* chunk = ts->last;
  int used = chunk->used.load(std::memory_order_relaxed);
  if (used == RegionChunk::kSize) {
    RegionChunk* fresh = new (std::nothrow) RegionChunk;
    if (fresh == nullptr) return nullptr;
    chunk->next.store(fresh, std::memory_order_release);
    ts->last = chunk = fresh;
    used = 0;
  }
  chunk->regions[used].name = std::move(copy);
  chunk->used.store(used + 1, std::memory_order_release);
  return &chunk->regions[used];
}

__attribute__((noinline)) Region* LookupSlow(ThreadState* ts, const char* name) {
  if (name == nullptr || *name == '\0') {
    (name == nullptr ? g->null_names : g->empty_names).fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  Region* found = nullptr;
  ForEachRegion(ts, [&](Region& region) {
    if (found == nullptr && std::strcmp(region.name.get(), name) == 0) found = &region;
  });
  if (found == nullptr) found = AddRegion(ts, name);
  if (found == nullptr) {
    g->lost_calls.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  ts->cache[CacheIndex(name)] = {name, found};
  return found;
}

// The region's process span, created by its first call in any thread. Cold: once per region
// and thread. Null when memory ran out (the region then has no span line).
__attribute__((noinline, cold)) ProcessSpan* FindSpan(Region* region) {
  Lock lock(&g->mu);
  try {
    std::unique_ptr<ProcessSpan>& span = g->spans[region->name.get()];
    if (span == nullptr) span = std::make_unique<ProcessSpan>();
    region->span = span.get();
  } catch (...) {
    g->lost_calls.fetch_add(1, std::memory_order_relaxed);
  }
  return region->span;
}

// Joins the region's span at a call's begin (counters run in this thread).
inline void JoinSpan(ThreadState* ts, Region* region) {
  ProcessSpan* span = region->span != nullptr ? region->span : FindSpan(region);
  region->begin_spanned = span != nullptr;
  if (span == nullptr) return;
  const uint64_t thread_cpu = ClockNs(CLOCK_THREAD_CPUTIME_ID);
  region->begin_thread_cpu_ns = thread_cpu;
  Lock lock(&span->mu);
  EnterSpan(span, ts, thread_cpu);
}

// Leaves it at the call's end.
inline void LeaveSpan(ThreadState* ts, Region* region) {
  if (!region->begin_spanned) return;
  region->begin_spanned = false;
  const uint64_t thread_cpu = ClockNs(CLOCK_THREAD_CPUTIME_ID);
  Lock lock(&region->span->mu);
  ExitSpan(region->span, ts, thread_cpu, thread_cpu - region->begin_thread_cpu_ns);
}

inline Region* Lookup(ThreadState* ts, const char* name) {
  const ThreadState::Entry& entry = ts->cache[CacheIndex(name)];
  if (__builtin_expect(entry.key == name, 1) && std::strcmp(entry.region->name.get(), name) == 0)
    return entry.region;
  return LookupSlow(ts, name);
}

// ---- The calls ----

inline void Begin(const char* name) {
  ThreadState* ts = t_state;
  if (__builtin_expect(ts == nullptr, 0) && (ts = EnterThread()) == nullptr) return;
  Region* region = Lookup(ts, name);
  if (region == nullptr) return;
  uint64_t depth = region->depth.Get();
  region->depth.Set(depth + 1);
  if (depth != 0) {
    region->nested_begins.Add(1);
    return;
  }
  if (ts->counted != 0) {
    JoinSpan(ts, region);
    ThreadCounters* counters = ts->counters.get();
    if (counters == nullptr) counters = RestartCounters(ts);
    region->begin_counted = counters != nullptr && counters->Read(region->begin_values);
  }
  // Counters first, clock last: the time excludes the counter read.
  region->begin_ns = NowNs();
}

inline void End(const char* name) {
  uint64_t now = NowNs();  // clock first, counters after
  ThreadState* ts = t_state;
  if (__builtin_expect(ts == nullptr, 0) && (ts = EnterThread()) == nullptr) return;
  Region* region = Lookup(ts, name);
  if (region == nullptr) return;
  uint64_t depth = region->depth.Get();
  if (depth == 0) {
    region->unbalanced_ends.Add(1);
    return;
  }
  region->depth.Set(depth - 1);
  if (depth > 1) return;
  if (ts->counted != 0) {
    ThreadCounters* counters = ts->counters.get();
    long long values[kMaxEvents];
    if (counters == nullptr) {
      region->uncounted_no_counters.Add(1);
    } else if (region->begin_counted && counters->Read(values)) {
      for (size_t k = 0; k < ts->counted; ++k) {
        long long delta = values[k] - region->begin_values[k];
        region->counts[k].Add(delta > 0 ? static_cast<uint64_t>(delta) : 0);
      }
    } else {
      region->uncounted_partial.Add(1);
    }
    LeaveSpan(ts, region);
  }
  region->ns.Add(now - region->begin_ns);
  region->calls.Add(1);
}

// `precision`: "fp64", "fp32" (rprof_region_declare_fp64/fp32), or nullptr (not said).
void Declare(const char* name, double flops, double bytes, const char* precision) {
  if (name == nullptr || *name == '\0') {
    (name == nullptr ? g->null_names : g->empty_names).fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Lock lock(&g->mu);
  try {
    Declaration& declaration = g->declared[name];
    if (!std::isfinite(flops) || !std::isfinite(bytes)) {
      ++declaration.invalid;
      return;
    }
    bool differs = false;
    auto keep = [&differs](double* kept, double value) {
      if (value < 0) return;  // this part left undeclared
      if (*kept < 0)
        *kept = value;
      else if (*kept != value)
        differs = true;
    };
    keep(&declaration.flops, flops);
    keep(&declaration.bytes, bytes);
    if (precision != nullptr) {
      if (declaration.precision == nullptr)
        declaration.precision = precision;
      else if (std::string_view(declaration.precision) != precision)
        differs = true;
    }
    if (differs) {
      ++declaration.conflicts;
      declaration.conflict_flops = flops;
      declaration.conflict_bytes = bytes;
    }
  } catch (...) {
    g->lost_calls.fetch_add(1, std::memory_order_relaxed);
  }
}

// The entry points, as the table hands them to librprof-marker. The check of the cached mode
// is the only work once the results are written.

void RegionBegin(const char* name) noexcept {
  if (__builtin_expect(g_mode.load(std::memory_order_acquire) == kOff, 0)) return;
  Begin(name);
}

void RegionEnd(const char* name) noexcept {
  if (__builtin_expect(g_mode.load(std::memory_order_acquire) == kOff, 0)) return;
  End(name);
}

void RegionDeclare(const char* name, double flops, double bytes) noexcept {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode == kOff) return;
  if (mode == kUnknown && InitOnce() != kOn) return;
  Declare(name, flops, bytes, nullptr);
}

void RegionDeclarePrecision(const char* name, double flops, double bytes, int precision) noexcept {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode == kOff) return;
  if (mode == kUnknown && InitOnce() != kOn) return;
  Declare(name, flops, bytes, precision == 64 ? "fp64" : precision == 32 ? "fp32" : nullptr);
}

int MarkersActive() noexcept {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode == kUnknown) mode = InitOnce();
  return mode == kOn;
}

constexpr rprof_marker_backend kBackend = {RegionBegin, RegionEnd, RegionDeclare, MarkersActive,
                                           RegionDeclarePrecision};

}  // namespace

}  // namespace rprof::marker

// The symbols the backend exports (rprof-marker-backend.map). Version 2's table is version 1's
// with one function more at its end: a static archive of an older rprof linked into a program
// asks for version 1 and reads only the first four.
extern "C" __attribute__((visibility("default"))) const rprof_marker_backend*
rprof_marker_backend_2() {
  return &rprof::marker::kBackend;
}

extern "C" __attribute__((visibility("default"))) const rprof_marker_backend*
rprof_marker_backend_1() {
  return &rprof::marker::kBackend;
}
