#include "cli/plot_inputs.h"

#include "machine/current_machine.h"
#include "targets/target_path.h"

namespace rprof {

void AddRunChoiceOptions(CommandLine* cl, RunChoice* choice, bool with_profile) {
  // Without a default value the notifier runs only when --last is given.
  cl->Add("last", po::value(&choice->last)->notifier([choice](int) { choice->last_given = true; }),
          "the newest N runs (default 10 when no run is named)");
  cl->Add("kernel,k", po::value(&choice->kernel), "only runs of this kernel or program");
  cl->Add("tag,t", po::value(&choice->tags)->composing(),
          "only runs tagged KEY=VALUE (repeatable)");
  if (with_profile)
    cl->Add("profile", po::value(&choice->profile_id),
            "the machine profile to draw (default: the newest of the runs' machine)");
  cl->AddPositional("run", po::value(&choice->ids)->composing(), "run ids", -1);
}

void AddRoofOptions(CommandLine* cl, int* threads) {
  cl->Add("threads", po::value(threads), "draw the ceilings of N threads (default 1)");
  cl->Add("all-roofs",
          "draw every roof of the profile (default: those the runs drawn are held against: "
          "their precision's best and their own ISA's, each memory level once)");
}

bool LoadRunChoice(CommandContext& context, const RunChoice& choice, const std::string& command,
                   RunStore** opened, std::vector<RunRecord>* runs, StoredProfile* profile,
                   Error* err) {
  RunFilter filter;
  // A count of 0 or less is a mistake, never "the default": said, not guessed (issue 41).
  if (choice.last < 0 || (choice.last == 0 && choice.last_given))
    return Fail(err, ErrorKind::kUsage,
                "--last " + std::to_string(choice.last) + ": give a number of runs, 1 or more");
  if (!ParseKeyValues("--tag", choice.tags, &filter.tags, err)) return false;
  if (!choice.kernel.empty()) {
    std::vector<std::string> names = StoredTargetNames(choice.kernel);
    filter.target = names.front();
    filter.also_targets.assign(names.begin() + 1, names.end());
  }
  RunStore* store = *opened = context.Store(err);
  if (!store) return false;
  if (!choice.ids.empty()) {
    for (long long id : choice.ids) {
      RunRecord run;
      if (!store->Load(id, &run, err)) return false;
      runs->push_back(std::move(run));
    }
  } else {
    filter.limit = choice.last > 0 ? choice.last : 10;
    if (!store->List(filter, runs, err)) return false;
    if (runs->empty())
      return Fail(err, ErrorKind::kUsage, command + ": no stored run matches; see rprof history");
  }
  if (choice.profile_id > 0) return LoadProfile(store, choice.profile_id, profile, err);
  bool found = false;
  std::string fingerprint =
      runs->empty() ? CurrentMachine().fingerprint : runs->front().machine.fingerprint;
  if (!LoadNewestProfile(store, fingerprint, profile, &found, err)) return false;
  // The newest run's machine has no profile (a run imported from another machine): the next
  // machine among the chosen runs that has one is drawn; the scene says which runs are not of
  // it. Only when none has one is there nothing to draw.
  for (size_t i = 1; !found && i < runs->size(); ++i) {
    const std::string& other = (*runs)[i].machine.fingerprint;
    if (other == fingerprint) continue;
    if (!LoadNewestProfile(store, other, profile, &found, err)) return false;
  }
  if (!found)
    return Fail(err, ErrorKind::kEnvironment,
                "no machine profile for machine " + fingerprint +
                    " (the runs' machine); measure one there with `rprof machine measure`");
  return true;
}

std::string RooflineTitle(const StoredProfile& profile, int threads) {
  return "roofline of " + profile.machine.cpu_model + " (" + profile.machine.hostname + "), " +
         std::to_string(threads) + " thread" + (threads > 1 ? "s" : "") + ", profile " +
         std::to_string(profile.id);
}

}  // namespace rprof
