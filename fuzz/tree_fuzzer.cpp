// Fuzz target: the augmented tree on its own. Decoded bytes insert and erase entities with
// colliding and wrapping keys in both layouts; after every change the tree's self-check
// recomputes all augmented values, and the pick descent must equal a scan over the tree.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fuzz/op_decoder.h"
#include "optimized/tree_queue.h"

namespace {

using vlag::LinuxTime;
using vlag::optimized::TreeEntity;
using vlag::optimized::TreeQueue;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

// Times from a window of 2048 values, so keys collide; the window sits across 0 or across the
// s64 wrap (times compare through their signed difference, within 2^63 of each other).
LinuxTime time_from(vlag::fuzz::ByteReader& in, LinuxTime base) {
  return base + LinuxTime(static_cast<int64_t>(in.u16() % 2048));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vlag::fuzz::ByteReader in(data, size);
  vlag::Params params = vlag::make_params(vlag::preset_by_name(vlag::kDefaultPreset));
  const uint8_t shape = in.u8();
  if (shape % 2) params.preset.tree = vlag::TreeLayout::VruntimeSorted;
  const LinuxTime base = shape & 2 ? INT64_MAX - 1000 : -1000;
  TreeQueue tree(params);
  constexpr int kEntities = 64;
  for (int id = 1; id <= kEntities; ++id) {
    TreeEntity e;
    e.id = id;
    e.weight = 2 + in.u8();
    tree.add(e);
  }
  uint64_t seq = 0;
  while (!in.done()) {
    TreeEntity& e = *tree.find(1 + in.u8() % kEntities);
    if (e.on_tree) {
      tree.tree_erase(e);
    } else {
      e.vruntime = time_from(in, base);
      e.deadline = e.vruntime + LinuxTime(static_cast<int64_t>(in.u16()));
      e.slice = 100'000 + in.u8();
      e.seq = ++seq;
      tree.tree_insert(e);
    }
    if (const auto problem = tree.check_tree()) fail("tree self-check", *problem);
    if (in.u8() % 4 == 0) tree.rebase(tree.tree_min_vruntime().value_or(tree.v0()));
    const LinuxTime threshold = time_from(in, base);
    const auto eligible = [&](LinuxTime v) { return v <= threshold; };
    const TreeEntity* best = nullptr;
    tree.for_each([&](const TreeEntity& x) {
      if (x.on_tree && eligible(x.vruntime) &&
          (!best || x.deadline < best->deadline ||
           (x.deadline == best->deadline && x.seq < best->seq)))
        best = &x;
    });
    if (tree.earliest_eligible(eligible) != best)
      fail("pick", "descent and scan disagree at threshold " + threshold.get_str());
  }
  return 0;
}
