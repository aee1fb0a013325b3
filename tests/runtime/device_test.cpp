// Device discovery and selection.

#include <gtest/gtest.h>

#include "liftc/runtime/device.hpp"
#include "test_session.hpp"

namespace liftc::runtime {
namespace {

using testing::error_of;

TEST(Devices, ListIsNonEmptyAndFilledIn) {
  const std::vector<DeviceInfo> devices = list_devices();
  ASSERT_FALSE(devices.empty());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    EXPECT_EQ(d.index, i);
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.platform_name.empty());
    EXPECT_GT(d.compute_units, 0u);
    EXPECT_GT(d.max_work_group_size, 0u);
    EXPECT_GE(d.max_work_item_sizes.size(), 3u);
    EXPECT_GT(d.local_mem_bytes, 0u);
    EXPECT_GT(d.global_mem_bytes, 0u);
    EXPECT_GT(d.max_alloc_bytes, 0u);
    EXPECT_LE(d.max_alloc_bytes, d.global_mem_bytes);
    EXPECT_NE(format_device(d).find(d.name), std::string::npos);
  }
  EXPECT_NE(format_device_list(devices).find("[0]"), std::string::npos);
}

TEST(Devices, EmptySelectorIsTheFirstDevice) {
  EXPECT_EQ(select_device("").index, 0u);
  EXPECT_EQ(select_device("").name, list_devices().front().name);
}

TEST(Devices, SelectByIndex) {
  const std::vector<DeviceInfo> devices = list_devices();
  const std::size_t last = devices.size() - 1;
  const DeviceInfo d = select_device(std::to_string(last));
  EXPECT_EQ(d.index, last);
  EXPECT_EQ(d.name, devices[last].name);
}

TEST(Devices, SelectByNameIsCaseInsensitive) {
  const DeviceInfo first = list_devices().front();
  std::string upper = first.name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(select_device(upper).name, first.name);
  EXPECT_EQ(select_device(first.platform_name.substr(0, 5)).platform_name, first.platform_name);
}

TEST(Devices, SelectByType) {
  // "cpu" / "gpu" match the device type even when no name contains the word.
  const DeviceInfo first = list_devices().front();
  std::string type = first.type;
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(select_device(type).type, first.type);
}

TEST(Devices, SelectPoclByItsVendorWord) {
  // On PoCL (CI) "pocl" appears only in the platform vendor and version, not in any name.
  const DeviceInfo first = list_devices().front();
  if (first.platform_vendor.find("pocl") == std::string::npos) GTEST_SKIP() << "not PoCL";
  EXPECT_EQ(select_device("pocl").platform_vendor, first.platform_vendor);
  EXPECT_EQ(select_device("PoCL").index, first.index);
}

TEST(Devices, BadSelectorsListWhatIsAvailable) {
  const std::string first = list_devices().front().name;
  const std::string by_name = error_of([] { select_device("no-such-device-xyz"); });
  EXPECT_NE(by_name.find("no OpenCL device matches 'no-such-device-xyz'"), std::string::npos) << by_name;
  EXPECT_NE(by_name.find(first), std::string::npos) << by_name;
  const std::string by_index = error_of([] { select_device("9999"); });
  EXPECT_NE(by_index.find("no OpenCL device with index 9999"), std::string::npos) << by_index;
  EXPECT_NE(by_index.find(first), std::string::npos) << by_index;
  EXPECT_NE(error_of([] { Session s("no-such-device-xyz"); }).find("no OpenCL device matches"), std::string::npos);
}

TEST(Devices, SessionReportsItsDevice) {
  EXPECT_EQ(testing::session().device().index, 0u);
  EXPECT_TRUE(testing::session().device().profiling);
}

}  // namespace
}  // namespace liftc::runtime
