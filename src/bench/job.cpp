// The job runner: threads x (engine, fd, iodepth buffers), time-based with a
// ramp, latency histograms, fsync timing. Model: fio's backend.c/io_u.c.
#include <fcntl.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>  // clock_gettime (POSIX, through <time.h>)
#include <memory>
#include <mutex>
#include <thread>

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
  if (!(s.rw == "read" || s.rw == "write" || s.rw == "randread" || s.rw == "randwrite" || s.rw == "rw" ||
        s.rw == "randrw"))
    bad("--rw '" + s.rw + "' is not one of read, write, randread, randwrite, rw, randrw");
  check_limit(option_limit("--bs"), static_cast<double>(s.bs));
  if (s.direct && s.bs % t.align)
    bad("--bs " + std::to_string(s.bs) + " is not a multiple of the target's O_DIRECT alignment " +
        std::to_string(t.align) + " bytes; pick a multiple or use --buffered");
  check_limit(option_limit("--iodepth"), s.iodepth);
  check_limit(option_limit("--numjobs"), s.numjobs);
  check_limit(option_limit("--runtime"), s.runtime_s);
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

void worker(Shared& sh, unsigned idx, WorkerResult& res) {
  const JobSpec& s = sh.spec;
  const JobTarget& t = sh.target;
  int flags = (s.has_writes() ? O_RDWR : O_RDONLY) | O_CLOEXEC | (s.direct ? O_DIRECT : 0) | (s.dsync ? O_DSYNC : 0);
  UniqueFd file(::open(t.path.c_str(), flags));
  const int fd = file.get();
  if (fd < 0) return sh.fail(errno, "open " + t.path), void(sh.ready.fetch_add(1));
  std::unique_ptr<Engine> eng;
  try {
    eng = make_engine(s.engine);
    eng->init(fd, s.iodepth);
  } catch (const Error& e) {
    return sh.fail(EIO, e.what()), void(sh.ready.fetch_add(1));
  }
  std::size_t align = std::max<std::size_t>(t.align, 4096);
  std::vector<std::unique_ptr<void, AlignedFree>> bufs;
  std::vector<IoUnit> units(s.iodepth);
  std::vector<IoUnit*> free_units;
  std::uint64_t rng = 0x5eed0000ull + idx * 7919ull + now_ns();
  for (unsigned i = 0; i < s.iodepth; ++i) {
    void* p = nullptr;
    if (posix_memalign(&p, align, s.bs) != 0) {
      return sh.fail(ENOMEM, "allocating I/O buffers"), void(sh.ready.fetch_add(1));
    }
    if (s.has_writes()) fill_random(p, s.bs, rng);
    bufs.emplace_back(p);
    units[i].buf = p;
    units[i].len = static_cast<std::uint32_t>(s.bs);
    units[i].index = i;
    free_units.push_back(&units[i]);
  }
  const std::uint64_t blocks = t.size / s.bs;
  const bool mixed = s.has_reads() && s.has_writes(), writes_only = !s.has_reads(), random = s.random();
  std::uint64_t seq_block = 0, writes = 0;
  bool measuring = false;
  unsigned inflight = 0;
  std::uint64_t ramp_end = 0, end = 0;  // copied from sh once the clock starts
  std::vector<IoUnit*> done;
  done.reserve(s.iodepth);

  auto complete = [&](IoUnit* u, std::uint64_t now) {
    --inflight;
    free_units.push_back(u);
    if (u->res != static_cast<long>(u->len)) {
      int e = u->res < 0 ? static_cast<int>(-u->res) : EIO;
      sh.fail(e, std::string(u->write ? "write" : "read") + " of " + std::to_string(u->len) + " bytes at offset " +
                     std::to_string(u->offset) +
                     (u->res >= 0 ? " was short (" + std::to_string(u->res) + " bytes)" : ""));
      return;
    }
    if (!measuring && now >= ramp_end) {
      measuring = true;
      res = WorkerResult{};
      res.measured_start = ramp_end;
    }
    if (!measuring) return;
    (u->write ? res.wlat : res.rlat).record(now - u->start_ns);
    (u->write ? res.wbytes : res.rbytes) += u->len;
    res.last = now;
    sh.ios.fetch_add(1, std::memory_order_relaxed);
  };
  auto reap = [&](unsigned min) {
    done.clear();
    eng->getevents(min, done);
    std::uint64_t now = now_ns();
    for (IoUnit* u : done) complete(u, now);
  };
  auto do_fsync = [&]() {
    while (inflight) reap(1);
    std::uint64_t t0 = now_ns();
    if (::fsync(fd) != 0) return sh.fail(errno, "fsync");
    std::uint64_t t1 = now_ns();
    if (measuring) res.sync.record(t1 - t0), res.last = t1;
  };

  // The clock starts once every thread has its fd, engine and buffers.
  sh.ready.fetch_add(1);
  while (!sh.go.load() && !sh.stop.load() && !cancel_requested()) ::usleep(200);
  ramp_end = sh.ramp_end.load();
  end = sh.end.load();
  try {
    while (!sh.stop.load(std::memory_order_relaxed) && !cancel_requested()) {
      std::uint64_t now = now_ns();
      if (now >= end) break;
      bool queued = false;
      while (!free_units.empty() && !sh.stop.load(std::memory_order_relaxed) && !cancel_requested()) {
        IoUnit* u = free_units.back();
        free_units.pop_back();
        bool is_write = mixed ? splitmix(rng) % 100 >= s.rwmixread : writes_only;
        std::uint64_t block = random ? splitmix(rng) % blocks : seq_block++ % blocks;
        u->offset = t.offset + block * s.bs;
        u->write = is_write;
        if (is_write) fill_random(u->buf, s.bs, rng);  // fresh incompressible data per I/O
        ++inflight;
        u->start_ns = now_ns();
        if (eng->queue(*u)) {
          std::uint64_t c = now_ns();
          complete(u, c);
        } else {
          queued = true;
        }
        if (is_write && s.fsync && ++writes % s.fsync == 0) {
          if (queued) eng->commit(), queued = false;
          do_fsync();
          break;
        }
        if (now_ns() >= end) break;
      }
      if (queued) eng->commit();
      if (inflight) reap(1);
    }
    while (inflight) reap(1);
  } catch (const Error& e) {
    sh.fail(EIO, e.what());
  }
}

