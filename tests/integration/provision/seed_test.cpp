// provision's first-boot identity on real loop devices: scripts/make-test-image.sh's
// image with a PARTUUID cmdline/fstab (as Raspberry Pi OS has) and cloud-init in
// its root fs, checked with the real `cloud-init schema`, sfdisk and blkid.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include <map>
#include <regex>
#include <set>

#include "core/strings.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::read_file;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

constexpr const char* kOldDiskId = "4ec8ea53";  // scripts/make-test-image.sh's label-id

/// The test image with root=PARTUUID= in its cmdline files and PARTUUID= in
/// fstab; `cloud_init`: /usr/bin/cloud-init and /etc/cloud present (else removed).
/// Edited in place through partition offsets (make-test-image.sh's layout: p1
/// at sector 2048, p2 at 526336). Returns "" or why the image could not be
/// built (skip); throws when editing it fails.
std::string make_seed_image(const fs::path& img, bool cloud_init) {
  if (auto why = piprov::test::make_test_image(img, 64); !why.empty()) return why;
  const std::string fat = q(img.string() + "@@1M");
  for (const char* f : {"cmdline.txt", "nobtcmd.txt", "btcmd.txt"}) {
    auto r = run("export MTOOLS_SKIP_CHECK=1; t=$(mktemp) && mtype -i " + fat + " ::" + f +
                 " | sed 's/root=LABEL=writable/root=PARTUUID=" + kOldDiskId + "-02/' > $t && mcopy -o -i " + fat +
                 " $t ::" + f + " && rm $t");
    if (r.exit_code != 0) throw std::runtime_error("mtools: " + r.err);
  }
  piprov::test::Mount root(img.string(), img.string() + ".root", "ext4",
                           "loop,offset=" + std::to_string(526336ull * 512));
  auto r = run("cd " + q(root.dir.string()) + " && sed -i 's/^LABEL=writable/PARTUUID=" + kOldDiskId +
               "-02/; s/^LABEL=system-boot/PARTUUID=" + kOldDiskId + "-01/' etc/fstab && " +
               (cloud_init ? "mkdir -p usr/bin etc/cloud && printf '#!/usr/bin/python3\\n' > usr/bin/cloud-init && "
                             "chmod 755 usr/bin/cloud-init && printf 'datasource_list: [NoCloud, None]\\n' > "
                             "etc/cloud/cloud.cfg"
                           : "rm -rf usr/bin/cloud-init etc/cloud"));
  if (r.exit_code != 0) throw std::runtime_error("fixture: " + r.err);
  return "";
}

/// A file of the FAT boot partition `part`, read with mtools (this kernel may lack vfat).
std::string boot_file(const std::string& part, const std::string& name) {
  auto r = run("MTOOLS_SKIP_CHECK=1 mtype -i " + part + " ::" + name);
  EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  return r.out;
}

std::string first_mib(const std::string& dev) { return piprov::test::read_bytes(dev, 0, 1 << 20); }

/// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> v;
  for (const auto& l : piprov::split(text, '\n'))
    if (l.rfind(prefix, 0) == 0) v.push_back(l);
  return v;
}

/// A 64 MiB loop disk whose first MiB is known, an IMAGE file (1 MiB of zeros:
/// only its partition table is read, for its cloud-init; the seed check refuses
/// before its missing partition table is) and `cmd`, `provision IMAGE DISK --yes ...`
/// under timeout(1), for the refusals.
struct RefusalDisk {
  TempDir d{"piprov-seed"};
  piprov::test::LoopDevice a{d.path / "a.img", 64ull << 20};
  std::string before, cmd;
  RefusalDisk() {
    EXPECT_EQ(
        run("yes piprov-untouched | head -c 1048576 | dd of=" + q(a.path) + " bs=1M conv=fsync status=none").exit_code,
        0);
    before = first_mib(a.path);
    piprov::test::write_file(d.path / "img.img", std::string(1 << 20, '\0'));
    cmd = "timeout 60 " + piprov::test::piprov_bin() + " provision " + q((d.path / "img.img").string()) + " " + a.path +
          " --yes --progress none ";
  }
  /// Writes `text` to `name` in the temp dir; returns its path, quoted.
  std::string file(const std::string& name, const std::string& text) const {
    piprov::test::write_file(d.path / name, text);
    return q((d.path / name).string());
  }
  bool untouched() const { return first_mib(a.path) == before; }
};
}  // namespace

