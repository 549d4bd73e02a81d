// The property registry (spec/properties.h) against what it describes: every row is an ID that
// SPEC.md defines in the section the row names, and every ID SPEC.md defines has a row; every
// row with a fixture is flagged by `vlag check` on it; every ID is named by some test; the
// README's ID table is the registry's; and the promises that depend on the situation answer as
// SPEC.md §6 says.
#include "spec/properties.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "checker/run.h"
#include "spec/error.h"

namespace vlag {
namespace {

const std::filesystem::path kRoot = std::filesystem::path(VLAG_FIXTURES) / ".." / "..";

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// vlag::ids' name for an ID: "INV-S64-MARGIN" → "kInvS64Margin".
std::string constant_name(std::string_view id) {
  std::string name = "k";
  bool start = true;
  for (char c : id) {
    if (c == '-') {
      start = true;
      continue;
    }
    name += start ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    start = false;
  }
  return name;
}

TEST(PropertyRegistry, IdsAreUniqueAndFindable) {
  std::set<std::string> seen;
  for (const Property& p : properties()) {
    EXPECT_TRUE(seen.insert(p.id).second) << p.id;
    EXPECT_EQ(find_property(p.id), &p);
  }
  EXPECT_EQ(find_property("INV-NOPE"), nullptr);
  EXPECT_THROW(property("INV-NOPE"), Error);
}

// Each ID's definition, **ID** in bold, stands first in the section the row names, and SPEC.md
// defines no ID that the registry lacks.
TEST(PropertyRegistry, EveryRowIsDefinedInItsSpecSection) {
  const std::string spec = read(kRoot / "spec" / "SPEC.md");
  ASSERT_FALSE(spec.empty());
  for (const Property& p : properties()) {
    const size_t at = spec.find("**" + std::string(p.id) + "**");
    ASSERT_NE(at, std::string::npos) << p.id << " is not defined in SPEC.md";
    const size_t heading = spec.rfind("\n#", at);
    ASSERT_NE(heading, std::string::npos);
    const std::string line = spec.substr(heading + 1, spec.find('\n', heading + 1) - heading - 1);
    const std::string number = std::regex_replace(std::string(p.section), std::regex("\\."), "\\.");
    EXPECT_TRUE(std::regex_search(line, std::regex("^#+ " + number + "[. ]")))
        << p.id << " is defined under \"" << line << "\", the registry says §" << p.section;
  }
  const std::regex defined(R"(\*\*((INV|THM|FIG|SNAP|CFS)-[A-Z0-9-]+)\*\*)");
  for (auto it = std::sregex_iterator(spec.begin(), spec.end(), defined);
       it != std::sregex_iterator(); ++it)
    EXPECT_NE(find_property((*it)[1].str()), nullptr)
        << (*it)[1] << " is defined in SPEC.md but has no row in spec/properties.h";
}

// A fixture shows its ID: `vlag check` on it reports a violation with that ID. Every planted
// fixture (not the inference ones) belongs to a row.
TEST(PropertyRegistry, EveryFixtureIsFlaggedWithItsId) {
  std::set<std::string> named;
  for (const Property& p : properties()) {
    if (!p.fixture) continue;
    named.insert(p.fixture);
    checker::CheckOptions quiet;
    quiet.arbiter = false;
    const checker::Report r = checker::check(
        {checker::file_source((std::filesystem::path(VLAG_FIXTURES) / p.fixture).string())}, quiet);
    bool flagged = false;
    for (const auto& v : r.violations) flagged |= v.id == p.id;
    EXPECT_TRUE(flagged) << p.fixture << " shows no " << p.id;
  }
  for (const auto& entry : std::filesystem::directory_iterator(VLAG_FIXTURES)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("infer-", 0) == 0) continue;  // parameter inference, not a property
    EXPECT_TRUE(named.contains(name)) << name << " is the fixture of no row";
  }
}

// As far as it can be said from the sources: some test other than this one names each ID, as
// its constant (ids::kX) or as a string literal ("ID" or "ID: …", an expected value).
TEST(PropertyRegistry, EveryIdIsNamedBySomeTest) {
  std::string tests;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kRoot / "tests")) {
    const auto ext = entry.path().extension();
    if ((ext != ".cpp" && ext != ".h" && ext != ".sh") ||
        entry.path().filename() == "properties_test.cpp")
      continue;
    tests += read(entry.path());
  }
  ASSERT_FALSE(tests.empty());
  for (const Property& p : properties()) {
    const std::string id = p.id;
    const bool named = tests.find("ids::" + constant_name(id)) != std::string::npos ||
                       tests.find('"' + id + '"') != std::string::npos ||
                       tests.find('"' + id + ':') != std::string::npos;
    EXPECT_TRUE(named) << "no test names " << id;
  }
}

TEST(PropertyRegistry, ConstantsAreNamedAfterTheirIds) {
  EXPECT_EQ(constant_name(ids::kInvS64Margin), "kInvS64Margin");
  EXPECT_STREQ(ids::kInvLagSum, "INV-LAG-SUM");
  EXPECT_STREQ(ids::kCfsMinVruntimeMonotonic, "CFS-MIN-VRUNTIME-MONOTONIC");
}

