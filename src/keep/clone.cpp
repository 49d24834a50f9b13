// `piprov clone SOURCE TARGET...` (clone.hpp): the checks before the first
// byte, the one read of SOURCE for every TARGET, then each TARGET's steps
// (clone_target.hpp) on its own thread.
#include "keep/clone.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <thread>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "core/write_guard.hpp"
#include "image/disk_reader.hpp"
#include "image/image_fs.hpp"
#include "image/partition_table.hpp"
#include "image/write_targets.hpp"
#include "keep/clone_live.hpp"
#include "keep/clone_target.hpp"
#include "keep/source_disk.hpp"

namespace piprov::keep {

namespace fs = std::filesystem;

namespace {

using CloneClock = std::chrono::steady_clock;

/// What makes two paths one disk: the device number of a block device, the
/// file behind a loop device (loop(4)), a regular file's canonical path.
std::set<std::string> clone_disk_keys(const std::string& path) {
  std::set<std::string> keys;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return keys;
  std::error_code ec;
  if (S_ISREG(st.st_mode)) {
    keys.insert("file:" + fs::weakly_canonical(path, ec).string());
    return keys;
  }
  if (!S_ISBLK(st.st_mode)) return keys;
  keys.insert("dev:" + std::to_string(st.st_rdev));
  const WriteSubject s = inspect_write_subject(path);
  if (s.disk.devno != 0) keys.insert("dev:" + std::to_string(s.disk.devno));
  if (!s.disk.backing_file.empty()) keys.insert("file:" + fs::weakly_canonical(s.disk.backing_file, ec).string());
  return keys;
}

/// SOURCE given as a TARGET too (also by another name, or the file behind a loop device).
void refuse_source_as_target(const CloneOptions& o) {
  const auto source = clone_disk_keys(o.source);
  for (const auto& t : o.targets) {
    for (const auto& k : clone_disk_keys(t))
      if (source.count(k))
        throw Error(ErrorKind::Usage,
                    fmt::format("{} is {}, the SOURCE: a disk cannot be cloned onto itself; give another TARGET "
                                "(nothing was written)",
                                t, o.source));
  }
}

/// The write guard for each TARGET as provision has it (a whole disk, never
/// the system disk, mounted only with --unmount), every TARGET before any.
void check_clone_targets(const CloneOptions& o) {
  std::vector<std::string> refused;
  for (const auto& target : o.targets)
    if (auto no = evaluate_write(inspect_write_subject(target), WriteIntent::ProvisionDisk, {.unmount = o.unmount}))
      refused.push_back(no->message);
  if (refused.size() == 1) throw Error(ErrorKind::Usage, refused.front());
  if (!refused.empty()) throw Error(ErrorKind::Usage, join(refused, "\n") + "\nnothing was written to any target");
}

/// SOURCE's layout from its partition table: what is copied, what a TARGET needs, which partition grows.
CloneLayout read_clone_layout(const std::string& source) {
  auto reader = image::open_disk_reader(source);
  CloneLayout l;
  const std::uint64_t size = reader->size();
  // Every partition, an MBR's logical ones among them (the EBR chain); the last one an extended partition's
  // contents, never the container itself. What ends last (a container may end after its last logical one) is copied.
  const image::PartitionTable t = image::read_image_partitions(*reader);
  l.table = t.parts.empty() ? image::TableScheme::None : t.scheme;
  l.source_bytes = l.copy_bytes = l.need_bytes = size;
  if (t.parts.empty()) return l;
  std::uint64_t end = 0;
  for (const auto& p : t.parts) end = std::max(end, p.offset + p.size);
  if (const auto last = image::last_data_partition(t)) {
    l.last_number = last->number;
    l.last_offset = last->offset;
    l.last_bytes = last->size;
    if (const auto container = image::extended_container_of(t, *last)) l.last_extended = container->number;
  } else {
    l.last_note = t.logical_note;  // an EBR chain not read to its end: the last partition is not known
  }
  // At least the first MiB (the table, boot code, a GPT's entries), whole 4 KiB blocks.
  l.copy_bytes = std::min(size, std::max<std::uint64_t>(1u << 20, (end + 4095) / 4096 * 4096));
  l.need_bytes = l.copy_bytes + (l.table == image::TableScheme::Gpt ? kGptBackupBytes : 0);
  return l;
}

/// A TARGET that cannot hold SOURCE's partitions, saying by how much.
void refuse_small_targets(const std::vector<image::TargetInfo>& infos, const CloneLayout& l,
                          const std::string& source) {
  std::vector<std::string> refused;
  for (const auto& t : infos) {
    if (t.capacity >= l.need_bytes) continue;
    const std::uint64_t short_by = l.need_bytes - t.capacity;
    refused.push_back(fmt::format(
        "{} ({}, {} bytes) is too small for {}: {} {} bytes ({}); it is {} bytes ({}) short; piprov clone does not "
        "shrink file systems: use a larger disk, or `piprov backup --shrink {} FILE.img.zst` and write that",
        t.path, format_bytes(t.capacity), t.capacity, source,
        l.table == image::TableScheme::None ? "it holds" : "its partitions need", l.need_bytes,
        format_bytes(l.need_bytes), short_by, format_bytes(short_by), source));
  }
  if (refused.size() == 1) throw Error(ErrorKind::Usage, refused.front() + " (nothing was written)");
  if (!refused.empty()) throw Error(ErrorKind::Usage, join(refused, "\n") + "\nnothing was written to any target");
}

/// The one question, every TARGET described, unless --yes.
void confirm_clone(const CloneOptions& o, const std::vector<image::TargetInfo>& infos, const CloneLayout& l,
                   bool live = false) {
  if (o.assume_yes) return;
  std::vector<std::string> paths;
  std::string text = infos.size() == 1 ? "piprov will ERASE everything on:"
                                       : fmt::format("piprov will ERASE everything on these {} disks:", infos.size());
  for (const auto& t : infos) {
    text += "\n  " + image::describe_target(t);
    paths.push_back(t.path);
  }
  text += fmt::format(
      "\nwith a copy of {} ({} of it: {})", o.source, format_bytes(l.copy_bytes),
      l.table == image::TableScheme::None ? "no partition table, all of it" : "up to the end of its last partition");
  if (live) text += "\n" + o.source + " is mounted: its mounted file systems are copied file by file (rsync)";
  if (!o.confirm)
    throw Error(ErrorKind::Usage,
                fmt::format("refusing to clone onto {} without confirmation: pass --yes", join(paths, ", ")));
  if (!o.confirm(text))
    throw Error(ErrorKind::Usage, fmt::format("not confirmed: nothing was written to {}", join(paths, ", ")));
}

/// What limited the speed: the writers waited for SOURCE, or SOURCE's readers for the slowest TARGET.
std::string clone_limit(const CloneResult& r) {
  const auto& sp = r.write.speed;
  if (sp.writers_waited_seconds >= sp.decoder_waited_seconds)
    return fmt::format("read-bound: the writer{} waited {} for {} ({} reader thread(s)), the readers {} for {}",
                       r.targets.size() == 1 ? "" : "s", format_duration(sp.writers_waited_seconds), r.source,
                       r.write.decoder_threads, format_duration(sp.decoder_waited_seconds),
                       sp.slowest_target.empty() ? "the writers" : sp.slowest_target);
  return fmt::format("write-bound: the readers waited {} for {}, the writer{} {} for {}",
                     format_duration(sp.decoder_waited_seconds),
                     sp.slowest_target.empty() ? "the writers" : sp.slowest_target, r.targets.size() == 1 ? "" : "s",
                     format_duration(sp.writers_waited_seconds), r.source);
}

/// `steps` on every TARGET whose write went through, all at once (a thread each); a failure is its own.
void finish_all_targets(CloneResult& r, const std::function<void(CloneTarget&)>& steps) {
  std::vector<std::thread> threads;
  for (auto& t : r.targets) {
    if (!t.write.ok) continue;
    threads.emplace_back([&steps, &t] {
      const auto t0 = CloneClock::now();
      try {
        steps(t);
        t.ok = true;
      } catch (const Error& e) {
        t.error_kind = e.kind();
        t.error = e.what();
      } catch (const std::exception& e) {
        t.error_kind = ErrorKind::Io;
        t.error = fmt::format("{}: {}", t.target, e.what());
      }
      t.steps_seconds = std::chrono::duration<double>(CloneClock::now() - t0).count();
    });
  }
  for (auto& th : threads) th.join();
}

/// --new-identity: one seed per TARGET from provision's identity options (plan_seeds(): every option and file
/// checked before the first byte); identity options without --new-identity are refused.
std::vector<provision::SeedPlan> plan_clone_seeds(const CloneOptions& o) {
  if (!o.new_identity) {
    if (o.identity.any())
      throw Error(ErrorKind::Usage,
                  "identity options (--hostname, --user, ...) give each TARGET its own identity: add --new-identity "
                  "(without it the clone is the same node as SOURCE)");
    return {};
  }
  if (!o.identity.any())
    throw Error(ErrorKind::Usage,
                "--new-identity needs provision's identity options, at least --hostname (e.g. --hostname "
                "'node{2..4}'): they make each TARGET's cloud-init seed");
  return provision::plan_seeds(o.identity, o.targets);
}

/// The error when no TARGET got through: the first one's kind, a line per TARGET.
[[noreturn]] void throw_none_cloned(const CloneResult& r) {
  std::vector<std::string> lines;
  lines.reserve(r.targets.size());
  for (const auto& t : r.targets) lines.push_back(t.error);
  throw Error(r.targets.front().error_kind, join(lines, "\n"));
}

/// A mounted SOURCE: copied file by file onto every TARGET (clone_live.hpp).
CloneResult run_live_clone(const CloneOptions& o, const CloneLayout& layout,
                           const std::vector<image::TargetInfo>& infos, const std::vector<provision::SeedPlan>& seeds) {
  const Disk d = probe_disk(o.source);
  check_live_source(d);
  if (layout.table == image::TableScheme::None)
    throw Error(ErrorKind::Usage, o.source +
                                      " is mounted and has no partition table: piprov clone copies a live "
                                      "disk partition by partition; unmount it (nothing was written)");
  CloneLayout l = layout;
  for (const auto& p : d.partitions)
    if (p.number == static_cast<int>(l.last_number)) l.last_fs = p.fstype;
  confirm_clone(o, infos, l, true);
  CloneResult r;
  r.live = true;
  r.source = o.source;
  r.source_bytes = l.source_bytes;
  r.copy_bytes = l.copy_bytes;
  r.table = l.table;
  const auto t0 = CloneClock::now();
  for (const auto& info : infos) {
    CloneTarget t;
    t.target = info.path;
    t.write.target = info.path;
    t.write.ok = true;
    if (!info.disk.mounted().empty()) t.write.unmounted = image::unmount_target(info);  // --unmount (the guard)
    if (!seeds.empty()) t.seed = seeds[r.targets.size()];
    t.board = o.board;
    t.source = o.source;
    r.targets.push_back(std::move(t));
  }
  finish_all_targets(r, [&l, &d](CloneTarget& t) { clone_live_target(l, d, t); });
  r.seconds = std::chrono::duration<double>(CloneClock::now() - t0).count();
  r.limit = "a live copy: mkfs and rsync per mounted file system, dd for the others (not measured)";
  if (r.succeeded() == 0) throw_none_cloned(r);
  return r;
}

}  // namespace

std::size_t CloneResult::succeeded() const {
  return static_cast<std::size_t>(std::count_if(targets.begin(), targets.end(), [](const auto& t) { return t.ok; }));
}

CloneResult run_clone(const CloneOptions& o) {
  if (o.source.empty() || o.targets.empty()) throw Error(ErrorKind::Usage, "clone needs SOURCE and TARGET");
  const std::optional<WriteSubject> source = inspect_source_disk(o.source);
  refuse_source_as_target(o);
  check_clone_targets(o);
  const std::vector<provision::SeedPlan> seeds = plan_clone_seeds(o);
  image::WriteOptions wo;
  wo.image = o.source;
  wo.targets = o.targets;
  wo.verify = o.verify;
  wo.assume_yes = true;  // asked below, in clone's words
  wo.unmount = o.unmount;
  wo.threads = o.threads;
  wo.progress = o.progress;
  wo.return_when_all_fail = true;
  std::vector<image::TargetInfo> infos = image::check_targets(wo);  // the guard for a write, SOURCE not on a TARGET

  const CloneLayout layout = read_clone_layout(o.source);
  refuse_small_targets(infos, layout, o.source);
  if (source && !source->mounted.empty()) return run_live_clone(o, layout, infos, seeds);
  auto reader = image::open_disk_reader(o.source, layout.copy_bytes);
  image::SkipFilter filter([&reader](std::span<std::byte> out, std::uint64_t offset) { reader->read_at(out, offset); },
                           reader->size(), image::read_partition_table(*reader, std::nullopt));
  CloneResult r;
  r.source = o.source;
  r.source_bytes = layout.source_bytes;
  r.copy_bytes = layout.copy_bytes;
  r.table = layout.table;
  r.partitions = filter.partitions();
  r.note = filter.note();
  refuse_damaged_source(r.partitions, o.source, o.force, "copy it");
  CloneLayout l = layout;
  for (const auto& p : r.partitions)
    if (p.number == l.last_number) l.last_fs = p.fs;
  confirm_clone(o, infos, l);

  const auto t0 = CloneClock::now();
  r.write = image::write_from_reader(wo, std::move(infos), *reader, &filter);
  r.read_bytes = r.write.decode.bytes_decoded;
  r.skipped_bytes = r.write.skipped_bytes;
  for (const auto& w : r.write.targets) {
    CloneTarget t;
    t.target = w.target;
    t.write = w;
    t.error_kind = w.error_kind;
    t.error = w.error;
    if (!seeds.empty()) t.seed = seeds[r.targets.size()];
    t.board = o.board;
    t.source = o.source;
    r.targets.push_back(std::move(t));
  }
  finish_all_targets(r, [&l](CloneTarget& t) { finish_clone_target(l, t); });
  r.seconds = std::chrono::duration<double>(CloneClock::now() - t0).count();
  r.limit = clone_limit(r);
  if (r.succeeded() == 0) throw_none_cloned(r);
  return r;
}

}  // namespace piprov::keep
