// read_kernel_parameters(): what the running kernel's EEVDF depends on besides its state — the
// base slice, HZ, the sched feature flags — and which field layout its BTF has. Each value says
// the file it came from, since on some machines debugfs files are there but refuse reads.
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "kernel/bpf/kernel_btf.h"
#include "kernel/bpf/state_capture.h"

namespace vlag::kernel::bpf {
namespace {

constexpr const char* kSchedDir = "/sys/kernel/debug/sched";
constexpr const char* kSchedDebug = "/sys/kernel/debug/sched/debug";
constexpr const char* kBaseSlice = "/sys/kernel/debug/sched/base_slice_ns";
constexpr const char* kFeatures = "/sys/kernel/debug/sched/features";

void mount_debugfs() {
  if (access(kSchedDir, F_OK) != 0) mount("none", "/sys/kernel/debug", "debugfs", 0, nullptr);
}

bool read_file(const char* path, std::string& text) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return false;
  text = s.str();
  return !text.empty();
}

// The value after "name :" on a line of /sys/kernel/debug/sched/debug.
bool sched_debug_value(const std::string& text, const std::string& name, std::string& value) {
  const size_t at = text.find(name);
  if (at == std::string::npos) return false;
  const size_t colon = text.find(':', at);
  const size_t eol = text.find('\n', at);
  if (colon == std::string::npos || colon > eol) return false;
  std::istringstream in(text.substr(colon + 1, eol - colon - 1));
  return static_cast<bool>(in >> value);
}

// "1.400000" (ms, the sched debug file's SPLIT_NS form: whole ms, then ns in six digits) -> ns.
bool split_ns(const std::string& s, uint64_t& ns) {
  const size_t dot = s.find('.');
  if (dot == std::string::npos || s.size() - dot - 1 != 6) return false;
  try {
    ns = std::stoull(s.substr(0, dot)) * 1'000'000 + std::stoull(s.substr(dot + 1));
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

void read_base_slice(KernelParameters& k, const std::string& debug) {
  std::string text, value;
  if (read_file(kBaseSlice, text)) {
    k.base_slice_ns = std::stoull(text);
    k.base_slice_source = kBaseSlice;
  } else if (sched_debug_value(debug, ".sysctl_sched_base_slice", value) &&
             split_ns(value, k.base_slice_ns)) {
    k.base_slice_source = std::string(kSchedDebug) + " (" + kBaseSlice + " unreadable)";
  } else {
    k.base_slice_source =
        "unknown: neither " + std::string(kBaseSlice) + " nor " + kSchedDebug + " could be read";
  }
}

// Bit i of sysctl_sched_features is enumerator __SCHED_FEAT_<name> = i in the kernel's BTF.
std::vector<std::string> feature_names_from_btf(const struct btf* btf) {
  std::vector<std::string> names;
  const int n = static_cast<int>(btf__type_cnt(btf));
  for (int id = 1; id < n; ++id) {
    const struct btf_type* t = btf__type_by_id(btf, id);
    if (!btf_is_enum(t)) continue;
    const struct btf_enum* e = btf_enum(t);
    const int vlen = btf_vlen(t);
    if (vlen == 0 || std::string(btf__name_by_offset(btf, e[0].name_off)).rfind("__SCHED_FEAT_", 0))
      continue;
    names.resize(vlen);
    for (int i = 0; i < vlen; ++i) {
      std::string name = btf__name_by_offset(btf, e[i].name_off);
      name.erase(0, std::string("__SCHED_FEAT_").size());
      if (name == "NR" || e[i].val < 0 || e[i].val >= vlen) continue;
      names[e[i].val] = name;
    }
    while (!names.empty() && names.back().empty()) names.pop_back();
    return names;
  }
  return names;
}

void read_features(KernelParameters& k, const std::string& debug, const struct btf* btf) {
  std::string text, value;
  if (read_file(kFeatures, text)) {
    std::istringstream in(text);
    for (std::string word; in >> word;) {
      const bool off = word.rfind("NO_", 0) == 0;
      k.features.push_back({off ? word.substr(3) : word, !off});
    }
    k.features_source = kFeatures;
    return;
  }
  const auto names = feature_names_from_btf(btf);
  if (!names.empty() && sched_debug_value(debug, ".sysctl_sched_features", value)) {
    const uint64_t mask = std::stoull(value);
    for (size_t i = 0; i < names.size(); ++i)
      k.features.push_back({names[i], ((mask >> i) & 1) != 0});
    k.features_source =
        std::string(kSchedDebug) + " mask, names from BTF (" + kFeatures + " unreadable)";
    return;
  }
  k.features_source = "unknown: " + std::string(kFeatures) + " unreadable";
}

// CONFIG_HZ from the kernel's own configuration, if it is anywhere to be read.
int config_hz(std::string& source) {
  const auto scan = [](std::istream& in) {
    for (std::string line; std::getline(in, line);)
      if (line.rfind("CONFIG_HZ=", 0) == 0) return std::atoi(line.c_str() + 10);
    return 0;
  };
  if (gzFile gz = gzopen("/proc/config.gz", "rb")) {
    std::string text;
    char buf[1 << 16];
    for (int n; (n = gzread(gz, buf, sizeof buf)) > 0;) text.append(buf, n);
    gzclose(gz);
    std::istringstream in(text);
    if (const int hz = scan(in)) {
      source = "/proc/config.gz";
      return hz;
    }
  }
  struct utsname u {};
  uname(&u);
  const std::string boot = std::string("/boot/config-") + u.release;
  std::ifstream in(boot);
  if (const int hz = in ? scan(in) : 0) {
    source = boot;
    return hz;
  }
  return 0;
}

// Without a readable configuration: jiffies against ktime in two sched debug snapshots a
// quarter second apart, rounded to the nearest HZ Linux offers.
int jiffies_hz(std::string& source) {
  const auto sample = [](double& ktime_ms, double& jiffies) {
    std::string text, k, j;
    if (!read_file(kSchedDebug, text) || !sched_debug_value(text, "ktime", k) ||
        !sched_debug_value(text, "jiffies", j))
      return false;
    ktime_ms = std::stod(k);
    jiffies = std::stod(j);
    return true;
  };
  double k0, j0, k1, j1;
  if (!sample(k0, j0)) return 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  if (!sample(k1, j1) || k1 <= k0) return 0;
  const double measured = (j1 - j0) / ((k1 - k0) / 1000);
  int best = 0;
  for (const int hz : {100, 250, 300, 1000})
    if (!best || std::fabs(hz - measured) < std::fabs(best - measured)) best = hz;
  source = "jiffies in " + std::string(kSchedDebug) + " over 0.25 s (" +
           std::to_string(static_cast<int>(std::lround(measured))) + "/s)";
  return best;
}

// The member `name` of struct `type` (looking into anonymous unions and structs), and its
// bit offset.
bool find_member(const struct btf* btf, const struct btf_type* t, const std::string& name,
                 uint32_t base_bits, uint32_t& bits) {
  const struct btf_member* m = btf_members(t);
  for (int i = 0; i < btf_vlen(t); ++i) {
    const uint32_t at = base_bits + btf_member_bit_offset(t, i);
    const char* mname = btf__name_by_offset(btf, m[i].name_off);
    if (mname && name == mname) {
      bits = at;
      return true;
    }
    if (mname && *mname) continue;
    const struct btf_type* inner = btf__type_by_id(btf, m[i].type);
    while (inner && btf_is_mod(inner)) inner = btf__type_by_id(btf, inner->type);
    if (inner && btf_is_composite(inner) && find_member(btf, inner, name, at, bits)) return true;
  }
  return false;
}

const struct btf_type* find_struct(const struct btf* btf, const char* name) {
  const int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
  return id > 0 ? btf__type_by_id(btf, id) : nullptr;
}

KernelLayout read_layout(const struct btf* btf) {
  KernelLayout l;
  const auto* se = find_struct(btf, "sched_entity");
  const auto* cfs = find_struct(btf, "cfs_rq");
  if (!se || !cfs)
    throw CaptureError(CaptureErrorKind::NoBtf,
                       "the kernel's BTF has no struct sched_entity or cfs_rq");
  uint32_t bits = 0, vlag_bits = 0, vprot_bits = 0;
  l.zero_vruntime = find_member(btf, cfs, "zero_vruntime", 0, bits);
  l.sum_names = find_member(btf, cfs, "sum_w_vruntime", 0, bits);
  l.nr_queued = find_member(btf, cfs, "nr_queued", 0, bits);
  l.vprot = find_member(btf, se, "vprot", 0, vprot_bits);
  l.vprot_union = l.vprot && find_member(btf, se, "vlag", 0, vlag_bits) && vlag_bits == vprot_bits;
  l.sched_delayed = find_member(btf, se, "sched_delayed", 0, bits);
  l.rel_deadline = find_member(btf, se, "rel_deadline", 0, bits);
  l.custom_slice = find_member(btf, se, "custom_slice", 0, bits);
  l.min_slice = find_member(btf, se, "min_slice", 0, bits);
  l.max_slice = find_member(btf, se, "max_slice", 0, bits);
  return l;
}

}  // namespace

const struct btf* kernel_btf() {
  static const std::unique_ptr<struct btf, void (*)(struct btf*)> btf(btf__load_vmlinux_btf(),
                                                                      btf__free);
  if (!btf)
    throw CaptureError(CaptureErrorKind::NoBtf, "/sys/kernel/btf/vmlinux could not be parsed");
  return btf.get();
}

KernelParameters read_kernel_parameters() {
  if (auto missing = capture_unavailable()) throw *missing;
  KernelParameters k;
  struct utsname u {};
  uname(&u);
  k.release = u.release;
  k.possible_cpus = libbpf_num_possible_cpus();
  const struct btf* btf = kernel_btf();
  k.layout = read_layout(btf);
  mount_debugfs();
  std::string debug;
  read_file(kSchedDebug, debug);
  read_base_slice(k, debug);
  read_features(k, debug, btf);
  k.hz = config_hz(k.hz_source);
  if (!k.hz) k.hz = jiffies_hz(k.hz_source);
  if (!k.hz) k.hz_source = "unknown: no kernel configuration and no sched debug file";
  return k;
}

}  // namespace vlag::kernel::bpf
