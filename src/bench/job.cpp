// The job runner: threads x (engine, fd, iodepth buffers), time-based with a
// ramp, latency histograms, fsync timing. Model: fio's backend.c/io_u.c.
#include <fcntl.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>  // clock_gettime (POSIX, through <time.h>)
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/devinfo.hpp"
#include "bench/engines/engine.hpp"
#include "bench/job.hpp"
#include "bench/options.hpp"
#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"

namespace piprov::bench {

std::uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

namespace {
inline std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

void fill_random(void* buf, std::size_t len, std::uint64_t& state) {
  auto* p = static_cast<unsigned char*>(buf);
  std::size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    std::uint64_t v = splitmix(state);
    std::memcpy(p + i, &v, 8);
  }
  if (i < len) {
    std::uint64_t v = splitmix(state);
    std::memcpy(p + i, &v, len - i);
  }
}

void validate(const JobSpec& s, const JobTarget& t) {
  auto bad = [](const std::string& m) { throw Error(ErrorKind::Usage, m); };
  check_limit(option_limit("--bs"), static_cast<double>(s.bs));
  if (s.direct && s.bs % t.align)
    bad("--bs " + std::to_string(s.bs) + " is not a multiple of the target's O_DIRECT alignment " +
        std::to_string(t.align) + " bytes; pick a multiple or use --buffered");
  check_limit(option_limit("--iodepth"), s.iodepth);
  check_limit(option_limit("--numjobs"), s.numjobs);
  if (!(s.size_bound && s.runtime_s == 0)) check_limit(option_limit("--runtime"), s.runtime_s);
  check_limit(option_limit("--ramp"), s.ramp_s);
  check_limit(option_limit("--rwmixread"), s.rwmixread);
  if (t.size < s.bs) bad("the test range (" + std::to_string(t.size) + " bytes) is smaller than --bs");
}

namespace {

struct Shared {
  const JobSpec& spec;
  const JobTarget& target;
  std::atomic<std::uint64_t> ramp_end{0}, end{0};  // set when every worker is ready
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> ios{0};
  std::mutex mu;
  int err = 0;
  std::string error;
  std::atomic<unsigned> finished{0};  // workers done (a size_bound job ends before its end time)
  void fail(int e, const std::string& what) {
    std::lock_guard lock(mu);
    if (!err) err = e, error = what;
    stop = true;
  }
};

struct WorkerResult {
  Histogram rlat, wlat, sync;
  std::uint64_t rbytes = 0, wbytes = 0;
  std::uint64_t measured_start = 0, last = 0;
};

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

// One job thread: its own fd, engine and iodepth buffers, kept full until the
// shared end time. Setup failures are reported through Shared::fail.
class Worker {
 public:
  Worker(Shared& sh, unsigned idx, WorkerResult& res)
      : sh_(sh),
        s_(sh.spec),
        t_(sh.target),
        idx_(idx),
        res_(res),
        blocks_(t_.size / s_.bs),
        mixed_(s_.has_reads() && s_.has_writes()),
        writes_only_(!s_.has_reads()),
        random_(s_.random()) {}
  void run();

 private:
  bool open_file();
  bool start_engine();
  bool make_buffers();
  void wait_for_go();
  void io_loop();
  bool fill_queue();
  bool issue(IoUnit& u);
  void complete(IoUnit* u, std::uint64_t now);
  void fail_io(const IoUnit& u);
  void reap(unsigned min);
  void drain() {
    while (inflight_) reap(1);
  }
  void do_fsync();
  void end_fsync();
  bool issued_all() const { return s_.size_bound && issued_ >= blocks_ * s_.bs; }
  bool running() const { return !sh_.stop.load(std::memory_order_relaxed) && !cancel_requested(); }

