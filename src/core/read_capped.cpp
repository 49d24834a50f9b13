#include "core/read_capped.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/error.hpp"

namespace piprov {

std::optional<std::string> read_capped(std::istream& in, std::size_t max_bytes, const std::string& what) {
  std::string bytes(max_bytes + 1, '\0');
  errno = 0;
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (in.bad()) throw io_error("cannot read " + what, errno ? errno : EIO);
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (bytes.size() > max_bytes) return std::nullopt;
  return bytes;
}

std::optional<std::string> read_file_capped(const std::string& path, std::size_t max_bytes, const std::string& what) {
  if (path == "-") return read_capped(std::cin, max_bytes, what + " from standard input");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(ErrorKind::Usage, path + " is a directory; give the " + what + " file");
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) throw io_error("cannot open " + what + " " + path, errno ? errno : ENOENT);
  return read_capped(file, max_bytes, what + " " + path);
}

}  // namespace piprov
