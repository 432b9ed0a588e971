// The bus bandwidth arithmetic behind `bench peak`'s nccl_*_busbw figures (peak/nccl_busbw.hpp),
// against nccl-tests' definitions worked by hand.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "peak/nccl_busbw.hpp"
#include "system/ceilings.hpp"

namespace aisp::peak {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(NcclBusbw, FactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(nccl_bus_factor(NcclCollective::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(nccl_bus_factor(NcclCollective::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(nccl_bus_factor(NcclCollective::all_gather, 2), 0.5);
  EXPECT_DOUBLE_EQ(nccl_bus_factor(NcclCollective::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(nccl_bus_factor(NcclCollective::all_to_all, 8), 0.875);
  // One rank moves nothing over a link.
  EXPECT_DOUBLE_EQ(nccl_bus_factor(NcclCollective::all_reduce, 1), 0.0);
  EXPECT_THROW(nccl_bus_factor(NcclCollective::all_gather, 0), std::invalid_argument);
}

TEST(NcclBusbw, BandwidthFromBytesAndTime) {
  // 256 MiB all-reduced in 0.964 ms on 2 GPUs: 268435456 / 0.964e-3 = 278.5 GB/s, factor 1.
  EXPECT_NEAR(nccl_algorithm_gbps(256 * kMiB, 0.964e-3), 278.46, 0.01);
  EXPECT_NEAR(nccl_bus_gbps(NcclCollective::all_reduce, 256 * kMiB, 2, 0.964e-3), 278.46, 0.01);
  // 1 GB all-gathered (output size) in 10 ms over 8 ranks: 100 GB/s algorithm, 87.5 bus.
  EXPECT_DOUBLE_EQ(nccl_bus_gbps(NcclCollective::all_gather, 1000000000, 8, 0.01), 87.5);
  EXPECT_THROW(nccl_algorithm_gbps(kMiB, 0.0), std::invalid_argument);
  EXPECT_THROW(nccl_algorithm_gbps(kMiB, -1.0), std::invalid_argument);
}

TEST(NcclBusbw, BufferBytesRoundToWholeFloatsPerRank) {
  EXPECT_EQ(nccl_buffer_bytes(NcclCollective::all_reduce, 64 * 1024, 3), 64u * 1024);
  // 65536 bytes over 3 ranks: 5461 floats per rank, 65532 bytes in all.
  EXPECT_EQ(nccl_buffer_bytes(NcclCollective::all_gather, 64 * 1024, 3), 65532u);
  EXPECT_EQ(nccl_buffer_bytes(NcclCollective::all_to_all, 64 * 1024, 2), 64u * 1024);
  EXPECT_EQ(nccl_buffer_bytes(NcclCollective::reduce_scatter, 7, 2), 0u);
  EXPECT_EQ(nccl_buffer_bytes(NcclCollective::all_reduce, 6, 2), 4u);
}

TEST(NcclBusbw, Names) {
  EXPECT_EQ(nccl_busbw_figure_name(NcclCollective::all_reduce), "nccl_all_reduce_busbw");
  EXPECT_EQ(nccl_busbw_figure_name(NcclCollective::all_to_all), "nccl_all_to_all_busbw");
  EXPECT_EQ(nccl_collective_name(NcclCollective::reduce_scatter), "reduce_scatter");
}

// bench peak keeps the bus bandwidths beside the machine's ceilings ("figures"), never as one.
TEST(NcclBusbw, StoredAsFiguresBesideTheCeilings) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("aisp_nccl_busbw_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  store_ceiling(dir, "2x_h200", Ceiling::nvlink_peer, {396.5, "GB/s", "peer copy"});
  store_figure(dir, "2x_h200", "nccl_all_reduce_busbw", {350.0, "GB/s", "sweep"});
  store_figure(dir, "2x_h200", "nccl_all_reduce_busbw", {360.0, "GB/s", "again"});
  EXPECT_DOUBLE_EQ(stored_ceiling(dir, "2x_h200", Ceiling::nvlink_peer)->value, 396.5);
  std::ifstream file(dir / "2x_h200.json");
  const nlohmann::json document = nlohmann::json::parse(file);
  EXPECT_EQ(document["hardware_key"], "2x_h200");
  EXPECT_DOUBLE_EQ(document["figures"]["nccl_all_reduce_busbw"]["value"].get<double>(), 360.0);
  EXPECT_EQ(document["figures"]["nccl_all_reduce_busbw"]["source"], "again");
  EXPECT_FALSE(document["ceilings"].contains("nccl_all_reduce_busbw"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace aisp::peak
