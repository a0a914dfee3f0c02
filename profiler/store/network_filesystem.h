// Whether a database file lies on a network filesystem. SQLite's WAL mode "does not work over a
// network filesystem" (its shared memory is per host) and fcntl locks are broken on many NFS
// mounts: a database there must not be shared by the ranks of a job on several hosts, so each
// rank then writes a file of its own (cli/job_database.h) and `rprof merge` joins them.
#ifndef RPROF_STORE_NETWORK_FILESYSTEM_H_
#define RPROF_STORE_NETWORK_FILESYSTEM_H_

#include <cstdint>
#include <optional>
#include <string>

namespace rprof {

// The network (or cluster) filesystem a statfs f_type magic number names: "nfs", "cifs",
// "smb2", "lustre", "gpfs", "beegfs", "cephfs", ...; nullopt for any other (a local disk,
// tmpfs, overlay, and FUSE, which may be either).
std::optional<std::string> NetworkFilesystemName(int64_t statfs_type);

// The network filesystem holding `path`: the file's own, or its nearest existing directory's
// when the file does not exist yet. nullopt when it is local, or when statfs fails (then
// nothing says it is not local: the rule falls back to a shared file, as before).
std::optional<std::string> NetworkFilesystemOf(const std::string& path);

}  // namespace rprof

#endif  // RPROF_STORE_NETWORK_FILESYSTEM_H_
