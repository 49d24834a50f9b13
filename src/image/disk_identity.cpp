#include "image/disk_identity.hpp"

#include <libfdisk/libfdisk.h>
#include <sys/stat.h>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/random.hpp"
#include "core/strings.hpp"
#include "image/partitions.hpp"

namespace piprov::image {
namespace {

struct ContextDeleter {
  void operator()(fdisk_context* c) const { fdisk_unref_context(c); }
};
struct PartitionDeleter {
  void operator()(fdisk_partition* p) const { fdisk_unref_partition(p); }
};
using Context = std::unique_ptr<fdisk_context, ContextDeleter>;
using PartitionPtr = std::unique_ptr<fdisk_partition, PartitionDeleter>;

void check(int rc, const std::string& what) {
  if (rc < 0) throw io_error(what, -rc);
}

std::string disk_id(fdisk_context* cxt, const std::string& disk) {
  char* id = nullptr;
  check(fdisk_get_disklabel_id(cxt, &id), "cannot read the disk identifier of " + disk);
  std::string s = to_lower(id ? id : "");
  std::free(id);
  return s;
}

/// Partition numbers (0-based, as libfdisk counts) in use, with their GPT GUID ("" on MBR).
std::vector<std::pair<std::size_t, std::string>> used_partitions(fdisk_context* cxt) {
  std::vector<std::pair<std::size_t, std::string>> out;
  for (std::size_t i = 0; i < fdisk_get_npartitions(cxt); ++i) {
    if (!fdisk_is_partition_used(cxt, i)) continue;
    fdisk_partition* raw = nullptr;
    if (fdisk_get_partition(cxt, i, &raw) != 0) continue;
    PartitionPtr pa(raw);
    const char* uuid = fdisk_partition_get_uuid(pa.get());
    out.emplace_back(i, to_lower(uuid ? uuid : ""));
  }
  return out;
}

std::string mbr_partuuid(const std::string& id, std::size_t partno) {  // id "0x4ec8ea53", partno 0-based
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "-%02zx", partno + 1);
  return id.substr(2) + suffix;
}

void renew_mbr(fdisk_context* cxt, DiskIdentity& r, const std::string& disk) {
  do r.new_id = "0x" + random_hex(4);
  while (r.new_id == "0x00000000" || r.new_id == r.old_id);
  check(fdisk_set_disklabel_id_from_string(cxt, r.new_id.c_str()), "cannot set the disk identifier of " + disk);
  for (const auto& [n, guid] : used_partitions(cxt)) r.partuuids[mbr_partuuid(r.old_id, n)] = mbr_partuuid(r.new_id, n);
}

void renew_gpt(fdisk_context* cxt, DiskIdentity& r, const std::string& disk) {
  r.new_id = random_uuid();
  check(fdisk_set_disklabel_id_from_string(cxt, r.new_id.c_str()), "cannot set the disk GUID of " + disk);
  for (const auto& [n, guid] : used_partitions(cxt)) {
    PartitionPtr pa(fdisk_new_partition());
    std::string fresh = random_uuid();
    check(fdisk_partition_set_uuid(pa.get(), fresh.c_str()), "cannot set a partition GUID of " + disk);
    check(fdisk_set_partition(cxt, n, pa.get()), "cannot set partition " + std::to_string(n + 1) + " of " + disk);
    r.partuuids[guid] = fresh;
  }
}

bool is_uuid_char(char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '-'; }

}  // namespace

DiskIdentity renew_disk_identity(const std::string& disk) {
  Context cxt(fdisk_new_context());
  if (!cxt) throw Error(ErrorKind::Io, "libfdisk: cannot allocate a context");
  check(fdisk_assign_device(cxt.get(), disk.c_str(), 0), "cannot open " + disk + " read-write (libfdisk)");
  DiskIdentity r;
  if (fdisk_is_label(cxt.get(), DOS))
    r.label = TableScheme::Dos;
  else if (fdisk_is_label(cxt.get(), GPT))
    r.label = TableScheme::Gpt;
  else
    throw Error(ErrorKind::Usage, disk + " has no MBR or GPT partition table: cannot give it a new disk identifier");
  r.old_id = disk_id(cxt.get(), disk);
  if (r.label == TableScheme::Dos)
    renew_mbr(cxt.get(), r, disk);
  else
    renew_gpt(cxt.get(), r, disk);
  check(fdisk_write_disklabel(cxt.get()), "cannot write the partition table of " + disk);
  check(fdisk_deassign_device(cxt.get(), 0), "cannot flush the partition table of " + disk);  // fsync + close
  r.new_id = to_lower(r.new_id);
  struct stat st {};
  if (::stat(disk.c_str(), &st) == 0 && S_ISBLK(st.st_mode)) reread_partitions(disk);
  return r;
}

std::string replace_partuuids(std::string_view text, const std::map<std::string, std::string>& partuuids, int* count) {
  static constexpr std::string_view kKey = "PARTUUID=";
  std::string out;
  int n = 0;
  std::size_t pos = 0;
  for (std::size_t hit; (hit = text.find(kKey, pos)) != std::string_view::npos;) {
    std::size_t b = hit + kKey.size();
    bool quoted = b < text.size() && text[b] == '"';
    if (quoted) ++b;
    std::size_t e = b;
    while (e < text.size() && is_uuid_char(text[e])) ++e;
    out.append(text.substr(pos, b - pos));
    auto it = partuuids.find(to_lower(text.substr(b, e - b)));
    if (it != partuuids.end()) {
      out += it->second;
      ++n;
    } else {
      out.append(text.substr(b, e - b));
    }
    pos = e;
  }
  out.append(text.substr(pos));
  if (count) *count = n;
  return out;
}

}  // namespace piprov::image
