// kernel/kernel_release.h: a kernel release picks the preset a capture is read under (SPEC.md
// §5), from a snapshot's version line or from the running kernel.
#include "kernel/kernel_release.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernel/check_options.h"
#include "kernel/import.h"
#include "kernel/sched_debug.h"
#include "spec/features.h"

namespace vlag::kernel {
namespace {

TEST(KernelRelease, ParsesMajorMinorPatch) {
  const auto v = parse_kernel_release("6.18.44-fc-v669");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 6);
  EXPECT_EQ(v->minor, 18);
  EXPECT_EQ(v->patch, 44);
  EXPECT_EQ(parse_kernel_release("6.19-rc3")->patch, 0);
  EXPECT_FALSE(parse_kernel_release("linux"));
  EXPECT_FALSE(parse_kernel_release("6"));
  EXPECT_FALSE(parse_kernel_release(""));
}

TEST(KernelRelease, EachReleaseRangeHasItsPreset) {
  EXPECT_EQ(preset_for_release("6.6.0"), "linux-6.6");
  EXPECT_EQ(preset_for_release("6.11.9"), "linux-6.6");
  EXPECT_EQ(preset_for_release("6.12.63"), "linux-6.12");
  EXPECT_EQ(preset_for_release("6.16.1"), "linux-6.12");
  EXPECT_EQ(preset_for_release("6.17.3"), "linux-6.18");
  EXPECT_EQ(preset_for_release("6.18"), "linux-6.18");
  EXPECT_EQ(preset_for_release("6.18.44-fc-v669"), "linux-6.18.y");
  EXPECT_EQ(preset_for_release("6.19.2"), "linux-mainline");
  EXPECT_EQ(preset_for_release("7.3.0-rc1"), "linux-mainline");
  EXPECT_FALSE(preset_for_release("5.15.0-91-generic"));  // CFS, not EEVDF
  EXPECT_FALSE(preset_for_release("unknown"));
  for (const char* r : {"6.6", "6.12.1", "6.18", "6.18.2", "7.0"})
    EXPECT_NO_THROW(preset_by_name(*preset_for_release(r))) << r;
}

TEST(KernelRelease, SnapshotVersionLineNamesTheRelease) {
  EXPECT_EQ(release_of_sched_debug_version("v0.11, 6.18.44-fc-v669 #1"), "6.18.44-fc-v669");
  EXPECT_EQ(release_of_sched_debug_version("v0.11, 5.15.0-91-generic #101-Ubuntu"),
            "5.15.0-91-generic");
  EXPECT_FALSE(release_of_sched_debug_version("v0.11"));
  EXPECT_FALSE(release_of_sched_debug_version(""));
}

TEST(KernelRelease, KnownReleaseWinsAndUnknownFallsBackToTheRunningKernel) {
  const KernelPreset known = kernel_preset(std::string("6.12.5"), "snap.txt");
  EXPECT_EQ(known.name, "linux-6.12");
  EXPECT_NE(known.source.find("snap.txt"), std::string::npos);
  const KernelPreset unknown = kernel_preset(std::nullopt, "");
  const auto running = preset_for_release(running_kernel_release());
  EXPECT_EQ(unknown.name, running.value_or(std::string(kNewestLinuxPreset)));
  // A CFS kernel's snapshot says nothing about EEVDF: the running kernel decides.
  EXPECT_EQ(kernel_preset(std::string("5.15.0"), "old.txt").name, unknown.name);
}

// The development machines run 6.18.y: their own captures are read under linux-6.18.y.
TEST(KernelRelease, TheRunningKernelsPresetMatchesItsRelease) {
  const std::string release = running_kernel_release();
  ASSERT_FALSE(release.empty());
  const auto v = parse_kernel_release(release);
  if (!v || v->major != 6 || v->minor != 18 || v->patch == 0)
    GTEST_SKIP() << "not a 6.18.y kernel: " << release;
  EXPECT_EQ(kernel_preset(std::nullopt, "").name, "linux-6.18.y");
}

// A snapshot of the development machine (6.18.44): the check and the import read it as 6.18.y.
TEST(KernelRelease, SnapshotsHandTheirReleaseToTheCheckAndTheImport) {
  const std::string file = std::string(VLAG_TEST_DATA) + "/fidelity/slices/sched-debug.1.txt";
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  const SchedDebugSnapshot snap = parse_sched_debug(in, file);
  KernelCheckOptions check;
  learn_from_snapshot(snap, check);
  EXPECT_EQ(check.kernel_release, "6.18.44-fc-v669");
  EXPECT_EQ(check.kernel_release_source, file);
  KernelImportOptions import;
  learn_from_snapshot(snap, import);
  EXPECT_EQ(import.kernel_release, "6.18.44-fc-v669");
  // The imported trace's header carries the snapshot kernel's preset.
  KernelImporter importer(import, "capture");
  std::ostringstream out;
  const std::string summary = importer.finish(out);
  EXPECT_NE(out.str().find("\"linux-6.18.y\""), std::string::npos) << out.str();
  EXPECT_NE(summary.find("preset linux-6.18.y (kernel 6.18.44-fc-v669 of"), std::string::npos)
      << summary;
}

}  // namespace
}  // namespace vlag::kernel
