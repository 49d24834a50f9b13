#include "clone_fixture.hpp"

namespace piprov::test {

std::filesystem::path make_clone_image(const std::filesystem::path& dir, const std::string& root_type,
                                       std::uint64_t bytes, int big_mib) {
  const auto img = dir / "src.img";
  sh("cd " + q(dir.string()) +
     "\nmkdir -p root/etc/cloud root/usr/bin root/dir boot\n"
     "printf '#!/bin/sh\\n' > root/usr/bin/cloud-init\necho 0123456789abcdef0123456789abcdef > root/etc/machine-id\n"
     "head -c " +
     std::to_string(big_mib) +
     "M /dev/urandom > root/big.bin\nhead -c 5M /dev/urandom > root/dir/mid.bin\n"
     "for i in $(seq 1 30); do head -c $((i * 1013)) /dev/urandom > root/dir/f$i; done\n"
     "printf 'PARTUUID=12345678-01  /boot/firmware  vfat  defaults  0  2\\nPARTUUID=12345678-02  /  ext4  "
     "defaults,noatime  0  1\\n' > root/etc/fstab\n"
     "head -c 2M /dev/urandom > boot/kernel8.img\n"
     "echo 'console=serial0,115200 root=PARTUUID=12345678-02 rootfstype=ext4 rootwait' > boot/cmdline.txt\n"
     "truncate -s " +
     std::to_string(bytes) +
     " src.img\n"
     "printf 'label: dos\\nlabel-id: 0x12345678\\nstart=2048, size=32768, type=c\\nstart=34816, type=" +
     root_type + "\\n' | sfdisk -q src.img\n" +
     (root_type == "83"
          ? "mke2fs -q -F -t ext4 -b 4096 -L rootfs -d root ext.img " + std::to_string((bytes / 512 - 34816) / 8)
          : "head -c " + std::to_string(bytes - 34816 * 512) + " /dev/urandom > ext.img") +
     "\ndd if=ext.img of=src.img bs=512 seek=34816 conv=notrunc status=none\n"
     "mkfs.vfat -n bootfs -C fat.img 16384 >/dev/null\nmcopy -s -i fat.img boot/* ::\n"
     "dd if=fat.img of=src.img bs=512 seek=2048 conv=notrunc status=none\n");
  return img;
}

std::unique_ptr<LoopDevice> clone_target_loop(const std::filesystem::path& backing, std::uint64_t bytes) {
  sh("yes piprov-old-data | head -c " + std::to_string(bytes) + " > " + q(backing.string()));
  return std::make_unique<LoopDevice>(backing, bytes);
}

void wait_for_partitions(const std::string& dev, int n) {
  run("partx -a " + dev + " 2>/dev/null; for i in $(seq 100); do [ -b " + dev + "p" + std::to_string(n) +
      " ] && break; sleep 0.1; done");
}

RunResult clone_run(const std::string& args) { return run(piprov_bin() + " clone --progress none " + args); }

}  // namespace piprov::test