// Everything refused here is refused before the first byte of any target.
TEST(ProvisionSeed, BadIdentityOptionsAreRefusedBeforeAnyByteIsWritten) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("ssh-keygen");
  TempDir d("piprov-seed");
  if (auto why = make_seed_image(d.path / "img.img", true); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice a(d.path / "a.img", 1ull << 30), b(d.path / "b.img", 1ull << 30);
  ASSERT_EQ(run("for f in " + q(a.path) + " " + q(b.path) +
                "; do yes piprov-untouched | head -c 1048576 | dd of=$f bs=1M conv=fsync status=none; done")
                .exit_code,
            0);
  const std::string before_a = first_mib(a.path), before_b = first_mib(b.path);
  ASSERT_EQ(run("ssh-keygen -q -t ed25519 -N '' -f " + q((d.path / "id").string())).exit_code, 0);
  piprov::test::write_file(d.path / "bad-user-data", "#cloud-config\nusers:\n  - name: x\n   bad: [indent\n");
  piprov::test::write_file(d.path / "script-user-data", "#!/bin/sh\necho hi\n");
  // Trial 8 finding 3: eth0 in two bridges, which netplan refuses (the seed check's, as `seed check`'s).
  piprov::test::write_file(d.path / "br.nc",
                           "version: 2\nethernets: {eth0: {dhcp4: true}}\nbridges:\n  br0: {interfaces: [eth0]}\n"
                           "  br1: {interfaces: [eth0]}\n");
  const std::string cmd = piprov::test::piprov_bin() + " provision " + q((d.path / "img.img").string()) + " " + a.path +
                          " " + b.path + " --yes --progress none ";
  struct Case {
    std::string options, message;
  } cases[] = {
      {"--hostname n{1..2} --user-data " + q((d.path / "bad-user-data").string()), "is not valid YAML"},
      {"--hostname n{1..2} --user-data " + q((d.path / "script-user-data").string()),
       "is a shell script ('#!/bin/sh'), not cloud-config"},
      {"--hostname n{1..2} --ssh-key " + q((d.path / "id").string()), "is a private key"},
      {"--hostname n{1..3}", "gives 3 name(s) (n1, n2, n3) for 2 target disk(s)"},
      {"--hostname single", "gives 1 name(s) (single) for 2 target disk(s)"},
      {"--hostname n1,n2 --ip 10.0.0.5/24", "--ip gives 1 address(es) for 2 target disk(s)"},
      {"--user admin --password-hash hunter2", "never a clear password"},
      {"--hostname n{1..2} --network-config " + q((d.path / "br.nc").string()),
       "\nline 5   error    seed-network-member-conflict: " + (d.path / "br.nc").string() +
           ": br1: interface 'eth0' is already assigned to bridge br0 (netplan)"},
  };
  std::vector<Case> all(std::begin(cases), std::end(cases));
  // The public seed files the seed check refuses (../shared/data/README.md, cloud-init/).
  const struct {
    const char *option, *file, *message;
  } shared[] = {
      {"--user-data", "07-user-data-plain-text-password-typo", "\nline 4   error    seed-schema-error: "},
      {"--user-data", "04-pigen-trixie-user-data-all-commented", "\nline 1   error    seed-user-data-empty: "},
      {"--user-data", "06-user-data-no-header", "\nline 1   error    seed-not-cloud-config: "},
      {"--network-config", "05-template-network-config-invalid-yaml", "\nline 19  error    seed-yaml-invalid: "},
      {"--network-config", "08-network-config-wifi-placeholders", "\nline 16  error    seed-template-marker: "},
  };
  for (const auto& f : shared)
    if (auto path = piprov::test::shared_data(std::string("cloud-init/") + f.file))
      all.push_back({std::string(f.option) + " " + q(path->string()), f.message});
    else if (piprov::test::require_all())
      ADD_FAILURE() << "../shared/data/cloud-init/" << f.file << " is not present";
  for (const auto& c : all) {
    auto r = run(cmd + c.options);
    EXPECT_EQ(r.exit_code, 2) << c.options << "\n" << r.out << r.err;
    EXPECT_NE(("\n" + r.err).find(c.message), std::string::npos) << c.options << "\n" << r.err;
    EXPECT_EQ(r.out.find("write"), std::string::npos) << "a step ran: " << r.out;
  }
  // Not an OS image (no partition table): refused before the write, too.
  piprov::test::write_file(d.path / "notes.txt", std::string(8192, 'x'));
  auto r = run(piprov::test::piprov_bin() + " provision " + q((d.path / "notes.txt").string()) + " " + a.path +
               " --yes --progress none");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("notes.txt holds no partition table (no MBR or GPT at its start)"), std::string::npos) << r.err;
  EXPECT_TRUE(first_mib(a.path) == before_a) << "a byte of " << a.path << " was written";
  EXPECT_TRUE(first_mib(b.path) == before_b) << "a byte of " << b.path << " was written";
}

