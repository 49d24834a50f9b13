#pragma once
// A disk (or a raw image file) as an ImageReader (image_reader.hpp), for
// the commands that read a disk the way write reads an image: `piprov
// backup` and `piprov clone` (issue 28). Reads use O_DIRECT where the file
// allows it (open(2) "O_DIRECT": transfers aligned to the logical block
// size), through an aligned bounce buffer, so a whole-disk read neither
// fills nor comes from the page cache.
#include <cstdint>
#include <memory>
#include <string>

#include "image/image_reader.hpp"

namespace piprov::image {

/// Opens a block device or a regular file for reading as a raw image: size()
/// is the device's size (BLKGETSIZE64, ioctl_list(2)) or the file's; format()
/// is Format::Raw. Throws Error{Usage} (missing, neither a block device nor a
/// regular file, empty), Error{Io} (open/ioctl errors, naming the path).
/// `length` (0 = the whole disk): the reader ends there (clone reads a disk
/// up to the end of its last partition); Error{Usage} when the disk is shorter.
std::unique_ptr<ImageReader> open_disk_reader(const std::string& path, std::uint64_t length = 0);

}  // namespace piprov::image
