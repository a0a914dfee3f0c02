// rprof events: the counter events of this CPU — PAPI presets, perf software events, the events
// of this CPU's metric groups, and with --all every native event libpfm4 lists — each marked
// available here or not, with the reason. "Available" is decided by adding the event to a real
// PAPI event set (CreatePmuSession), never by the event table; native hardware events are not
// tried when the PMU probe (DiagnosePmu) already found no hardware counters, and events of PMUs
// that are not on this machine are never tried.
#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <utility>

#include "cli/command.h"
#include "cli/options.h"
#include "core/text.h"
#include "counters/groups_location.h"
#include "counters/papi/papi_presets.h"
#include "counters/papi/papi_session.h"
#include "counters/pmu/group_library.h"
#include "counters/pmu/pfm_events.h"
#include "counters/pmu_diagnosis.h"
#include "report/render.h"

namespace rprof {

namespace {

enum class Kind { kPreset, kSoftware, kNative };
enum class Here { kAvailable, kUnavailable, kNotOnThisMachine };

// Indexed by Kind, in its order.
constexpr const char* kKindNames[] = {"preset", "software", "native"};
const char* KindName(Kind kind) { return kKindNames[static_cast<int>(kind)]; }

// Stable JSON/CSV values, indexed by Here, in its order.
constexpr const char* kHereKeys[] = {"available", "unavailable", "not_on_this_machine"};
const char* HereKey(Here here) { return kHereKeys[static_cast<int>(here)]; }

// What the table shows.
constexpr const char* kHereTexts[] = {"yes", "no", "not on this machine"};
const char* HereText(Here here) { return kHereTexts[static_cast<int>(here)]; }

struct EventRow {
  std::string name;  // as PAPI takes it: "PAPI_TOT_INS", "perf::TASK-CLOCK", "icx::L1D:REPLACEMENT"
  Kind kind = Kind::kNative;
  std::string pmu;  // libpfm4's PMU name; "" for presets
  std::string description;
  Here here = Here::kUnavailable;
  std::string reason;               // why not here; "" when available
  std::string remedy;               // the way out, when one is known
  std::vector<std::string> groups;  // "generic/FLOPS_DP": the metric groups that read it
};

EventRow MakeRow(std::string name, Kind kind, std::string pmu, std::string description) {
  EventRow row;
  row.name = std::move(name);
  row.kind = kind;
  row.pmu = std::move(pmu);
  row.description = std::move(description);
  return row;
}

bool IsSoftwarePerfEvent(const PfmEvent& e) {
  return e.name.rfind("PERF_COUNT_SW_", 0) == 0 || e.description.rfind("PERF_COUNT_SW_", 0) == 0;
}

std::string PmuOf(const std::string& name) {
  size_t colons = name.find("::");
  return colons == std::string::npos ? "" : name.substr(0, colons);
}

// Decides what each row is worth here; each distinct event is tried at most once.
class Prober {
 public:
  Prober() : diagnosis_(DiagnosePmu()), cpuid_pmu_(CpuidCorePmuName()) {
    for (PfmPmu& p : ListPmus()) pmus_[p.name] = p;
  }

  const PfmPmu* FindPmu(const std::string& name) const {
    auto it = pmus_.find(name);
    return it == pmus_.end() ? nullptr : &it->second;
  }

  // Fills here/reason/remedy of a row whose name, kind and pmu are set.
  void Decide(EventRow* row) {
    if (row->kind == Kind::kNative) {
      const PfmPmu* pmu = FindPmu(row->pmu);
      if (!pmu || !pmu->present) {
        row->here = Here::kNotOnThisMachine;
        row->reason = "no " + row->pmu + " PMU on this machine (" +
                      (cpuid_pmu_.empty() ? std::string("libpfm4 does not recognise this CPU")
                                          : "libpfm4 reads this CPU as " + cpuid_pmu_) +
                      ")";
        return;
      }
      // A hardware PMU the probe found unusable: thousands of tries would all fail the same way.
      if (pmu->type != PfmPmu::Type::kOsGeneric && !diagnosis_.hardware_counters) {
        SetDiagnosis(row);
        return;
      }
    }
    auto [it, fresh] = tried_.try_emplace(row->name);
    if (fresh) it->second = Try(row->name);
    row->here = it->second.empty() ? Here::kAvailable : Here::kUnavailable;
    row->reason = it->second;
    // PAPI's explanation of a hardware event ends in the probe's cause and remedy: split them,
    // so the table can give the remedy once.
    if (!diagnosis_.hardware_counters && !diagnosis_.cause.empty() &&
        row->reason.rfind(diagnosis_.cause, 0) == 0)
      SetDiagnosis(row);
  }

  void SetDiagnosis(EventRow* row) const {
    row->here = Here::kUnavailable;
    row->reason = diagnosis_.cause;
    row->remedy = diagnosis_.remedy;
  }

  const std::string& cpuid_pmu() const { return cpuid_pmu_; }

