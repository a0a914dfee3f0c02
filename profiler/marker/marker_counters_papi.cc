// The PAPI counter backend: one event set per thread, started once and read at every begin and
// end. PAPI_read of a running set costs one read() system call (PAPI's perf_event component
// reads the whole group with PERF_FORMAT_GROUP); starting and stopping per region would cost
// ioctl calls on top, which is why the set runs for the thread's lifetime.
#include <papi.h>
#include <pthread.h>

#include <string>

#include "marker/marker_counters.h"

namespace rprof::marker {

namespace {

std::string PapiReason(const char* what, int code) {
  return std::string(what) + PAPI_strerror(code) + " (PAPI error " + std::to_string(code) + ")";
}

class PapiThreadCounters : public ThreadCounters {
 public:
  PapiThreadCounters(int event_set) : event_set_(event_set) {}

  ~PapiThreadCounters() override {
    if (abandoned_) return;
    long long ignored[kMaxEvents];
    PAPI_stop(event_set_, ignored);
    PAPI_cleanup_eventset(event_set_);
    PAPI_destroy_eventset(&event_set_);
    PAPI_unregister_thread();
  }

  bool Read(long long* values) override { return PAPI_read(event_set_, values) == PAPI_OK; }

  void Abandon() override {
    abandoned_ = true;
    // PAPI knows a thread by pthread_self(), which the child's thread shares with the parent's
    // thread that forked: forgetting that thread lets PAPI register the child's as new and start
    // a fresh event set there. It closes nothing the parent uses.
    PAPI_unregister_thread();
  }

 private:
  int event_set_;
  bool abandoned_ = false;
};

class PapiBackend : public CounterBackend {
 public:
  std::vector<EventStatus> Open(const std::vector<std::string>& names) override {
    std::vector<EventStatus> out;
    for (const std::string& name : names) out.push_back({name, false, ""});
    std::string why;
    if (!StartPapi(&why)) {
      for (EventStatus& status : out) status.reason = why;
      return out;
    }
    int probe = PAPI_NULL;
    int code = PAPI_create_eventset(&probe);
    if (code != PAPI_OK) {
      for (EventStatus& status : out)
        status.reason = PapiReason("PAPI cannot create an event set: ", code);
      return out;
    }
    size_t added = 0;
    for (EventStatus& status : out) {
      if (added == kMaxEvents) {
        status.reason = "more than " + std::to_string(kMaxEvents) + " events asked for";
        continue;
      }
      code = PAPI_add_named_event(probe, status.name.c_str());
      if (code == PAPI_OK) {
        status.ok = true;
        ++added;
      } else {
        status.reason = PapiReason("", code);
      }
    }
    // Events that add one by one may still not run together (hardware counters too few):
    // starting the set is the proof.
    if (added > 0) {
      long long ignored[kMaxEvents];
      code = PAPI_start(probe);
      if (code == PAPI_OK) {
        PAPI_stop(probe, ignored);
      } else {
        for (EventStatus& status : out) {
          if (!status.ok) continue;
          status.ok = false;
          status.reason = PapiReason("the events cannot count together: ", code);
        }
      }
    }
    PAPI_cleanup_eventset(probe);
    PAPI_destroy_eventset(&probe);
    for (const EventStatus& status : out)
      if (status.ok) counted_.push_back(status.name);
    return out;
  }

  std::unique_ptr<ThreadCounters> StartThread(Error* err) override {
    PAPI_register_thread();
    int set = PAPI_NULL;
    int code = PAPI_create_eventset(&set);
    if (code != PAPI_OK) {
      Fail(err, ErrorKind::kEnvironment,
           PapiReason("PAPI cannot create an event set in this thread: ", code));
      return nullptr;
    }
    for (const std::string& name : counted_) {
      code = PAPI_add_named_event(set, name.c_str());
      if (code != PAPI_OK) {
        Fail(err, ErrorKind::kEnvironment,
             PapiReason(("cannot add " + name + " in this thread: ").c_str(), code));
        break;
      }
    }
    if (code == PAPI_OK) {
      code = PAPI_start(set);
      if (code == PAPI_OK) return std::make_unique<PapiThreadCounters>(set);
      Fail(err, ErrorKind::kEnvironment, PapiReason("PAPI_start in this thread: ", code));
    }
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    return nullptr;
  }

 public:
  static bool StartPapi(std::string* why) {
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
      int version = PAPI_library_init(PAPI_VER_CURRENT);
      if (version != PAPI_VER_CURRENT) {
        *why = version > 0 ? "PAPI library version differs from the one rprof-marker was built with"
                           : PapiReason("PAPI cannot start: ", version);
        return false;
      }
      // The library never prints during the run (reasons go to the results file). Only when
      // this library started PAPI: a program that uses PAPI itself keeps its own setting.
      PAPI_set_debug(PAPI_QUIET);
    }
    // Fails harmlessly when the program already initialised PAPI's threads itself.
    PAPI_thread_init(pthread_self);
    return true;
  }

 private:
  std::vector<std::string> counted_;
};

}  // namespace

std::unique_ptr<CounterBackend> CreateCounterBackend() {
  // PAPI turns its whole CPU component off when libpfm4 does not know this CPU; the kernel still
  // counts, through perf_event_open.
  std::string why;
  if (PapiBackend::StartPapi(&why)) {
    int cidx = PAPI_get_component_index("perf_event");
    const PAPI_component_info_t* cpu = PAPI_get_component_info(cidx < 0 ? 0 : cidx);
    if (cpu != nullptr && cpu->disabled)
      return CreatePerfEventBackend("PAPI's perf_event component is disabled: " +
                                    std::string(cpu->disabled_reason));
  }
  return std::make_unique<PapiBackend>();
}

}  // namespace rprof::marker
