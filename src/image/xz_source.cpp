// .xz through liblzma: the index (read first, with seeks) gives the
// uncompressed size and block count before anything is written; the data goes
// through lzma_stream_decoder_mt (threads = cores, memlimit from physical
// memory). Single-block files decode on one thread: liblzma can only run
// blocks in parallel (xz(1) "--threads"; Ubuntu's livecd-rootfs compresses with xz -T4).
#include <fmt/format.h>
#include <lzma.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <thread>
#include <vector>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/units.hpp"
#include "image/image_reader_impl.hpp"
#include "image/source.hpp"

namespace piprov::image {
namespace {

std::string lzma_what(lzma_ret r) {
  switch (r) {
    case LZMA_MEM_ERROR: return "out of memory";
    case LZMA_MEMLIMIT_ERROR: return "memory limit reached";
    case LZMA_FORMAT_ERROR: return "not in the .xz format";
    case LZMA_OPTIONS_ERROR: return "uses options this liblzma does not support";
    case LZMA_DATA_ERROR: return "corrupt data (integrity check failed or invalid compressed data)";
    case LZMA_BUF_ERROR: return "the file ends before the xz stream does";
    default: return fmt::format("liblzma error {}", static_cast<int>(r));
  }
}

struct XzInfo {
  std::uint64_t uncompressed = 0;
  std::uint64_t blocks = 0;
};

XzInfo read_index(const InputFile& in) {
  lzma_index* idx = read_xz_index(in);
  XzInfo info{lzma_index_uncompressed_size(idx), lzma_index_block_count(idx)};
  lzma_index_end(idx, nullptr);
  return info;
}

class XzSource final : public Source {
 public:
  XzSource(std::unique_ptr<InputFile> in, unsigned threads) : Source(Format::Xz, std::move(in)) {
    info_ = read_index(*input_);
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    threads_ = threads ? threads : cores;
    if (info_.blocks <= 1 && threads_ > 1) {
      spdlog::info(
          "{} is a single-block .xz: liblzma decodes it on one thread (compress with xz -T0 for "
          "parallel decoding)",
          input_->path());
      threads_ = 1;
    }
    lzma_mt mt{};
    mt.flags = LZMA_CONCATENATED;
    mt.threads = threads_;
    mt.timeout = 300;  // ms: lzma_code returns so Ctrl-C is seen promptly
    std::uint64_t phys = lzma_physmem();
    mt.memlimit_threading = phys ? std::max<std::uint64_t>(phys / 4, 64ull << 20) : (256ull << 20);
    mt.memlimit_stop = UINT64_MAX;
    lzma_ret r = lzma_stream_decoder_mt(&s_, &mt);
    if (r != LZMA_OK) throw Error(ErrorKind::Io, input_->path() + ": cannot start the xz decoder: " + lzma_what(r));
    spdlog::info("{}: xz, {} block(s), {} uncompressed; decoding on {} thread(s), memlimit {}", input_->path(),
                 info_.blocks, format_bytes(info_.uncompressed), threads_, format_bytes(mt.memlimit_threading));
    inbuf_.resize(1 << 20);
  }
  ~XzSource() override { lzma_end(&s_); }

  std::size_t read_full(std::span<std::byte> out) override {
    if (ended_) return 0;
    s_.next_out = reinterpret_cast<std::uint8_t*>(out.data());
    s_.avail_out = out.size();
    while (s_.avail_out > 0) {
      throw_if_cancelled("while decoding");
      if (s_.avail_in == 0 && !eof_) {
        std::size_t n = input_->read(std::as_writable_bytes(std::span(inbuf_)));
        if (n == 0) eof_ = true;
        s_.next_in = inbuf_.data();
        s_.avail_in = n;
      }
      lzma_ret r = lzma_code(&s_, eof_ ? LZMA_FINISH : LZMA_RUN);
      if (r == LZMA_STREAM_END) {
        ended_ = true;
        break;
      }
      if (r != LZMA_OK) {
        std::uint64_t done = s_.total_out;
        if (r == LZMA_DATA_ERROR || r == LZMA_BUF_ERROR || r == LZMA_FORMAT_ERROR || r == LZMA_OPTIONS_ERROR)
          throw Error(ErrorKind::Usage,
                      fmt::format("{} is {}: {} (after {} of output, compressed byte offset about {}); "
                                  "download it again",
                                  input_->path(), r == LZMA_BUF_ERROR ? "truncated" : "corrupt", lzma_what(r),
                                  format_bytes(done), s_.total_in));
        throw Error(ErrorKind::Io, fmt::format("decoding {} failed: {}", input_->path(), lzma_what(r)));
      }
    }
    return out.size() - s_.avail_out;
  }
  std::optional<std::uint64_t> size() const override { return info_.uncompressed; }
  unsigned threads() const override { return threads_; }
  std::uint64_t blocks() const override { return info_.blocks; }

 private:
  lzma_stream s_ = LZMA_STREAM_INIT;
  XzInfo info_;
  unsigned threads_ = 1;
  std::vector<std::uint8_t> inbuf_;
  bool eof_ = false;
  bool ended_ = false;
};

}  // namespace

lzma_index* read_xz_index(const InputFile& in) {
  lzma_stream s = LZMA_STREAM_INIT;
  lzma_index* idx = nullptr;
  lzma_ret r = lzma_file_info_decoder(&s, &idx, UINT64_MAX, in.size());
  if (r != LZMA_OK) throw Error(ErrorKind::Io, in.path() + ": cannot start the xz index reader: " + lzma_what(r));
  std::vector<std::uint8_t> buf(64 * 1024);
  std::uint64_t pos = 0;
  for (;;) {
    if (s.avail_in == 0) {
      FdResult n = read_fd_some(in.fd(), std::as_writable_bytes(std::span(buf)), pos);
      if (n.err) {
        lzma_end(&s);
        throw io_error("reading " + in.path(), n.err);
      }
      s.next_in = buf.data();
      s.avail_in = n.bytes;
      pos += n.bytes;
    }
    r = lzma_code(&s, LZMA_RUN);
    if (r == LZMA_SEEK_NEEDED) {
      pos = s.seek_pos;
      s.avail_in = 0;
      continue;
    }
    if (r == LZMA_STREAM_END) break;
    if (r != LZMA_OK) {
      lzma_end(&s);
      if (r == LZMA_DATA_ERROR || r == LZMA_BUF_ERROR || r == LZMA_FORMAT_ERROR)
        throw Error(ErrorKind::Usage, fmt::format("{} is truncated or corrupt: the xz index at its end cannot be "
                                                  "read, so the file is incomplete or damaged; download it again",
                                                  in.path()));
      throw Error(ErrorKind::Usage, fmt::format("{}: cannot read the xz index: {}", in.path(), lzma_what(r)));
    }
  }
  lzma_end(&s);
  return idx;
}

std::unique_ptr<Source> make_xz_source(std::unique_ptr<InputFile> in, unsigned threads) {
  return std::make_unique<XzSource>(std::move(in), threads);
}

}  // namespace piprov::image