 private:
  // "" when the event can be added to a PAPI event set, else the reason.
  static std::string Try(const std::string& name) {
    Error err;
    std::unique_ptr<CounterSession> session = CreatePmuSession({name}, true, &err);
    if (!session) return err.message;
    for (const Metric& m : session->Results(1))
      if (m.name == name && !m.value) return m.note.empty() ? "cannot be added" : m.note;
    return "";
  }

  const PmuDiagnosis& diagnosis_;
  std::string cpuid_pmu_;
  std::map<std::string, PfmPmu> pmus_;
  std::map<std::string, std::string> tried_;
};

// Rows keyed by event name, in insertion order.
class RowList {
 public:
  EventRow* Add(EventRow row) {
    auto it = index_.find(row.name);
    if (it != index_.end()) return &rows_[it->second];
    index_[row.name] = rows_.size();
    rows_.push_back(std::move(row));
    return &rows_.back();
  }
  std::vector<EventRow>& rows() { return rows_; }

 private:
  std::vector<EventRow> rows_;
  std::map<std::string, size_t> index_;
};

// Native events of a PMU as PAPI names them: one row per unit mask, the event alone when it has
// none; with software_only, perf's software events alone, each under one name. kUsage for a PMU
// libpfm4 does not know.
bool AddPmuEvents(const std::string& pmu, bool software_only, RowList* rows, Error* err) {
  std::vector<PfmEvent> events;
  Error why;
  if (!ListPmuEvents(pmu, &events, &why))
    return Fail(err, ErrorKind::kUsage, "--pmu " + pmu + ": " + why.message);
  std::set<std::string> seen_software;  // perf lists each software event under several aliases
  for (const PfmEvent& e : events) {
    bool software = pmu == "perf" && IsSoftwarePerfEvent(e);
    if (software_only) {
      if (!software) continue;
      // One name per software event: the short alias ("TASK-CLOCK") rather than the
      // PERF_COUNT_SW_ name the alias stands for.
      std::string key = e.description.rfind("PERF_COUNT_SW_", 0) == 0 ? e.description : e.name;
      if (e.name.rfind("PERF_COUNT_SW_", 0) == 0 || !seen_software.insert(key).second) continue;
    }
    Kind kind = software ? Kind::kSoftware : Kind::kNative;
    std::string base = pmu + "::" + e.name;
    if (e.umasks.empty()) {
      rows->Add(MakeRow(base, kind, pmu, e.description));
      continue;
    }
    for (const PfmUmask& u : e.umasks)
      rows->Add(MakeRow(base + ":" + u.name, kind, pmu, e.description + ": " + u.description));
  }
  return true;
}

// Marks (and adds) the events of every group of `pmu` in the library.
bool AddGroupEvents(const GroupLibrary& library, const std::string& pmu, RowList* rows,
                    Error* err) {
  for (const std::string& name : library.ListGroups(pmu)) {
    MetricGroup group;
    Error why;
    if (!library.LoadGroup(pmu, name, &group, &why))
      return Fail(err, ErrorKind::kEnvironment,
                  "metric group " + pmu + "/" + name + ": " + why.message);
    for (const GroupEvent& ge : group.events) {
      std::string pmu_of = PmuOf(ge.event);
      Kind kind = pmu_of.empty() ? Kind::kPreset : Kind::kNative;
      EventRow* added = rows->Add(MakeRow(ge.event, kind, pmu_of, group.description));
      std::string tag = pmu + "/" + name;
      if (std::find(added->groups.begin(), added->groups.end(), tag) == added->groups.end())
        added->groups.push_back(tag);
    }
  }
  return true;
}

}  // namespace

bool EventsCommand(CommandContext&, const std::vector<std::string>& args, Error* err) {
  CommandLine cl(
      "events", "[--all] [--pmu NAME]",
      "Lists counter events and whether each can be counted here, found by adding it to a PAPI "
      "event set, with the reason when it cannot. Default: the PAPI presets PAPI defines for "
      "this CPU, perf's software events and the events of this CPU's metric groups. --all adds "
      "every preset and every native event of the PMUs libpfm4 finds on this CPU; --pmu NAME "
      "lists the native events of one PMU, present or not (events of a PMU that is not here are "
      "marked \"not on this machine\" without being tried).");
  std::string pmu_name;
  cl.Add("all", "every preset and every native event of the PMUs libpfm4 finds on this CPU");
  cl.Add("pmu", po::value(&pmu_name),
         "only the native events of this libpfm4 PMU (any PMU libpfm4 knows, e.g. icx)");
  if (!cl.Parse(args, err)) return false;
  if (cl.help_shown()) return true;
  bool all = cl.Has("all");

  Error pfm_why;
  if (!InitPfm(&pfm_why) && !pmu_name.empty())
    return Fail(err, ErrorKind::kEnvironment, "--pmu " + pmu_name + ": " + pfm_why.message);

  Prober prober;
  Error host_why;
  std::string host_pmu = HostCorePmuName(&host_why);
  GroupLibrary library(GroupsDataDir());
  std::string group_pmu = library.ResolvePmu(host_pmu);

  RowList rows;
  if (!pmu_name.empty()) {
    if (!AddPmuEvents(pmu_name, false, &rows, err)) return false;
    if (!library.ListGroups(pmu_name).empty() && !AddGroupEvents(library, pmu_name, &rows, err))
      return false;
  } else {
    std::vector<PapiPreset> presets;
    Error papi_why;
    if (!ListPapiPresets(&presets, &papi_why))
      return Fail(err, papi_why.kind, "events: " + papi_why.message);
    for (const PapiPreset& p : presets) {
      if (!p.defined && !all) continue;
      EventRow* row = rows.Add(MakeRow(p.name, Kind::kPreset, "", p.description));
      if (!p.defined) {
        row->here = Here::kNotOnThisMachine;
        row->reason = "PAPI defines no native events for this preset on this CPU";
      }
    }
    if (all) {
      for (const PfmPmu& p : ListPmus())
        if (p.present && !AddPmuEvents(p.name, false, &rows, err)) return false;
    } else if (!AddPmuEvents("perf", true, &rows, err)) {
      return false;
    }
    // This CPU's groups: the set rprof uses, and, where the kernel hides the PMU the CPU has,
    // that PMU's set too, so one sees what the machine could count with a PMU.
    if (!AddGroupEvents(library, group_pmu, &rows, err)) return false;
    if (!prober.cpuid_pmu().empty() && prober.cpuid_pmu() != group_pmu &&
        !library.ListGroups(prober.cpuid_pmu()).empty() &&
        !AddGroupEvents(library, prober.cpuid_pmu(), &rows, err))
      return false;
  }
  for (EventRow& row : rows.rows())
    if (row.reason.empty()) prober.Decide(&row);

  const std::vector<EventRow>& list = rows.rows();
  Report report;
  report.AddField("host_pmu", Cell::Text(host_pmu));
  report.AddField("host_pmu_note", Cell::Text(host_why.message));
  report.AddField("cpuid_pmu", Cell::Text(prober.cpuid_pmu()));
  report.AddField("group_set", Cell::Text(group_pmu));
  report.AddField("hardware_counters", Cell::Bool(DiagnosePmu().hardware_counters));
  if (!host_pmu.empty())
    report.AddText("core PMU: " + host_pmu + " (libpfm4 " + PfmVersion() + ")\n");
  else
    report.AddText("core PMU: none usable: " +
                   (host_why.message.empty() ? pfm_why.message : host_why.message) + "\n");
  report.AddText("metric groups: " + group_pmu + " (" + library.data_dir() + ")\n\n");
  // groups stands twice: CSV and JSON have always ordered it differently.
  Table& table =
      report.AddTable({Column("name", "event").CsvHeader("event").WholeWords(),
                       {"kind", "kind"},
                       {"pmu", "", Align::kLeft, kInData},
                       {"status", "here"},
                       {"available", "", Align::kLeft, kInJson},
                       {"reason", "", Align::kLeft, kInData},
                       {"remedy", "", Align::kLeft, kInData},
                       // Left out before an event's name is broken mid-token (issue 38):
                       // a name is what --events takes, whole.
                       Column("groups", "groups", Align::kLeft, kInText | kInCsv).Optional(),
                       {"description", "", Align::kLeft, kInData},
                       {"groups", "", Align::kLeft, kInJson},
                       Column("why", "why not / description", Align::kLeft, kInText).Notes()},
                      kInAll, "events");
  size_t available = 0;
  std::vector<std::pair<std::string, std::string>> remedies;  // (reason, remedy), each once
  for (const EventRow& r : list) {
    available += r.here == Here::kAvailable;
    table.AddRow({Cell::Text(r.name), Cell::Text(KindName(r.kind)), Cell::TextOrNull(r.pmu),
                  Cell::Text(HereKey(r.here), HereText(r.here)),
                  Cell::Bool(r.here == Here::kAvailable), Cell::TextOrNull(r.reason),
                  Cell::TextOrNull(r.remedy), Cell::Text(Join(r.groups, " ")),
                  Cell::Text(r.description), Cell::List(r.groups),
                  Cell::Text(r.here == Here::kAvailable ? r.description : r.reason)});
    if (!r.remedy.empty() && std::find(remedies.begin(), remedies.end(),
                                       std::pair(r.reason, r.remedy)) == remedies.end())
      remedies.emplace_back(r.reason, r.remedy);
  }
  std::string summary = "\n" + std::to_string(available) + " of " + std::to_string(list.size()) +
                        " events can be counted here.\n";
  for (const auto& [reason, remedy] : remedies) summary += reason + ": " + remedy + "\n";
  if (!all && pmu_name.empty())
    summary += "--all lists every preset and native event; --pmu NAME another PMU's.\n";
  report.AddText(summary);
  std::cout << Render(report, cl.format(), cl.text_width());
  return true;
}

}  // namespace rprof