// A refusal prints the findings as `boot check` does (line, severity, rule;
// fix and source below), in file then line order, and ends with one
// "piprov: error:" line.
TEST(ProvisionSeed, RefusalsAreFindingsAndOneErrorLine) {
  PIPROV_REQUIRE_LOOP();
  RefusalDisk t;
  const std::string ud =
      t.file("ud", "#cloud-config\nhostname: \"${HOST}\"\nusers:\n  - name: pi\n    plain_text_password: x\n");
  const std::string nc = t.file("nc", "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.9/24]\n  bad: [\n");
  auto r = run(t.cmd + "--hostname n1 --user-data " + ud);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("line 2   error    seed-template-marker: " + (t.d.path / "ud").string() +
                       ": line 2 still holds the template marker '${HOST}' (an unfilled template value)\n"
                       "                 fix: replace it"),
            std::string::npos)
      << r.err;
  auto errors = lines_starting(r.err, "piprov: error:");
  ASSERT_EQ(errors.size(), 1u) << r.err;
  EXPECT_EQ(r.err.substr(r.err.size() - errors[0].size() - 1), errors[0] + "\n") << "the error line is the last";
  // The warnings: the clear-text password, and seed-judge-host (the image of zeros gives no cloud-init schema).
  EXPECT_NE(errors[0].find(": the cloud-init seed is refused before anything is written: 2 error(s), 2 warning(s), "),
            std::string::npos)
      << errors[0];
  EXPECT_EQ(errors[0].substr(errors[0].size() - 12), ")); fix them") << errors[0];  // a template value: no hint

  // --force-seed with a network-config that is not YAML: still refused, and the hint says why;
  // the findings in file then line order: user-data's lines 2, 5, 5 (the checks ran 5, 2, 5), then nc's (line 5,
  // where its unclosed '[' starts).
  r = run(t.cmd + "--hostname n1 --force-seed --user-data " + ud + " --network-config " + nc);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  std::vector<std::string> at;
  for (const auto& l : lines_starting(r.err, "line ")) at.push_back(l.substr(0, l.find(':')));
  EXPECT_EQ(at, (std::vector<std::string>{
                    "line 2   warning  seed-template-marker", "line 5   warning  seed-schema-error",
                    "line 5   warning  seed-clear-text-password", "line 5   error    seed-yaml-invalid"}))
      << r.err;
  errors = lines_starting(r.err, "piprov: error:");
  ASSERT_EQ(errors.size(), 1u) << r.err;
  EXPECT_NE(errors[0].find("; --force-seed does not override seed-yaml-invalid: fix the file"), std::string::npos)
      << errors[0];
  EXPECT_TRUE(t.untouched()) << "a byte of " << t.a.path << " was written";
}

