#include "core/mounts.hpp"

#include <libmount/libmount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "core/error.hpp"

namespace piprov {
namespace {
struct TableDel {
  void operator()(libmnt_table* t) const { mnt_unref_table(t); }
};
struct IterDel {
  void operator()(libmnt_iter* i) const { mnt_free_iter(i); }
};
struct CtxDel {
  void operator()(libmnt_context* c) const { mnt_free_context(c); }
};

// Throws Error{Io} "<what>: <reason><hint>" unless libmount's mount/umount
// call (return code `rc`) succeeded; the reason is libmount's own message
// (mnt_context_get_excode), else strerror of the syscall's errno; the
// error's sys_errno() is that errno (ENODEV: the kernel has no driver for
// the file system type, mount(2) ERRORS).
void check_mnt_result(libmnt_context* cxt, int rc, const std::string& what, const std::string& hint = "") {
  if (rc == 0 && mnt_context_get_status(cxt) == 1) return;
  int err = rc > 0 ? mnt_context_get_syscall_errno(cxt) : -rc;
  char buf[BUFSIZ] = {0};
  mnt_context_get_excode(cxt, rc, buf, sizeof buf);
  throw Error::system(ErrorKind::Io,
                      what + ": " + (buf[0] ? std::string(buf) : std::string(std::strerror(err ? err : EIO))) + hint,
                      err ? err : EIO);
}
}  // namespace

std::vector<MountEntry> mount_table() {
  std::unique_ptr<libmnt_table, TableDel> tb(mnt_new_table());
  if (!tb || mnt_table_parse_mtab(tb.get(), nullptr) != 0)
    throw Error(ErrorKind::Io, "cannot read the mount table (/proc/self/mountinfo)");
  std::unique_ptr<libmnt_iter, IterDel> it(mnt_new_iter(MNT_ITER_FORWARD));
  std::vector<MountEntry> out;
  libmnt_fs* fs = nullptr;
  while (mnt_table_next_fs(tb.get(), it.get(), &fs) == 0) {
    MountEntry e;
    if (const char* s = mnt_fs_get_source(fs)) e.source = s;
    if (const char* t = mnt_fs_get_target(fs)) e.target = t;
    if (const char* f = mnt_fs_get_fstype(fs)) e.fstype = f;
    e.devno = mnt_fs_get_devno(fs);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string> mountpoints_of(dev_t devno) {
  std::vector<std::string> out;
  if (devno == 0) return out;
  for (const auto& e : mount_table())
    if (e.devno == devno) out.push_back(e.target);
  return out;
}

std::vector<dev_t> active_swap_devices() {
  std::vector<dev_t> out;
  std::unique_ptr<libmnt_table, TableDel> tb(mnt_new_table());
  if (!tb || mnt_table_parse_swaps(tb.get(), nullptr) != 0) return out;  // no /proc/swaps: no swap
  std::unique_ptr<libmnt_iter, IterDel> it(mnt_new_iter(MNT_ITER_FORWARD));
  libmnt_fs* fs = nullptr;
  while (mnt_table_next_fs(tb.get(), it.get(), &fs) == 0) {
    const char* src = mnt_fs_get_source(fs);
    struct stat st {};
    if (src && ::stat(src, &st) == 0 && S_ISBLK(st.st_mode)) out.push_back(st.st_rdev);
  }
  return out;
}

void mount_filesystem(const std::string& source, const std::string& target, const std::string& fstype,
                      const std::string& options) {
  std::unique_ptr<libmnt_context, CtxDel> cxt(mnt_new_context());
  mnt_context_set_source(cxt.get(), source.c_str());
  mnt_context_set_target(cxt.get(), target.c_str());
  if (!fstype.empty() && fstype != "auto") mnt_context_set_fstype(cxt.get(), fstype.c_str());
  if (!options.empty()) mnt_context_set_options(cxt.get(), options.c_str());
  mnt_context_disable_mtab(cxt.get(), 1);
  check_mnt_result(cxt.get(), mnt_context_mount(cxt.get()), "cannot mount " + source + " on " + target);
}

void unmount_filesystem(const std::string& target) {
  // EBUSY is retried for up to 5 s: a program another thread started in that moment (mcopy,
  // e2fsck, rsync) may have inherited a descriptor of a file on the mount (std::fstream opens
  // without O_CLOEXEC) and holds it until it ends.
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<libmnt_context, CtxDel> cxt(mnt_new_context());
    mnt_context_set_target(cxt.get(), target.c_str());
    mnt_context_disable_mtab(cxt.get(), 1);
    try {
      check_mnt_result(cxt.get(), mnt_context_umount(cxt.get()), "cannot unmount " + target,
                       " (close programs using it and retry)");
      return;
    } catch (const Error& e) {
      if (e.sys_errno() != EBUSY || attempt >= 50) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace piprov
