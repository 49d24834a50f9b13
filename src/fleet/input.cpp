#include "fleet/input.hpp"

#include <fmt/format.h>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"

namespace piprov::fleet {
namespace {

InputFile from_arg(const std::string& arg) {
  std::error_code ec;
  auto eq = arg.find('=');
  if (eq != std::string::npos && !std::filesystem::exists(arg, ec)) return {arg.substr(0, eq), arg.substr(eq + 1)};
  std::string name = std::filesystem::path(arg).filename().string();
  return {name.substr(0, name.find('.')), arg};
}

}  // namespace

std::vector<InputFile> input_files(const std::vector<std::string>& args, const std::vector<std::string>& names) {
  if (!names.empty() && names.size() != args.size())
    throw Error(ErrorKind::Usage, fmt::format("{} --name for {} FILE(s): give one --name per file, in the same order, "
                                              "or write HOST=FILE",
                                              names.size(), args.size()));
  std::vector<InputFile> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    InputFile f = names.empty() ? from_arg(args[i]) : InputFile{names[i], args[i]};
    if (f.host.empty())
      throw Error(ErrorKind::Usage, fmt::format("{}: no host name (write HOST=FILE or give --name HOST)", args[i]));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace piprov::fleet
