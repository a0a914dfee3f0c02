#include "store/job_database.h"

#include <cctype>

namespace rprof {

JobDatabase ChooseJobDatabase(const DatabasePath& shared, const JobRank& job,
                              const std::optional<std::string>& network_fs) {
  JobDatabase out;
  out.path = shared;
  if (!network_fs) return out;
  std::string name;
  for (char c : job.job_id)
    name +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ? c : '_';
  out.job_dir = shared.path + ".jobs/" + name;
  std::string rank = std::to_string(job.rank);
  size_t width = std::to_string(job.size > 0 ? job.size - 1 : 0).size();
  if (rank.size() < width) rank.insert(0, width - rank.size(), '0');
  // is_default: rprof may create the directories, as it creates the default database's.
  out.path = {out.job_dir + "/rank-" + rank + ".db", true};
  out.notice = "database " + shared.path + " is on " + *network_fs +
               ", a network filesystem, which SQLite's WAL mode and locks cannot share between "
               "hosts: each of the job's " +
               std::to_string(job.size) + " ranks stores its run in a file of its own under " +
               out.job_dir + "; `rprof --db " + shared.path + " merge " + out.job_dir +
               "/*.db` brings them in";
  return out;
}

}  // namespace rprof