// Seeds cloud-init cannot read: not UTF-8 (every file, also with --force-seed),
// an empty user-data (seed-user-data-empty, never "no #cloud-config").
TEST(ProvisionSeed, NonUtf8AndEmptySeedsAreRefused) {
  PIPROV_REQUIRE_LOOP();
  RefusalDisk t;
  const std::string latin = "#cloud-config\nhostname: caf\xe9\n";  // Latin-1 é
  for (const std::string opt : {"--user-data", "--network-config", "--meta-data"}) {
    const std::string f = t.file("latin" + opt, opt == "--network-config" ? "version: 2\n# caf\xe9\n" : latin);
    auto r = run(t.cmd + "--hostname n1 --force-seed " + opt + " " + f);
    EXPECT_EQ(r.exit_code, 2) << opt << r.out << r.err;
    const int byte = opt == "--network-config" ? 16 : 27;
    EXPECT_NE(r.err.find("seed-not-utf8: " + (t.d.path / ("latin" + opt)).string() + ": is not UTF-8 at line 2, byte " +
                         std::to_string(byte) + ": cloud-init reads seeds as UTF-8; save the file as UTF-8\n"),
              std::string::npos)
        << opt << r.err;
    EXPECT_EQ(lines_starting(r.err, "piprov: error:").size(), 1u) << r.err;
  }
  for (const std::string text : {"", " \n\n"}) {
    auto r = run(t.cmd + "--user-data " + t.file("empty", text));
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("error    seed-user-data-empty: " + (t.d.path / "empty").string() +
                         (text.empty() ? ": is empty (0 bytes)" : ": holds only comments and blank lines")),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("seed-not-cloud-config"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(t.untouched()) << "a byte of " << t.a.path << " was written";
}

// A file option that names no file (missing, a directory, a FIFO, "-") is
// one line naming the option and the path, exit 2, never CLI11's wording and
// never a wait on the FIFO (timeout(1) would end it with 124).
TEST(ProvisionSeed, FileOptionsThatNameNoFileAreOneLine) {
  PIPROV_REQUIRE_LOOP();
  RefusalDisk t;
  ASSERT_EQ(run("mkfifo " + q((t.d.path / "fifo").string())).exit_code, 0);
  const std::string not_regular = " is not a regular file: pass a file (or - for standard input where supported)\n";
  const std::string dir = t.d.path.string(), fifo = (t.d.path / "fifo").string();
  const std::pair<std::string, std::string> paths[] = {
      {"--user-data /nonexistent/ud",
       "--user-data /nonexistent/ud does not exist: give the path of the user-data file\n"},
      {"--network-config " + dir, "--network-config " + dir + not_regular},
      {"--user-data " + fifo, "--user-data " + fifo + not_regular},
      {"--meta-data -",
       "--meta-data -: --meta-data does not read standard input; give the path of the meta-data file\n"},
  };
  for (const auto& [opt, line] : paths) {
    auto r = run(t.cmd + "--hostname n1 " + opt);
    EXPECT_EQ(r.exit_code, 2) << opt << r.out << r.err;
    EXPECT_EQ(r.err, "piprov: error: " + line) << opt;
  }
}

// Two disks from one run: each its own hostname, instance-id, static address
// and PARTUUIDs, a seed the real cloud-init validator accepts, cmdline/fstab
// pointing at the new ids.
TEST(ProvisionSeed, TwoDisksGetTheirOwnIdentity) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("cloud-init");
  PIPROV_REQUIRE_TOOL("ssh-keygen");
  PIPROV_REQUIRE_TOOL("mtype");
  TempDir d("piprov-seed");
  if (auto why = make_seed_image(d.path / "img.img", true); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice a(d.path / "a.img", 1ull << 30), b(d.path / "b.img", 1ull << 30);
  const std::string key = (d.path / "id_ed25519").string();
  ASSERT_EQ(run("ssh-keygen -q -t ed25519 -N '' -C admin@cluster -f " + q(key)).exit_code, 0);
  const std::string pub = std::string(piprov::trim(read_file(key + ".pub")));
  piprov::test::write_file(d.path / "psk", "correct horse battery\n");
  auto p =
      run(piprov::test::piprov_bin() + " provision " + q((d.path / "img.img").string()) + " " + a.path + " " + b.path +
          " --yes --progress none --json --hostname 'node{1..2}' --user admin --ssh-key " + q(key + ".pub") +
          " --timezone Europe/Berlin --ip 192.168.50.11/24,192.168.50.12/24 --gateway 192.168.50.1 --dns 192.168.50.1" +
          " --wifi-ssid lab --wifi-psk-file " + q((d.path / "psk").string()) + " --wifi-country gb");
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  auto j = nlohmann::json::parse(p.out);
  ASSERT_EQ(j["targets"].size(), 2u) << p.out;

  std::set<std::string> instance_ids, disk_ids;
  const std::string* devs[] = {&a.path, &b.path};
  for (int i = 0; i < 2; ++i) {
    const std::string& dev = *devs[i];
    const std::string host = "node" + std::to_string(i + 1);
    const auto& id = j["targets"][i]["identity"];
    EXPECT_EQ(j["targets"][i]["target"], dev);
    EXPECT_EQ(id["hostname"], host);
    EXPECT_EQ(id["old_disk_id"], std::string("0x") + kOldDiskId);
    EXPECT_EQ(id["seed_files"], (std::vector<std::string>{"user-data", "network-config", "meta-data"}));
    std::string new_id = id["new_disk_id"];
    disk_ids.insert(new_id);

    // The partition table and the kernel agree on the new PARTUUID.
    auto sf = run("partx -g -o UUID -n 2 " + dev);
    EXPECT_EQ(std::string(piprov::trim(sf.out)), new_id.substr(2) + "-02") << sf.err;
    auto bl = run("blkid -p -o value -s PART_ENTRY_UUID " + dev + "p2");
    EXPECT_EQ(std::string(piprov::trim(bl.out)), new_id.substr(2) + "-02");
    // Every cmdline file names it.
    for (const char* f : {"cmdline.txt", "nobtcmd.txt", "btcmd.txt"}) {
      std::string cmdline = boot_file(dev + "p1", f);
      EXPECT_NE(cmdline.find("root=PARTUUID=" + new_id.substr(2) + "-02 "), std::string::npos) << f << ": " << cmdline;
      EXPECT_EQ(cmdline.find(kOldDiskId), std::string::npos) << f << ": " << cmdline;
      // --wifi-country: the kernel's regulatory domain, as rpi-imager writes it.
      EXPECT_NE(cmdline.find(" cfg80211.ieee80211_regdom=GB"), std::string::npos) << f << ": " << cmdline;
      EXPECT_EQ(std::count(cmdline.begin(), cmdline.end(), '\n'), 1) << f << ": " << cmdline;  // still one line
    }

    // The seed: validated by cloud-init itself, and saying what was asked for.
    std::string ud = boot_file(dev + "p1", "user-data"), md = boot_file(dev + "p1", "meta-data"),
                nc = boot_file(dev + "p1", "network-config");
    piprov::test::write_file(d.path / ("user-data-" + host), ud);
    auto schema = run("cloud-init schema --config-file " + q((d.path / ("user-data-" + host)).string()));
    EXPECT_EQ(schema.exit_code, 0) << schema.out << schema.err << ud;
    auto u = YAML::Load(ud);
    EXPECT_EQ(u["hostname"].as<std::string>(), host);
    EXPECT_EQ(u["timezone"].as<std::string>(), "Europe/Berlin");
    EXPECT_EQ(u["users"][0]["name"].as<std::string>(), "admin");
    EXPECT_EQ(u["users"][0]["ssh_authorized_keys"][0].as<std::string>(), pub);
    auto m = YAML::Load(md);
    EXPECT_EQ(m["instance-id"].as<std::string>(), id["instance_id"].get<std::string>());
    EXPECT_EQ(m["local-hostname"].as<std::string>(), host);
    instance_ids.insert(m["instance-id"].as<std::string>());
    auto eth = YAML::Load(nc)["ethernets"]["eth0"];
    EXPECT_EQ(eth["addresses"][0].as<std::string>(), "192.168.50.1" + std::to_string(i + 1) + "/24");
    EXPECT_EQ(eth["routes"][0]["via"].as<std::string>(), "192.168.50.1");
    auto wlan = YAML::Load(nc)["wifis"]["wlan0"];
    // This image's dpkg status names no netplan: no regulatory-domain (netplan before 0.105 refuses
    // it and the whole config); the cmdline above carries the country.
    EXPECT_FALSE(wlan["regulatory-domain"]) << nc;
    EXPECT_EQ(wlan["access-points"]["lab"]["password"].as<std::string>(), "correct horse battery") << nc;

    // fstab on the root fs names the new ids.
    piprov::test::Mount root(dev + "p2", d.path / ("root-" + host), "ext4");
    std::string fstab = read_file(root.dir / "etc/fstab");
    EXPECT_NE(fstab.find("PARTUUID=" + new_id.substr(2) + "-02\t/"), std::string::npos) << fstab;
    EXPECT_NE(fstab.find("PARTUUID=" + new_id.substr(2) + "-01 "), std::string::npos) << fstab;
    EXPECT_EQ(fstab.find(kOldDiskId), std::string::npos) << fstab;
  }
  EXPECT_EQ(instance_ids.size(), 2u);
  EXPECT_EQ(disk_ids.size(), 2u);
  EXPECT_EQ(disk_ids.count(std::string("0x") + kOldDiskId), 0u);
}

// A seed with warnings is written, the warnings reported (stderr, --json);
// --force-seed writes a file the schema refuses, its errors as warnings.
TEST(ProvisionSeed, SeedWarningsAndForceSeedAreWrittenWithTheSeed) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mtype");
  PIPROV_REQUIRE_SHARED("cloud-init/07-user-data-plain-text-password-typo", ud07);
  PIPROV_REQUIRE_SHARED("cloud-init/02-ubuntu2404-pi-gadget-network-config", nc02);
  PIPROV_REQUIRE_SHARED("cloud-init/03-ubuntu2404-pi-gadget-meta-data", md03);
  TempDir d("piprov-seed");
  if (auto why = make_seed_image(d.path / "img.img", true); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice a(d.path / "a.img", 1ull << 30);
  const std::string cmd = piprov::test::piprov_bin() + " provision " + q((d.path / "img.img").string()) + " " + a.path +
                          " --yes --progress none --hostname n1 --user-data " + q(ud07.string()) +
                          " --network-config " + q(nc02.string()) + " --meta-data " + q(md03.string());
  auto p = run(cmd + " --force-seed --json");
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  auto j = nlohmann::json::parse(p.out);
  const auto& sc = j["seed_check"];
  std::map<std::string, nlohmann::json> by_rule;
  for (const auto& f : sc["findings"]) by_rule[f["rule"]] = f;
  ASSERT_TRUE(by_rule.count("seed-schema-error")) << sc.dump(2);
  EXPECT_EQ(by_rule["seed-schema-error"]["severity"], "warning");
  EXPECT_EQ(by_rule["seed-schema-error"]["line"], 4);
  EXPECT_EQ(by_rule["seed-schema-error"]["key"], "users.0.plain_text_password");
  EXPECT_EQ(by_rule["seed-meta-data-key-ignored"]["line"], 18);
  EXPECT_EQ(by_rule["seed-meta-data-key-ignored"]["key"], "instance_id");
  EXPECT_EQ(by_rule["seed-clear-text-password"]["severity"], "warning");
  // The seed is on the boot partition: the user's user-data plus the hostname, the meta-data's own keys kept.
  std::string ud = boot_file(a.path + "p1", "user-data"), md = boot_file(a.path + "p1", "meta-data");
  EXPECT_NE(ud.find("plain_text_password"), std::string::npos) << ud;
  EXPECT_EQ(YAML::Load(ud)["hostname"].as<std::string>(), "n1");
  EXPECT_EQ(YAML::Load(md)["instance-id"].as<std::string>(), j["targets"][0]["identity"]["instance_id"]);
  EXPECT_EQ(boot_file(a.path + "p1", "network-config"), read_file(nc02));
  // Without --force-seed: refused, exit 2 (nothing written: the other test checks the bytes).
  auto refused = run(cmd);
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("plain_text_password"), std::string::npos) << refused.err;
}

// Identity options on an image without cloud-init: refused before any byte is written when the
// image's root fs can be read up front (was: after the write, though the dry run knew it); an
// image read only from its start (.gz) is refused after the write, saying what the disk holds; the
// disk still boots (PARTUUIDs rewritten).
TEST(ProvisionSeed, ImageWithoutCloudInitIsRefusedWithTheDiskState) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-seed");
  if (auto why = make_seed_image(d.path / "img.img", false); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice a(d.path / "a.img", 1ull << 30);
  ASSERT_EQ(
      run("yes piprov-untouched | head -c 1048576 | dd of=" + q(a.path) + " bs=1M conv=fsync status=none").exit_code,
      0);
  const std::string before = first_mib(a.path);
  auto early = run(piprov::test::piprov_bin() + " provision " + q((d.path / "img.img").string()) + " " + a.path +
                   " --yes --progress none --hostname lonely");
  EXPECT_EQ(early.exit_code, 2) << early.out << early.err;
  EXPECT_NE(early.err.find("has no cloud-init (/usr/bin/cloud-init and /etc/cloud missing)"), std::string::npos)
      << early.err;
  EXPECT_NE(early.err.find("nothing was written"), std::string::npos) << early.err;
  EXPECT_EQ(early.err.find("step 'seed'"), std::string::npos) << early.err;
  EXPECT_EQ(first_mib(a.path), before) << "the disk was written before the refusal";
  // The dry run says the same, up front.
  auto dry = run(piprov::test::piprov_bin() + " provision --dry-run " + q((d.path / "img.img").string()) + " " +
                 a.path + " --hostname lonely");
  EXPECT_EQ(dry.exit_code, 2) << dry.out << dry.err;
  EXPECT_NE(dry.err.find("has no cloud-init"), std::string::npos) << dry.err;
  // A --user-data with schema errors: the image's missing cloud-init is said first, not the
  // errors with "or pass --force-seed", which would then be refused for it (trial 9 finding 11).
  piprov::test::write_file(d.path / "bad.ud", "#cloud-config\nusers: 5\nruncmd: 7\n");
  for (const std::string force : {"", " --force-seed"}) {
    auto bad = run(piprov::test::piprov_bin() + " provision --dry-run " + q((d.path / "img.img").string()) + " " +
                   a.path + " --user-data " + q((d.path / "bad.ud").string()) + force);
    EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
    EXPECT_EQ(bad.err,
              "piprov: error: the image's root fs has no cloud-init (/usr/bin/cloud-init and /etc/cloud missing), so "
              "it would ignore a first-boot seed: use an image with cloud-init (Ubuntu's raspi images, Raspberry Pi "
              "OS trixie) or provision without identity options; nothing was written\n");
    EXPECT_EQ(bad.err.find("--force-seed"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.err.find("schema"), std::string::npos) << bad.err;
  }

  // gzip: its root fs lies behind the bytes written first; refused after the write.
  ASSERT_EQ(run("gzip -1 -k " + q((d.path / "img.img").string())).exit_code, 0);
  auto p = run(piprov::test::piprov_bin() + " provision " + q((d.path / "img.img.gz").string()) + " " + a.path +
               " --yes --progress none --hostname lonely");
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_NE(p.err.find("provision failed at step 'seed'"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("has no cloud-init (/usr/bin/cloud-init and /etc/cloud missing)"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("no seed was written"), std::string::npos) << p.err;
  auto sf = run("partx -g -o UUID -n 2 " + a.path);
  std::string partuuid(piprov::trim(sf.out));
  EXPECT_NE(partuuid, std::string(kOldDiskId) + "-02");
  EXPECT_NE(boot_file(a.path + "p1", "cmdline.txt").find("root=PARTUUID=" + partuuid + " "), std::string::npos);
  EXPECT_NE(run("MTOOLS_SKIP_CHECK=1 mtype -i " + a.path + "p1 ::meta-data").exit_code, 0) << "a seed was written";
  // --json: the report is printed also when no disk got through (exit and stderr as above).
  auto j = run(piprov::test::piprov_bin() + " provision " + q((d.path / "img.img.gz").string()) + " " + a.path +
               " --yes --progress none --hostname lonely --json");
  EXPECT_EQ(j.exit_code, 2) << j.out << j.err;
  EXPECT_NE(j.err.find("provision failed at step 'seed'"), std::string::npos) << j.err;
  auto doc = nlohmann::json::parse(j.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << j.out;
  EXPECT_EQ(doc["schema"], "piprov.provision/3");
  EXPECT_EQ(doc["succeeded"], 0);
  EXPECT_EQ(doc["failed"], 1);
  EXPECT_NE(doc["targets"][0]["error"].get<std::string>().find("step 'seed'"), std::string::npos) << j.out;
}

// `seed check --image` takes a disk image: a text file is one error line, exit 2 (was accepted,
// the files then judged by this machine's cloud-init with a warning).
TEST(SeedCheckCommand, ImageThatIsNoDiskImageIsRefused) {
  TempDir d("piprov-seed-check-image");
  piprov::test::write_file(d.path / "user-data", "#cloud-config\nhostname: a\n");
  piprov::test::write_file(d.path / "notes.txt", "this is not a disk image\n");
  auto r = run(piprov::test::piprov_bin() + " seed check --user-data " + q((d.path / "user-data").string()) +
               " --image " + q((d.path / "notes.txt").string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "piprov: error: --image " + (d.path / "notes.txt").string() +
                       " holds no partition table (no MBR or GPT at its start): not a disk image; give the .img or "
                       ".img.xz the seed goes onto\n");
  EXPECT_EQ(r.out, "");
}
