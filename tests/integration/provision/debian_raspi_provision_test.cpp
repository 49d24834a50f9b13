// provision of a Debian-style image, its boot partition written by Debian's
// own kernel hook (support/debian_raspi_fixture.hpp).
#include <gtest/gtest.h>

#include <regex>

#include "support/debian_raspi_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::run;

// provision of a Debian-style image (p1 FAT RASPIFIRM holding what the hook wrote, p2 ext4
// RASPIROOT, as raspi.debian.net's images are laid out): the layout is detected, nothing is
// patched, the boot partition stays byte-identical and the final check is OK.
TEST(ProvisionDebianRaspi, HookGeneratedImageChangesNothing) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("unshare");
  PIPROV_REQUIRE_TOOL("dpkg-deb");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("sfdisk");
  piprov::boot::test::HookGeneratedTree tr;
  if (!tr.why_not.empty()) PIPROV_SKIP(tr.why_not);
  const fs::path d = tr.t.path;
  // The root fs of the image: the root dir of the tree, made with mke2fs -d (no mount).
  auto mk = run("cd " + q(d.string()) +
                " && truncate -s 32M boot.vfat && mkfs.vfat -n RASPIFIRM boot.vfat >/dev/null"
                " && MTOOLS_SKIP_CHECK=1 mcopy -s -i boot.vfat " +
                q(tr.boot.string()) + "/* ::/" +
                " && truncate -s 16M root.ext4 && mke2fs -q -F -t ext4 -L RASPIROOT -d " + q(tr.root.string()) +
                " root.ext4"
                " && truncate -s 50M debian.img"
                " && printf 'label: dos\\nstart=2048, size=65536, type=c\\nstart=67584, type=83\\n' | sfdisk -q "
                "debian.img"
                " && dd if=boot.vfat of=debian.img bs=1M seek=1 conv=notrunc status=none"
                " && dd if=root.ext4 of=debian.img bs=512 seek=67584 conv=notrunc status=none");
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  piprov::test::LoopDevice loop(d / "disk.img", 64ull << 20);
  auto r = run(piprov::test::piprov_bin() + " provision " + q((d / "debian.img").string()) + " " + loop.path +
               " --yes --progress none");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"((^|\n)\[5/9\] patch +\S+(?: s)?  layout debian-raspi )")))
      << r.out;
  EXPECT_NE(r.out.find("nothing to patch: raspi-firmware's kernel hook"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"((^|\n)\[7/9\] check +\S+(?: s)?  OK)"))) << r.out;
  EXPECT_NE(r.out.find("provision: " + loop.path + " is ready: "), std::string::npos) << r.out;
  auto cmp =
      run("cmp -n " + std::to_string(32ull << 20) + " " + q((d / "boot.vfat").string()) + " " + loop.path + "p1");
  EXPECT_EQ(cmp.exit_code, 0) << "the boot partition differs from the image's: " << cmp.out << cmp.err;
}
