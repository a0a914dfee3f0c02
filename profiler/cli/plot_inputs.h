// What `rprof plot` and `rprof report` draw: the runs chosen the same way (ids, --last N,
// --kernel, --tag) and the machine profile they are drawn against.
#ifndef RPROF_CLI_PLOT_INPUTS_H_
#define RPROF_CLI_PLOT_INPUTS_H_

#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/command_context.h"
#include "cli/options.h"
#include "core/run.h"
#include "store/profile_store.h"
#include "store/run_store.h"

namespace rprof {

struct RunChoice {
  std::vector<long long> ids;
  int last = 0;
  bool last_given = false;  // --last was on the command line (0 is then a mistake)
  std::string kernel;
  std::vector<std::string> tags;
  long long profile_id = 0;  // 0: the newest profile of the runs' machine
};

// Adds [RUN...] --last --kernel --tag (and --profile when `with_profile`) to `cl`.
void AddRunChoiceOptions(CommandLine* cl, RunChoice* choice, bool with_profile);

// Adds the roofs a drawing shows: --threads N (into *threads) and --all-roofs (cl->Has).
void AddRoofOptions(CommandLine* cl, int* threads);

// Opens the database (the context's store, into *store), loads the chosen runs (default: the
// newest 10) and the profile. Errors name `command`: no run matches (usage), no profile for the
// runs' machine (environment).
bool LoadRunChoice(CommandContext& context, const RunChoice& choice, const std::string& command,
                   RunStore** store, std::vector<RunRecord>* runs, StoredProfile* profile,
                   Error* err);

// The title of a picture: "roofline of CPU (host), N thread(s), profile ID".
std::string RooflineTitle(const StoredProfile& profile, int threads);

}  // namespace rprof

#endif  // RPROF_CLI_PLOT_INPUTS_H_
