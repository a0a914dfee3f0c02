#include "store/network_filesystem.h"

#include <sys/vfs.h>

namespace rprof {

namespace {

// statfs(2)'s f_type of the filesystems that are shared between hosts, from linux/magic.h and
// the filesystems' own sources (Lustre, GPFS, BeeGFS and PanFS are out of tree).
struct NetworkMagic {
  int64_t magic;
  const char* name;
};
constexpr NetworkMagic kNetworkFilesystems[] = {
    {0x6969, "nfs"},        {0x517B, "smb"},       {0xFF534D42, "cifs"},   {0xFE534D42, "smb2"},
    {0x0BD00BD0, "lustre"}, {0x47504653, "gpfs"},  {0x19830326, "beegfs"}, {0x00C36400, "cephfs"},
    {0x5346414F, "afs"},    {0x6B414653, "kafs"},  {0x73757245, "coda"},   {0xAAD7AAEA, "panfs"},
    {0x01161970, "gfs2"},   {0x7461636F, "ocfs2"}, {0x564C, "ncp"},        {0x01021997, "9p"},
};

}  // namespace

std::optional<std::string> NetworkFilesystemName(int64_t statfs_type) {
  // f_type is a signed word on some ABIs: 0xFF534D42 arrives negative there.
  int64_t type = statfs_type & 0xFFFFFFFF;
  for (const NetworkMagic& fs : kNetworkFilesystems)
    if (fs.magic == type) return std::string(fs.name);
  return std::nullopt;
}

std::optional<std::string> NetworkFilesystemOf(const std::string& path) {
  // The file itself, else the nearest directory above it that exists.
  auto at = [](const char* where) -> std::optional<std::string> {
    struct statfs st;
    if (statfs(where, &st) != 0) return std::nullopt;
    return NetworkFilesystemName(static_cast<int64_t>(st.f_type));
  };
  std::string dir = path;
  for (;;) {
    struct statfs st;
    if (!dir.empty() && statfs(dir.c_str(), &st) == 0)
      return NetworkFilesystemName(static_cast<int64_t>(st.f_type));
    size_t slash = dir.find_last_of('/');
    if (slash == std::string::npos) return at(".");
    if (slash == 0) return at("/");
    dir.resize(slash);
  }
}

}  // namespace rprof
