// The encoders of `piprov backup` (encoder.hpp).
#include "keep/encoder.hpp"

#include <fmt/format.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/cancel.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace piprov::keep {

namespace {

bool name_ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

unsigned encoder_threads(unsigned threads) {
  if (threads) return threads;
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

/// Adds the seconds of its lifetime to `total`.
class BusyTimer {
 public:
  explicit BusyTimer(double& total) : total_(total), t0_(std::chrono::steady_clock::now()) {}
  ~BusyTimer() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  BusyTimer(const BusyTimer&) = delete;
  BusyTimer& operator=(const BusyTimer&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point t0_;
};

class RawEncoder final : public Encoder {
 public:
  explicit RawEncoder(OutSink& s) : sink_(s) {}
  void write(std::span<const std::byte> data) override {
    BusyTimer t(busy_);
    sink_.write(data);
  }
  void zeros(std::span<const std::byte> z) override {
    BusyTimer t(busy_);
    sink_.hole(z.size());
  }
  void finish() override {
    BusyTimer t(busy_);
    sink_.finish();
  }

 private:
  OutSink& sink_;
};

class XzEncoder final : public Encoder {
 public:
  XzEncoder(OutSink& s, unsigned threads, std::size_t unit)
      : sink_(s), threads_(encoder_threads(threads)), out_(1u << 20) {
    lzma_mt mt{};
    mt.threads = threads_;
    mt.block_size = unit;
    mt.preset = 0;  // as `xz -0`: free space and most system files compress well already
    mt.check = LZMA_CHECK_CRC64;
    lzma_ret r = lzma_stream_encoder_mt(&strm_, &mt);
    if (r != LZMA_OK) throw Error(ErrorKind::Io, fmt::format("xz encoder could not start (liblzma error {})", int(r)));
  }
  ~XzEncoder() override { lzma_end(&strm_); }
  XzEncoder(const XzEncoder&) = delete;
  XzEncoder& operator=(const XzEncoder&) = delete;
  void write(std::span<const std::byte> data) override {
    BusyTimer t(busy_);
    run(data, LZMA_RUN);
  }
  void finish() override {
    BusyTimer t(busy_);
    run({}, LZMA_FINISH);
    sink_.finish();
  }
  unsigned threads() const override { return threads_; }

 private:
  void run(std::span<const std::byte> data, lzma_action action) {
    strm_.next_in = reinterpret_cast<const std::uint8_t*>(data.data());
    strm_.avail_in = data.size();
    for (;;) {
      strm_.next_out = reinterpret_cast<std::uint8_t*>(out_.data());
      strm_.avail_out = out_.size();
      lzma_ret r = lzma_code(&strm_, action);
      const std::size_t n = out_.size() - strm_.avail_out;
      if (n) sink_.write(std::span<const std::byte>(out_.data(), n));
      if (r == LZMA_STREAM_END) return;
      if (r != LZMA_OK) throw Error(ErrorKind::Io, fmt::format("xz encoder failed (liblzma error {})", int(r)));
      if (action == LZMA_RUN && strm_.avail_in == 0 && strm_.avail_out != 0) return;
      throw_if_cancelled("while compressing");
    }
  }
  OutSink& sink_;
  unsigned threads_;
  lzma_stream strm_ = LZMA_STREAM_INIT;
  std::vector<std::byte> out_;
};

/// zstd: frames of unit_ compressed on worker threads, written in order.
class ZstEncoder final : public Encoder {
 public:
  ZstEncoder(OutSink& s, unsigned threads, std::size_t unit)
      : sink_(s), threads_(encoder_threads(threads)), unit_(unit) {
    for (unsigned i = 0; i < threads_; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ZstEncoder() override { stop(); }
  ZstEncoder(const ZstEncoder&) = delete;
  ZstEncoder& operator=(const ZstEncoder&) = delete;
  void write(std::span<const std::byte> data) override {
    BusyTimer t(busy_);
    while (!data.empty()) {
      const std::size_t n = std::min(data.size(), unit_ - pending_.size());
      pending_.insert(pending_.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
      data = data.subspan(n);
      if (pending_.size() == unit_) submit();
    }
  }
  void finish() override {
    BusyTimer t(busy_);
    if (!pending_.empty()) submit();
    drain(0);
    sink_.finish();
  }
  unsigned threads() const override { return threads_; }

 private:
  struct Done {
    std::vector<std::byte> data;
    std::string error;
  };
  void submit() {
    std::unique_lock lk(m_);
    jobs_.emplace_back(next_in_++, std::move(pending_));
    pending_ = {};
    pending_.reserve(unit_);
    cv_.notify_all();
    lk.unlock();
    drain(2 * threads_);
  }
  /// Writes finished frames in order until at most `in_flight` are outstanding.
  void drain(std::size_t in_flight) {
    std::unique_lock lk(m_);
    while (next_out_ < next_in_) {
      auto it = done_.find(next_out_);
      if (it == done_.end()) {
        if (next_in_ - next_out_ <= in_flight) return;
        cv_.wait(lk);
        continue;
      }
      Done d = std::move(it->second);
      done_.erase(it);
      ++next_out_;
      lk.unlock();
      if (!d.error.empty()) throw Error(ErrorKind::Io, "zstd encoder failed: " + d.error);
      sink_.write(d.data);
      throw_if_cancelled("while compressing");
      lk.lock();
    }
  }
  void work() {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    for (;;) {
      std::unique_lock lk(m_);
      cv_.wait(lk, [this] { return stop_ || !jobs_.empty(); });
      if (stop_) break;
      auto [index, in] = std::move(jobs_.front());
      jobs_.pop_front();
      lk.unlock();
      Done d;
      d.data.resize(ZSTD_compressBound(in.size()));
      // ZSTD_compressCCtx writes the frame's content size (ZSTD_c_contentSizeFlag defaults to 1).
      std::size_t n = cctx ? ZSTD_compressCCtx(cctx, d.data.data(), d.data.size(), in.data(), in.size(), 3) : 0;
      if (!cctx)
        d.error = "out of memory";
      else if (ZSTD_isError(n))
        d.error = ZSTD_getErrorName(n);
      else
        d.data.resize(n);
      lk.lock();
      done_.emplace(index, std::move(d));
      cv_.notify_all();
    }
    ZSTD_freeCCtx(cctx);
  }
  void stop() {
    {
      std::lock_guard lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }
  OutSink& sink_;
  unsigned threads_;
  std::size_t unit_;
  std::vector<std::byte> pending_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::pair<std::uint64_t, std::vector<std::byte>>> jobs_;
  std::map<std::uint64_t, Done> done_;
  std::uint64_t next_in_ = 0, next_out_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

class GzEncoder final : public Encoder {
 public:
  explicit GzEncoder(OutSink& s) : sink_(s), out_(1u << 20) {
    // windowBits 15 + 16: a gzip header and trailer (zlib manual, deflateInit2).
    if (deflateInit2(&z_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw Error(ErrorKind::Io, "gzip encoder could not start");
  }
  ~GzEncoder() override { deflateEnd(&z_); }
  GzEncoder(const GzEncoder&) = delete;
  GzEncoder& operator=(const GzEncoder&) = delete;
  void write(std::span<const std::byte> data) override {
    BusyTimer t(busy_);
    while (!data.empty()) {  // avail_in is 32 bits
      const std::size_t n = std::min<std::size_t>(data.size(), 1u << 30);
      run(data.first(n), Z_NO_FLUSH);
      data = data.subspan(n);
    }
  }
  void finish() override {
    BusyTimer t(busy_);
    run({}, Z_FINISH);
    sink_.finish();
  }

 private:
  void run(std::span<const std::byte> data, int flush) {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data()));  // NOLINT: zlib's API is not const
    z_.avail_in = static_cast<uInt>(data.size());
    for (;;) {
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      int r = deflate(&z_, flush);
      const std::size_t n = out_.size() - z_.avail_out;
      if (n) sink_.write(std::span<const std::byte>(out_.data(), n));
      if (r == Z_STREAM_END) return;
      if (r != Z_OK && r != Z_BUF_ERROR) throw Error(ErrorKind::Io, fmt::format("gzip encoder failed (zlib {})", r));
      if (flush == Z_NO_FLUSH && z_.avail_in == 0 && z_.avail_out != 0) return;
    }
  }
  OutSink& sink_;
  z_stream z_{};
  std::vector<std::byte> out_;
};

}  // namespace

namespace {
/// OUT's formats by name, as image/source.hpp names the formats write reads.
constexpr EnumName<OutFormat> kOutFormatNames[] = {
    {OutFormat::Raw, "raw"}, {OutFormat::Xz, "xz"}, {OutFormat::Zstd, "zstd"}, {OutFormat::Gzip, "gzip"}};
}  // namespace

std::string out_format_name(OutFormat f) { return std::string(enum_name(kOutFormatNames, f)); }

OutFormat out_format_for(const std::string& out) {
  // ".img" alone as the file name (bk/.img): a hidden file with no name.
  const std::size_t slash = out.rfind('/');
  const std::string file = slash == std::string::npos ? out : out.substr(slash + 1);
  for (const char* ext : {".img", ".img.xz", ".img.zst", ".img.gz"})
    if (file == ext)
      throw Error(ErrorKind::Usage, out + ": OUT's file name has nothing before its extension; name the image, e.g. " +
                                        out.substr(0, out.size() - file.size()) + "backup" + ext);
  if (name_ends_with(out, ".img.xz")) return OutFormat::Xz;
  if (name_ends_with(out, ".img.zst")) return OutFormat::Zstd;
  if (name_ends_with(out, ".img.gz")) return OutFormat::Gzip;
  if (name_ends_with(out, ".img")) return OutFormat::Raw;
  // The suffixes are case-sensitive, as xz and zstd themselves take only lower-case .xz and .zst
  // ("xz: B.IMG.XZ: Filename has an unknown suffix", "zstd: ...: unknown suffix"): name it.
  for (const std::string ext : {".img.xz", ".img.zst", ".img.gz", ".img"})
    if (name_ends_with(to_lower(out), ext))
      throw Error(ErrorKind::Usage, out +
                                        ": OUT's name picks the format, and its suffix is case-sensitive: did you "
                                        "mean " +
                                        out.substr(0, out.size() - ext.size()) + ext +
                                        "? (xz and zstd take only the lower-case suffix)");
  throw Error(ErrorKind::Usage, out +
                                    ": OUT's name picks the format: end it in .img (raw), .img.xz, .img.zst or "
                                    ".img.gz");
}

void OutSink::write(std::span<const std::byte> data) {
  FdResult r = write_fd_full(fd_, data);
  if (r.err) throw io_error(fmt::format("writing {} at byte offset {}", path_, bytes_ + r.bytes), r.err);
  sha_.update(data);
  bytes_ += data.size();
}

void OutSink::hole(std::uint64_t len) {
  static const std::vector<std::byte> zero_block(1u << 20);
  for (std::uint64_t left = len; left;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, zero_block.size()));
    sha_.update(std::span<const std::byte>(zero_block.data(), n));
    left -= n;
  }
  bytes_ += len;
  if (::lseek(fd_, static_cast<off_t>(bytes_), SEEK_SET) < 0) throw io_error("seeking in " + path_, errno);
}

void OutSink::finish() {
  if (::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0) throw io_error("setting the size of " + path_, errno);
  if (::fsync(fd_) != 0) throw io_error("writing " + path_ + " (fsync)", errno);
}

std::size_t unit_bytes_for(std::uint64_t disk_bytes) {
  const std::uint64_t mib = 1u << 20;
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(disk_bytes / 64 / mib * mib, mib, 8 * mib));
}

std::unique_ptr<Encoder> make_encoder(OutFormat f, OutSink& sink, unsigned threads, std::size_t unit_bytes) {
  switch (f) {
    case OutFormat::Raw: return std::make_unique<RawEncoder>(sink);
    case OutFormat::Xz: return std::make_unique<XzEncoder>(sink, threads, unit_bytes);
    case OutFormat::Zstd: return std::make_unique<ZstEncoder>(sink, threads, unit_bytes);
    case OutFormat::Gzip: return std::make_unique<GzEncoder>(sink);
  }
  return std::make_unique<RawEncoder>(sink);
}

}  // namespace piprov::keep
