#pragma once
// Where piprov reads the kernel's view of the machine (/sys, /proc,
// /proc/device-tree, /etc/default): the real root, or a fake tree a test
// builds in a temp dir (the seam ninja's VirtualFileSystem is for ninja).
#include <filesystem>
#include <string_view>

namespace piprov {

/// A root directory that absolute system paths are resolved under.
class SysRoot {
 public:
  /// `root` "/" is the running system; tests pass a temp dir.
  SysRoot(std::filesystem::path root = "/") : root_(std::move(root)) {}  // NOLINT(google-explicit-constructor)
  /// The running system's root ("/").
  static const SysRoot& host();
  const std::filesystem::path& root() const { return root_; }
  /// `abs` ("/sys/block") under the root ("ROOT/sys/block"); `abs` unchanged for "/".
  std::filesystem::path operator()(std::string_view abs) const;
  /// `real` ("ROOT/sys/block/sda") back as the system path ("/sys/block/sda").
  std::string system_path(const std::filesystem::path& real) const;
  bool is_host() const { return root_ == "/"; }

 private:
  std::filesystem::path root_;
};

}  // namespace piprov
