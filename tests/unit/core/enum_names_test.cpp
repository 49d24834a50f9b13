// The one way to name enum values and parse the names back (core/enum_names.hpp).
#include "core/enum_names.hpp"

#include <gtest/gtest.h>

#include "core/blockdev.hpp"
#include "core/finding.hpp"
#include "core/write_guard.hpp"

namespace piprov {
namespace {

enum class Colour { Red, Green, Blue, Unnamed };
constexpr EnumName<Colour> kColours[] = {
    {Colour::Red, "red"}, {Colour::Green, "green"}, {Colour::Blue, "blue"}, {Colour::Unnamed, ""}};

TEST(EnumNames, NameParseAndChoices) {
  EXPECT_EQ(enum_name(kColours, Colour::Green), "green");
  EXPECT_EQ(parse_enum(kColours, "blue"), Colour::Blue);
  EXPECT_EQ(parse_enum(kColours, "Blue"), std::nullopt);  // exact: callers lower-case where the field does
  EXPECT_EQ(parse_enum(kColours, "purple"), std::nullopt);
  EXPECT_EQ(enum_choices(kColours), "red|green|blue");  // the unnamed row is not a choice
  EXPECT_EQ(enum_choices(kColours, ", ", " or "), "red, green or blue");
  constexpr EnumName<Colour> kPartial[] = {{Colour::Red, "red"}};
  EXPECT_EQ(enum_name(kPartial, Colour::Blue), "?");  // a table that misses a value shows it
}

TEST(EnumNames, CoreVocabulariesRoundTrip) {
  for (auto t : {Transport::Usb, Transport::Mmc, Transport::Sata, Transport::Nvme, Transport::Loop, Transport::Virtio,
                 Transport::Scsi, Transport::Unknown})
    EXPECT_NE(transport_name(t), "?");
  EXPECT_EQ(transport_name(Transport::Nvme), "nvme");
  EXPECT_EQ(usb_driver_name(UsbDriver::UsbStorage), "usb-storage");
  EXPECT_EQ(usb_driver_name(UsbDriver::Unknown), "");
  EXPECT_EQ(severity_name(Severity::Warning), "warning");
  EXPECT_EQ(rule_name(WriteRule::NewPath), "new-path");
  EXPECT_EQ(intent_name(WriteIntent::VerifyTarget), "verify-target");
  EXPECT_EQ(flag_name(WriteFlag::None), "");
  EXPECT_EQ(flag_name(WriteFlag::Destructive), "--destructive");
}

}  // namespace
}  // namespace piprov
