#pragma once
// The files `piprov report` reads and the host each belongs to.
#include <string>
#include <vector>

namespace piprov::fleet {

/// One piprov JSON result on the command line and the host (node) it is about.
struct InputFile {
  std::string host;  ///< node name as the report prints it
  std::string path;  ///< the JSON file
};

/// The host of each FILE argument, in order: `names[i]` when `names` is not
/// empty (one --name per file), else the part before '=' of "HOST=FILE",
/// else the file name up to its first dot ("node1.boot.json" -> "node1").
/// A "HOST=FILE" whose whole text names an existing file is taken as a file.
/// Throws Error{Usage} when the number of names differs from the number of
/// files, or a host name is empty.
std::vector<InputFile> input_files(const std::vector<std::string>& args, const std::vector<std::string>& names);

}  // namespace piprov::fleet
