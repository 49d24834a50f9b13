// make_logical_disk(), sfdisk_entries() (logical_disk_fixture.hpp).
#include "logical_disk_fixture.hpp"

#include <nlohmann/json.hpp>

#include "skip_fixture.hpp"

namespace piprov::test {

std::filesystem::path make_logical_disk(const TempDir& tmp, const std::string& mkfs6) {
  const std::string t = q(tmp.path.string());
  sh("cd " + t + " && mkdir files && head -c 40M /dev/urandom > files/a && truncate -s 200M disk" +
     " && printf 'label: dos\\n1MiB,16MiB,c\\n17MiB,,5\\n18MiB,16MiB,83\\n35MiB,,83\\n' | sfdisk -q disk" +
     " && truncate -s 16M p1 && mkfs.vfat -n BOOT p1 >/dev/null && truncate -s 16M p5" +
     " && mke2fs -q -t ext4 -L data p5 && truncate -s 165M p6 && " + mkfs6 +
     " && dd if=p1 of=disk bs=1M seek=1 conv=notrunc status=none" +
     " && dd if=p5 of=disk bs=1M seek=18 conv=notrunc status=none" +
     " && dd if=p6 of=disk bs=1M seek=35 conv=notrunc status=none");
  return tmp.path / "disk";
}

std::map<int, std::pair<std::uint64_t, std::uint64_t>> sfdisk_entries(const std::string& path) {
  auto j = nlohmann::json::parse(run("sfdisk -J " + q(path)).out);
  std::map<int, std::pair<std::uint64_t, std::uint64_t>> out;
  for (const auto& p : j["partitiontable"]["partitions"]) {
    const std::string node = p["node"];
    out[std::stoi(node.substr(node.find_last_not_of("0123456789") + 1))] = {p["start"], p["size"]};
  }
  return out;
}

}  // namespace piprov::test