DiskCounters read_counters(const std::string& name) { return name.empty() ? DiskCounters{} : read_disk_counters(name); }

}  // namespace

JobResult run_job(const JobSpec& s, const JobTarget& t, const ProgressSink& sink) {
  validate(s, t);
  make_engine(s.engine);  // Usage error before any thread starts
  Shared sh{s, t, {0}, {0}, {0}, {false}, {false}, {0}, {}, 0, {}};
  std::vector<WorkerResult> results(s.numjobs);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < s.numjobs; ++i) threads.emplace_back(worker, std::ref(sh), i, std::ref(results[i]));
  while (sh.ready.load() < s.numjobs && !cancel_requested()) ::usleep(200);
  std::uint64_t start = now_ns();
  sh.ramp_end = start + static_cast<std::uint64_t>(s.ramp_s * 1e9);
  sh.end = sh.ramp_end + static_cast<std::uint64_t>(s.runtime_s * 1e9);
  sh.go = true;
  ProgressEvent tmpl;
  tmpl.text = s.name;
  ProgressPhase progress(sink, "job", s.ramp_s + s.runtime_s, ProgressUnit::Seconds, tmpl);

  std::optional<DiskCounters> before;
  std::uint64_t before_t = 0, last_ios = 0, last_t = start;
  if (s.ramp_s <= 0) before = read_counters(t.stat_name), before_t = now_ns();
  while (true) {
    std::uint64_t now = now_ns();
    if (!before && now >= sh.ramp_end) before = read_counters(t.stat_name), before_t = now;
    if (now >= sh.end || sh.stop || cancel_requested()) break;
    if (sink && now - last_t >= 500000000ull) {
      std::uint64_t ios = sh.ios.load();
      progress.update((now - start) / 1e9, -1, (ios - last_ios) / ((now - last_t) / 1e9));
      last_ios = ios, last_t = now;
    }
    ::usleep(20000);
  }
  for (auto& th : threads) th.join();
  progress.end();
  std::uint64_t after_t = now_ns();
  DiskCounters after = read_counters(t.stat_name);

  JobResult r;
  r.name = s.name;
  r.rw = s.rw;
  r.bs = s.bs;
  r.iodepth = s.iodepth;
  r.numjobs = s.numjobs;
  r.engine = s.engine;
  r.direct = s.direct;
  r.dsync = s.dsync;
  r.fsync = s.fsync;
  r.source = "piprov";
  r.err = sh.err;
  if (sh.err) r.error = sh.error + ": " + std::strerror(sh.err) + " (" + errno_name(sh.err) + ")";
  r.interrupted = cancel_requested();
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
  if (!t.stat_name.empty() && before) r.disk = disk_delta(t.stat_name, *before, after, (after_t - before_t) / 1e9);
  return r;
}

}  // namespace piprov::bench
