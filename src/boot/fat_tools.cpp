#include "boot/fat_tools.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "core/hashing.hpp"
#include "core/mounts.hpp"
#include "core/process.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

// mtools without its geometry check (it would otherwise refuse a FAT whose
// geometry it does not like: mtools manual, MTOOLS_SKIP_CHECK); run as core/process runs every program.
std::pair<int, std::string> run_tool(const std::vector<std::string>& argv) {
  ProgramResult r = run_program(argv, {.env = {"MTOOLS_SKIP_CHECK=1"}, .capture_stdout = false, .input = {}});
  return {r.exit_code, r.err};
}

void tool_or_throw(const std::vector<std::string>& argv) {
  auto [code, err] = run_tool(argv);
  if (code != 0)
    throw Error(ErrorKind::Io,
                command_line(argv) + " failed (exit " + std::to_string(code) + (err.empty() ? "" : ": " + err) + ")");
}

bool last_to_write(const std::string& name) {
  return name == "config.txt" || name.find("cmdline") != std::string::npos;
}

}  // namespace

bool mtools_available() { return run_tool({"mcopy", "-V"}).first == 0; }

void fat_copy_out(const std::string& device, const fs::path& dir) {
  fs::create_directories(dir);
  tool_or_throw({"mcopy", "-s", "-p", "-m", "-n", "-i", device, "::/", dir.string() + "/"});
}

bool fat_copy_file_out(const std::string& device, const std::string& name, const fs::path& dir) {
  fs::create_directories(dir);
  auto [code, err] = run_tool({"mcopy", "-p", "-m", "-n", "-i", device, "::/" + name, (dir / name).string()});
  if (code == 127) throw Error(ErrorKind::Io, "mcopy cannot be run: install mtools");
  return code == 0;
}

std::map<std::string, std::string> tree_hashes(const fs::path& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) m[fs::relative(e.path(), dir).string()] = sha256_file(e.path());
  return m;
}

std::vector<std::string> fat_write_back(const std::string& device, const fs::path& dir,
                                        const std::map<std::string, std::string>& before) {
  auto after = tree_hashes(dir);
  std::vector<std::string> changed, removed, actions;
  for (const auto& [name, h] : after) {
    auto it = before.find(name);
    if (it == before.end() || it->second != h) changed.push_back(name);
  }
  for (const auto& [name, h] : before)
    if (!after.count(name)) removed.push_back(name);
  // Directories the partition has (every parent of a file it held), and the
  // ones a changed file needs: made with mmd before the files go in (an A/B
  // layout's current/cmdline.txt, a new overlays/ file).
  std::set<std::string> dirs;
  auto parents = [](const std::string& n) {
    std::vector<std::string> out;
    for (auto slash = n.find('/'); slash != std::string::npos; slash = n.find('/', slash + 1))
      out.push_back(n.substr(0, slash));
    return out;
  };
  for (const auto& [name, h] : before)
    for (auto& p : parents(name)) dirs.insert(std::move(p));
  for (const auto& n : changed)
    for (const auto& p : parents(n))
      if (dirs.insert(p).second) {
        tool_or_throw({"mmd", "-i", device, "::/" + p});
        actions.push_back(fmt::format("made the directory {} on {} (mtools)", p, device));
      }
  // Kernel files first, the files that name them last: a failure in between
  // leaves config.txt pointing at what was there before.
  std::stable_partition(changed.begin(), changed.end(), [](const std::string& n) { return !last_to_write(n); });
  for (const auto& n : changed) {
    tool_or_throw({"mcopy", "-o", "-p", "-m", "-n", "-i", device, (dir / n).string(), "::/" + n});
    actions.push_back(fmt::format("wrote {} to {} (mtools)", n, device));
  }
  for (const auto& n : removed) {
    tool_or_throw({"mdel", "-i", device, "::/" + n});
    actions.push_back(fmt::format("deleted {} from {} (mtools)", n, device));
  }
  // Read back and compare.
  const fs::path rb = make_temp_dir("readback");
  try {
    fat_copy_out(device, rb);
    auto back = tree_hashes(rb);
    for (const auto& [name, h] : after) {
      auto it = back.find(name);
      if (it == back.end() || it->second != h)
        throw Error(ErrorKind::Verify,
                    fmt::format("read-back of {} from {} differs from what was written", name, device));
    }
  } catch (...) {
    std::error_code ec;
    fs::remove_all(rb, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(rb, ec);
  actions.push_back("read back " + std::to_string(after.size()) + " files from " + device + ": all match");
  return actions;
}

FatDir::FatDir(std::string device, const FatDirOptions& o) : device_(std::move(device)), writable_(o.writable) {
  if (!o.mountpoint.empty() && !o.writable) {
    dir_ = o.mountpoint;
    return;
  }
  own_dir_ = o.dir.empty();
  dir_ = own_dir_ ? make_temp_dir(o.temp_name) : o.dir;
  try {
    if (o.mount) {
      try {
        mount_filesystem(device_, dir_.string(), "vfat", o.writable ? "" : "ro");
        mounted_ = true;
        return;
      } catch (const Error& e) {
        if ((o.writable && e.sys_errno() != ENODEV) || !mtools_available()) throw;
      }
    }
    copied_ = true;
    if (o.names.empty()) {
      fat_copy_out(device_, dir_);
      if (writable_) before_ = tree_hashes(dir_);
    } else {
      for (const auto& n : o.names) fat_copy_file_out(device_, n, dir_);
    }
  } catch (...) {
    close();
    throw;
  }
}

FatDir::~FatDir() { close(); }

std::vector<std::string> FatDir::write_back() {
  if (!copied_ || !writable_) return {};
  return fat_write_back(device_, dir_, before_);
}

std::string FatDir::close() noexcept {
  std::string problem;
  try {
    std::error_code ec;
    if (mounted_) {
      mounted_ = false;
      try {
        unmount_filesystem(dir_.string());
      } catch (const Error& e) {
        own_dir_ = false;  // never delete into a mounted file system
        problem = std::string(e.what()) + " (still mounted at " + dir_.string() + ")";
      }
      if (own_dir_) fs::remove(dir_, ec);
    } else if (copied_) {
      copied_ = false;
      if (own_dir_) {
        fs::remove_all(dir_, ec);
      } else {
        for (const auto& e : fs::directory_iterator(dir_, ec)) fs::remove_all(e.path(), ec);
      }
    } else if (own_dir_) {
      fs::remove(dir_, ec);  // made, but neither mounted nor copied (a failed constructor)
    }
    own_dir_ = false;
  } catch (...) {
  }
  return problem;
}

}  // namespace piprov::boot