// SPEC.md §6 "Holds", where it depends on the preset and the situation.
TEST(PropertyRegistry, PromisesFollowSpecSection6) {
  const Preset p66 = preset_by_name("linux-6.6"), p612 = preset_by_name("linux-6.12"),
               p618 = preset_by_name("linux-6.18"), paper1 = preset_by_name("paper-1"),
               paper3 = preset_by_name("paper-3");
  EXPECT_FALSE(promised(ids::kInvReweight, p66));
  EXPECT_TRUE(promised(ids::kInvReweight, p612, {.entity_is_curr = true}));
  EXPECT_TRUE(promised(ids::kInvReweight, p618));
  EXPECT_FALSE(promised(ids::kInvReweight, p618, {.entity_is_curr = true}));
  EXPECT_TRUE(promised(ids::kInvLagClamp, p66));
  EXPECT_FALSE(promised(ids::kInvLagClamp, paper1));
  EXPECT_FALSE(promised(ids::kInvLagClamp, paper3));
  EXPECT_TRUE(promised(ids::kInvLagClamp, paper3, {.only_delay_zero = true}));
  EXPECT_FALSE(promised(ids::kInvDelay, p66));
  EXPECT_TRUE(promised(ids::kInvDelay, p612));
  EXPECT_TRUE(promised(ids::kInvDeadline, p618));
  EXPECT_FALSE(promised(ids::kInvDeadline, p618, {.request_rescaled = true}));
  EXPECT_TRUE(promised(ids::kThmLagBound, paper3));
  EXPECT_FALSE(promised(ids::kThmLagBound, p618));
  EXPECT_TRUE(promised(ids::kThmLagBoundLinux, p618));
  EXPECT_FALSE(promised(ids::kThmLagBoundLinux, p612));
  EXPECT_TRUE(promised(ids::kSnapEligible, p66));  // not a preset's promise: the kernel's
}

// Support that only makes sense on top of other support: prove's induction, 64-bit encoding and
// driver need a symbolic form; a fixture and a window need the checker's verdict.
TEST(PropertyRegistry, ProveSupportIsConsistent) {
  for (const Property& p : properties()) {
    if (!p.prove.bmc) {
      EXPECT_EQ(p.prove.induction, Induction::Never) << p.id;
      EXPECT_FALSE(p.prove.linux64) << p.id;
      EXPECT_FALSE(p.prove.steady) << p.id;
    }
    if (p.fixture) {
      EXPECT_NE(p.judged.checker, CheckerRole::NotJudged) << p.id;
    }
    if (p.judged.windowed) {
      EXPECT_EQ(p.judged.checker, CheckerRole::Verdict) << p.id;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The README's table

std::string promised_column(const Property& p) {
  std::string out;
  if (p.promise) {
    std::vector<std::string> by;
    for (const PresetRow& row : kPresets)
      if (p.promised(row.make())) by.emplace_back(row.name);
    if (by.size() == std::size(kPresets)) {
      out = "every preset";
    } else if (by.empty()) {
      out = "no preset";
    } else {
      for (const auto& name : by) out += (out.empty() ? "" : ", ") + name;
    }
  }
  if (*p.note) out += (out.empty() ? "" : "; ") + std::string(p.note);
  return out;
}

std::string judged_column(const Property& p) {
  std::vector<std::string> parts;
  if (p.judged.reference) parts.emplace_back("reference");
  if (p.judged.checker != CheckerRole::NotJudged) {
    std::string c = "check";
    if (p.judged.checker == CheckerRole::VerdictWherePromised) c += ": figure where not promised";
    if (p.judged.checker == CheckerRole::AsFigure) c += ": figure";
    if (p.judged.linux64) c += ", linux64 traces too";
    if (p.judged.windowed) c += ", windows";
    parts.push_back(c);
  }
  if (p.judged.kernel) parts.emplace_back("kernel");
  if (p.prove.bmc) {
    std::string c = "prove (BMC";
    if (p.prove.induction == Induction::Always) c += ", k-induction";
    if (p.prove.induction == Induction::WherePromised) c += ", k-induction where promised";
    if (p.prove.linux64) c += ", linux64";
    if (p.prove.steady) c += ", steady driver";
    if (p.prove.groups) c += ", over --groups";
    parts.push_back(c + ")");
  }
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

std::string readme_table() {
  std::string out =
      "| ID | SPEC.md | kind | promised | judged by | fixture |\n|---|---|---|---|---|---|\n";
  for (const Property& p : properties())
    out += "| `" + std::string(p.id) + "` | §" + p.section + " | " +
           std::string(kind_name(p.kind)) + " | " + promised_column(p) + " | " + judged_column(p) +
           " | " + (p.fixture ? "`" + std::string(p.fixture) + "`" : std::string()) + " |\n";
  return out;
}

TEST(PropertyRegistry, ReadmeTableIsTheRegistry) {
  const std::string readme = read(kRoot / "README.md");
  const std::string begin = "<!-- property table: the rows of spec/properties.h -->\n";
  const std::string end = "<!-- end of property table -->";
  const size_t from = readme.find(begin), to = readme.find(end);
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos)
      << "README.md has no property table between \"" << begin << "\" and \"" << end << "\":\n"
      << readme_table();
  const std::string table = readme.substr(from + begin.size(), to - from - begin.size());
  EXPECT_EQ(table, readme_table()) << "paste this table into README.md:\n" << readme_table();
}

}  // namespace
}  // namespace vlag
