// gz, bz2, zstd, lz4 (libarchive's raw format + all filters) and a .zip
// holding exactly one image file (libarchive's zip reader, seekable so the
// central directory is used). xz never comes here: libarchive's xz filter is
// single-threaded (libarchive/libarchive issue 1964).
#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>
#include <exception>
#include <memory>
#include <vector>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "image/source.hpp"

namespace piprov::image {
namespace {

struct Client {
  InputFile* in;
  std::vector<std::byte> buf = std::vector<std::byte>(1 << 20);
  std::exception_ptr error;
};

la_ssize_t read_cb(struct archive* a, void* p, const void** out) {
  auto* c = static_cast<Client*>(p);
  try {
    std::size_t n = c->in->read(c->buf);
    *out = c->buf.data();
    return static_cast<la_ssize_t>(n);
  } catch (...) {
    c->error = std::current_exception();
    archive_set_error(a, EIO, "read failed");
    return -1;
  }
}

la_int64_t seek_cb(struct archive* a, void* p, la_int64_t offset, int whence) {
  auto* c = static_cast<Client*>(p);
  try {
    std::int64_t base = whence == SEEK_SET   ? 0
                        : whence == SEEK_CUR ? static_cast<std::int64_t>(c->in->consumed())
                                             : static_cast<std::int64_t>(c->in->size());
    std::int64_t pos = base + offset;
    if (pos < 0) pos = 0;
    return static_cast<la_int64_t>(c->in->seek(static_cast<std::uint64_t>(pos)));
  } catch (...) {
    c->error = std::current_exception();
    archive_set_error(a, EIO, "seek failed");
    return ARCHIVE_FATAL;
  }
}

la_int64_t skip_cb(struct archive* a, void* p, la_int64_t request) {
  auto* c = static_cast<Client*>(p);
  std::uint64_t before = c->in->consumed();
  std::int64_t r = seek_cb(a, p, request, SEEK_CUR);
  return r < 0 ? 0 : static_cast<la_int64_t>(c->in->consumed() - before);
}

bool is_regular(archive_entry* e) { return archive_entry_filetype(e) == AE_IFREG; }

struct ArchiveFree {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<struct archive, ArchiveFree>;

class ArchiveSource final : public Source {
 public:
  ArchiveSource(std::unique_ptr<InputFile> in, Format f) : Source(f, std::move(in)) {
    client_.in = input_.get();
    holder_.reset(archive_read_new());
    a_ = holder_.get();
    if (f == Format::Zip) {
      archive_read_support_format_zip(a_);
      archive_read_set_seek_callback(a_, seek_cb);
      archive_read_set_skip_callback(a_, skip_cb);
    } else {
      archive_read_support_filter_all(a_);
      archive_read_support_format_raw(a_);
    }
    archive_read_set_read_callback(a_, read_cb);
    archive_read_set_callback_data(a_, &client_);
    check(archive_read_open1(a_), "open");
    if (f == Format::Zip)
      select_zip_entry();
    else {
      archive_entry* e = nullptr;
      check(archive_read_next_header(a_, &e), "read");
    }
  }

  std::size_t read_full(std::span<std::byte> out) override {
    std::size_t got = 0;
    while (got < out.size() && !ended_) {
      throw_if_cancelled("while decoding");
      la_ssize_t n = archive_read_data(a_, out.data() + got, out.size() - got);
      if (n < 0) check(static_cast<int>(n), "decode");
      if (n == 0) ended_ = true;
      got += static_cast<std::size_t>(n);
    }
    total_ += got;
    if (ended_ && size_ && total_ != *size_)
      throw Error(ErrorKind::Usage, fmt::format("{} is corrupt: the zip entry says {} bytes but holds {}",
                                                input_->path(), *size_, total_));
    return got;
  }
  std::optional<std::uint64_t> size() const override { return size_; }

 private:
  void check(int r, const char* what) {
    if (r >= ARCHIVE_WARN) return;
    if (client_.error) std::rethrow_exception(client_.error);
    const char* msg = archive_error_string(a_);
    std::string m = msg ? msg : "unknown libarchive error";
    if (std::string(what) == "decode" || std::string(what) == "read")
      throw Error(ErrorKind::Usage, fmt::format("{} is truncated or corrupt ({} data): {}; download it again",
                                                input_->path(), to_string(format_), m));
    throw Error(ErrorKind::Usage, fmt::format("cannot {} {} as {}: {}", what, input_->path(), to_string(format_), m));
  }

  // A zip must hold exactly one regular file: the image. Reads every header
  // (central directory) first, then reopens at the chosen entry.
  void select_zip_entry() {
    std::vector<std::string> files;
    archive_entry* e = nullptr;
    int r;
    while ((r = archive_read_next_header(a_, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      if (is_regular(e)) files.emplace_back(archive_entry_pathname(e) ? archive_entry_pathname(e) : "?");
    }
    if (r != ARCHIVE_EOF) check(r, "read");
    if (files.size() != 1) {
      std::string list;
      for (std::size_t i = 0; i < files.size() && i < 5; ++i) list += (i ? ", " : "") + files[i];
      if (files.size() > 5) list += ", ...";
      throw Error(ErrorKind::Usage,
                  files.empty() ? fmt::format("{} holds no file: a zip must hold exactly one image", input_->path())
                                : fmt::format("{} holds {} files ({}): a zip must hold exactly one image; unpack it "
                                              "and give the image file",
                                              input_->path(), files.size(), list));
    }
    input_->seek(0);
    holder_.reset(archive_read_new());
    a_ = holder_.get();
    archive_read_support_format_zip(a_);
    archive_read_set_seek_callback(a_, seek_cb);
    archive_read_set_skip_callback(a_, skip_cb);
    archive_read_set_read_callback(a_, read_cb);
    archive_read_set_callback_data(a_, &client_);
    check(archive_read_open1(a_), "open");
    while ((r = archive_read_next_header(a_, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      if (!is_regular(e)) continue;
      if (archive_entry_size_is_set(e)) size_ = static_cast<std::uint64_t>(archive_entry_size(e));
      return;
    }
    check(r == ARCHIVE_EOF ? ARCHIVE_FATAL : r, "read");
  }

  Client client_;
  ArchivePtr holder_;  ///< owns a_, also when a constructor check throws
  struct archive* a_ = nullptr;
  std::optional<std::uint64_t> size_;
  std::uint64_t total_ = 0;
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<Source> make_archive_source(std::unique_ptr<InputFile> in, Format f) {
  return std::make_unique<ArchiveSource>(std::move(in), f);
}

}  // namespace piprov::image
