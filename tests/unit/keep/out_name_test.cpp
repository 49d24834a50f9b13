// backup's OUT name: the format it picks, and names it refuses (docs/keep.md).
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "keep/encoder.hpp"

namespace piprov::keep {
namespace {

std::string out_name_error(const std::string& out) {
  try {
    out_format_for(out);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage) << out;
    return e.what();
  }
  return "";
}

TEST(BackupOutName, TheEndingPicksTheFormat) {
  EXPECT_EQ(out_format_for("bk/node1.img"), OutFormat::Raw);
  EXPECT_EQ(out_format_for("bk/node1.img.xz"), OutFormat::Xz);
  EXPECT_EQ(out_format_for("node1.img.zst"), OutFormat::Zstd);
  EXPECT_EQ(out_format_for("/srv/a.b.img.gz"), OutFormat::Gzip);
  EXPECT_NE(out_name_error("bk/node1.xz").find("end it in .img (raw), .img.xz, .img.zst or .img.gz"),
            std::string::npos);
}

// Trial 3 finding 14e: `backup DISK bk/.img` made a hidden file named just ".img".
TEST(BackupOutName, NothingBeforeTheExtensionIsRefused) {
  for (const char* out : {"bk/.img", ".img.xz", "/tmp/x/.img.zst", "bk/.img.gz"}) {
    const std::string err = out_name_error(out);
    EXPECT_EQ(err, std::string(out) + ": OUT's file name has nothing before its extension; name the image, e.g. " +
                       std::string(out).replace(std::string(out).rfind(".img"), 0, "backup"))
        << out;
  }
  EXPECT_EQ(out_name_error("bk/x.img"), "");
  EXPECT_EQ(out_name_error("bk/..img"), "");  // "." before .img is a name, if an odd one
}

// Trial 9 nit 15: an upper-case suffix is refused with the lower-case name to give (xz and zstd
// take only lower-case suffixes: "xz: B.IMG.XZ: Filename has an unknown suffix").
TEST(BackupOutName, AnUpperCaseSuffixGetsTheLowerCaseName) {
  EXPECT_EQ(out_name_error("B.IMG.XZ"),
            "B.IMG.XZ: OUT's name picks the format, and its suffix is case-sensitive: did you mean B.img.xz? (xz and "
            "zstd take only the lower-case suffix)");
  EXPECT_NE(out_name_error("bk/Node1.Img.Zst").find("did you mean bk/Node1.img.zst?"), std::string::npos);
  EXPECT_NE(out_name_error("n.img.GZ").find("did you mean n.img.gz?"), std::string::npos);
  EXPECT_NE(out_name_error("N.IMG").find("did you mean N.img?"), std::string::npos);
  EXPECT_EQ(out_name_error("n.XZ").find("did you mean"), std::string::npos);  // no .img: the general refusal
}

}  // namespace
}  // namespace piprov::keep