  Shared& sh_;
  const JobSpec& s_;
  const JobTarget& t_;
  const unsigned idx_;
  WorkerResult& res_;
  const std::uint64_t blocks_;
  const bool mixed_, writes_only_, random_;
  UniqueFd file_;
  std::unique_ptr<Engine> eng_;
  std::vector<std::unique_ptr<void, AlignedFree>> bufs_;
  std::vector<IoUnit> units_;
  std::vector<IoUnit*> free_units_, done_;
  std::uint64_t rng_ = 0, seq_block_ = 0, writes_ = 0, issued_ = 0;
  std::uint64_t ramp_end_ = 0, end_ = 0;  // copied from sh_ once the clock starts
  unsigned inflight_ = 0;
  bool measuring_ = false;
};

void Worker::run() {
  const bool prepared = open_file() && start_engine() && make_buffers();
  // The clock starts once every thread has its fd, engine and buffers (or failed).
  sh_.ready.fetch_add(1);
  if (prepared) {
    wait_for_go();
    try {
      io_loop();
      drain();
      if (s_.end_fsync && s_.has_writes()) end_fsync();
    } catch (const Error& e) {
      sh_.fail(EIO, e.what());
    }
  }
  sh_.finished.fetch_add(1);
}

bool Worker::open_file() {
  const int flags =
      (s_.has_writes() ? O_RDWR : O_RDONLY) | O_CLOEXEC | (s_.direct ? O_DIRECT : 0) | (s_.dsync ? O_DSYNC : 0);
  file_.reset(::open(t_.path.c_str(), flags));
  if (file_) return true;
  const int e = errno;
  sh_.fail(e, "open " + t_.path);
  return false;
}

bool Worker::start_engine() {
  try {
    eng_ = make_engine(s_.engine);
    eng_->init(file_.get(), s_.iodepth);
    return true;
  } catch (const Error& e) {
    sh_.fail(EIO, e.what());
    return false;
  }
}

// iodepth buffers of bs bytes, aligned for O_DIRECT; prefilled with random
// data when the job writes.
bool Worker::make_buffers() {
  const std::size_t align = std::max<std::size_t>(t_.align, 4096);
  units_.resize(s_.iodepth);
  free_units_.reserve(s_.iodepth);
  done_.reserve(s_.iodepth);
  rng_ = 0x5eed0000ull + idx_ * 7919ull + now_ns();
  for (unsigned i = 0; i < s_.iodepth; ++i) {
    void* p = nullptr;
    if (posix_memalign(&p, align, s_.bs) != 0) {
      sh_.fail(ENOMEM, "allocating I/O buffers");
      return false;
    }
    if (s_.has_writes()) fill_random(p, s_.bs, rng_);
    bufs_.emplace_back(p);
    units_[i].buf = p;
    units_[i].len = static_cast<std::uint32_t>(s_.bs);
    units_[i].index = i;
    free_units_.push_back(&units_[i]);
  }
  return true;
}

void Worker::wait_for_go() {
  while (!sh_.go.load() && !sh_.stop.load() && !cancel_requested()) ::usleep(200);
  ramp_end_ = sh_.ramp_end.load();
  end_ = sh_.end.load();
}

// Until the end time: fill the queue, submit, wait for at least one completion.
void Worker::io_loop() {
  while (running()) {
    if (now_ns() >= end_ || (issued_all() && !inflight_)) break;
    if (fill_queue()) eng_->commit();
    if (inflight_) reap(1);
  }
}

// Issues I/Os from the free pool until it is empty, the job stops, the time is
// up or an fsync is due (then commits, fsyncs and stops). Returns true when
// I/Os are queued but not yet committed.
bool Worker::fill_queue() {
  bool queued = false;
  while (!free_units_.empty() && running() && !issued_all()) {
    IoUnit* u = free_units_.back();
    free_units_.pop_back();
    const bool is_write = mixed_ ? splitmix(rng_) % 100 >= s_.rwmixread : writes_only_;
    std::uint64_t block = random_ ? splitmix(rng_) % blocks_ : seq_block_++ % blocks_;
    u->offset = t_.offset + block * s_.bs;
    u->write = is_write;
    if (is_write) fill_random(u->buf, s_.bs, rng_);  // fresh incompressible data per I/O
    issued_ += s_.bs;
    if (issue(*u)) queued = true;
    if (is_write && s_.fsync && ++writes_ % s_.fsync == 0) {
      if (queued) eng_->commit();
      do_fsync();
      return false;
    }
    if (now_ns() >= end_) break;
  }
  return queued;
}

// Stamps and queues `u`; a sync engine completes it here. Returns true when
// it was queued (needs a commit).
bool Worker::issue(IoUnit& u) {
  ++inflight_;
  u.start_ns = now_ns();
  if (!eng_->queue(u)) return true;
  complete(&u, now_ns());
  return false;
}

// Returns `u` to the pool; records it once the ramp is over (the first
// measured completion clears anything recorded before).
void Worker::complete(IoUnit* u, std::uint64_t now) {
  --inflight_;
  free_units_.push_back(u);
  if (u->res != static_cast<long>(u->len)) return fail_io(*u);
  if (!measuring_ && now >= ramp_end_) {
    measuring_ = true;
    res_ = WorkerResult{};
    res_.measured_start = ramp_end_;
  }
  if (!measuring_) return;
  (u->write ? res_.wlat : res_.rlat).record(now - u->start_ns);
  (u->write ? res_.wbytes : res_.rbytes) += u->len;
  res_.last = now;
  sh_.ios.fetch_add(1, std::memory_order_relaxed);
}

void Worker::fail_io(const IoUnit& u) {
  int e = u.res < 0 ? static_cast<int>(-u.res) : EIO;
  sh_.fail(e, std::string(u.write ? "write" : "read") + " of " + std::to_string(u.len) + " bytes at offset " +
                  std::to_string(u.offset) + (u.res >= 0 ? " was short (" + std::to_string(u.res) + " bytes)" : ""));
}

void Worker::reap(unsigned min) {
  done_.clear();
  eng_->getevents(min, done_);
  std::uint64_t now = now_ns();
  for (IoUnit* u : done_) complete(u, now);
}

// Waits for everything in flight, then times fsync(2) as the sync section.
void Worker::do_fsync() {
  drain();
  std::uint64_t t0 = now_ns();
  if (::fsync(file_.get()) != 0) return sh_.fail(errno, "fsync");
  std::uint64_t t1 = now_ns();
  if (measuring_) res_.sync.record(t1 - t0), res_.last = t1;
}

// fio end_fsync: after the last write; the measured part ends when it returns.
void Worker::end_fsync() {
  if (::fsync(file_.get()) != 0) return sh_.fail(errno, "fsync at the end of the job (end_fsync)");
  if (measuring_) res_.last = now_ns();
}

void worker(Shared& sh, unsigned idx, WorkerResult& res) { Worker(sh, idx, res).run(); }

DiskCounters read_counters(const std::string& name) { return name.empty() ? DiskCounters{} : read_disk_counters(name); }

// Waits until every worker is ready, then sets the ramp and end times and
// releases them. Returns the start time.
std::uint64_t start_clock(Shared& sh) {
  const JobSpec& s = sh.spec;
  while (sh.ready.load() < s.numjobs && !cancel_requested()) ::usleep(200);
  std::uint64_t start = now_ns();
  sh.ramp_end = start + static_cast<std::uint64_t>(s.ramp_s * 1e9);
  sh.end = s.runtime_s > 0 ? sh.ramp_end + static_cast<std::uint64_t>(s.runtime_s * 1e9)
                           : std::numeric_limits<std::uint64_t>::max();
  sh.go = true;
  return start;
}

// Disk counters at the start of the measured part, and when they were read.
struct CounterSample {
  std::optional<DiskCounters> counters;
  std::uint64_t t = 0;
};

// Until the job ends: samples the disk counters when the ramp is over and
// reports progress every half second (when `report`).
CounterSample watch(const Shared& sh, std::uint64_t start, bool report, ProgressPhase& progress) {
  const std::string& stat_name = sh.target.stat_name;
  CounterSample before;
  std::uint64_t last_ios = 0, last_t = start;
  if (sh.spec.ramp_s <= 0) before.counters = read_counters(stat_name), before.t = now_ns();
  while (true) {
    std::uint64_t now = now_ns();
    if (!before.counters && now >= sh.ramp_end) before.counters = read_counters(stat_name), before.t = now;
    if (now >= sh.end || sh.stop || sh.finished.load() == sh.spec.numjobs || cancel_requested()) break;
    if (report && now - last_t >= 500000000ull) {
      std::uint64_t ios = sh.ios.load();
      progress.update((now - start) / 1e9, -1, (ios - last_ios) / ((now - last_t) / 1e9));
      last_ios = ios, last_t = now;
    }
    ::usleep(20000);
  }
  return before;
}

// The spec's fields, the source and the error (with its errno name).
JobResult result_header(const JobSpec& s, const Shared& sh) {
  JobResult r;
  r.name = s.name;
  r.rw = rw_name(s.rw);
  r.bs = s.bs;
  r.iodepth = s.iodepth;
  r.numjobs = s.numjobs;
  r.engine = std::string(engine_name(s.engine));
  r.direct = s.direct;
  r.dsync = s.dsync;
  r.fsync = s.fsync;
  r.source = "piprov";
  r.err = sh.err;
  if (sh.err) r.error = sh.error + ": " + std::strerror(sh.err) + " (" + errno_name(sh.err) + ")";
  r.interrupted = cancel_requested();
  return r;
}

// Merges the workers' histograms and bytes into r.read, r.write and r.sync.
// The runtime is the longest measured span of any worker.
void add_io_stats(JobResult& r, const JobSpec& s, const std::vector<WorkerResult>& results) {
  Histogram rl, wl, sy;
  std::uint64_t rb = 0, wb = 0;
  double runtime = 0;
  for (const auto& w : results) {
    rl.merge(w.rlat), wl.merge(w.wlat), sy.merge(w.sync);
    rb += w.rbytes, wb += w.wbytes;
    if (w.last > w.measured_start && w.measured_start) runtime = std::max(runtime, (w.last - w.measured_start) / 1e9);
  }
  auto dir = [&](const Histogram& h, std::uint64_t bytes) {
    DirStats d;
    d.ios = h.count();
    d.bytes = bytes;
    d.runtime_s = runtime;
    d.iops = runtime > 0 ? static_cast<double>(d.ios) / runtime : 0;
    d.bw_bytes = runtime > 0 ? static_cast<double>(bytes) / runtime : 0;
    d.lat = LatStats::from_histogram(h);
    return d;
  };
  if (s.has_reads()) r.read = dir(rl, rb);
  if (s.has_writes()) r.write = dir(wl, wb);
  if (s.fsync) r.sync = LatStats::from_histogram(sy), r.sync_ios = sy.count();
}

}  // namespace

JobResult run_job(const JobSpec& s, const JobTarget& t, const ProgressSink& sink) {
  validate(s, t);
  Shared sh{s, t, {0}, {0}, {0}, {false}, {false}, {0}, {}, 0, {}};
  std::vector<WorkerResult> results(s.numjobs);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < s.numjobs; ++i) threads.emplace_back(worker, std::ref(sh), i, std::ref(results[i]));
  const std::uint64_t start = start_clock(sh);
  ProgressEvent tmpl;
  tmpl.text = s.name;
  ProgressPhase progress(sink, Phase::Job, s.ramp_s + s.runtime_s, ProgressUnit::Seconds, tmpl);
  const CounterSample before = watch(sh, start, static_cast<bool>(sink), progress);
  for (auto& th : threads) th.join();
  progress.end();
  const std::uint64_t after_t = now_ns();
  const DiskCounters after = read_counters(t.stat_name);

  JobResult r = result_header(s, sh);
  add_io_stats(r, s, results);
  if (!t.stat_name.empty() && before.counters)
    r.disk = disk_delta(t.stat_name, *before.counters, after, (after_t - before.t) / 1e9);
  return r;
}

}  // namespace piprov::bench
