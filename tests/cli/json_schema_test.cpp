// Every `--json` report, of every subcommand that has one, and the errors under --json of every
// subcommand, validated against docs/report.schema.json (docs/json-schema.md): the vlag binary
// runs on fixtures, and a validator of the JSON Schema keywords the schema uses, written here
// over simdjson's DOM (Debian packages no C++ JSON Schema validator), judges each output. The
// validator refuses a keyword it does not implement, so the schema cannot say more than is
// checked.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "tests/kernel/shell_run.h"

namespace vlag {
namespace {

namespace dom = simdjson::dom;

// A validator for the subset of JSON Schema 2020-12 the schema uses: $ref (local pointers),
// type, enum, const, properties, required, items, minimum, maximum, allOf, anyOf, not,
// if/then/else; description, title, $schema, $id and $defs are annotations.
class Validator {
 public:
  explicit Validator(dom::element root) : root_(root) {}

  std::vector<std::string> validate(dom::element instance) {
    errors_.clear();
    check(instance, root_, "$");
    return errors_;
  }

 private:
  static std::string text(dom::element e) { return simdjson::minify(e); }

  static bool is_type(dom::element e, std::string_view type) {
    switch (e.type()) {
      case dom::element_type::OBJECT:
        return type == "object";
      case dom::element_type::ARRAY:
        return type == "array";
      case dom::element_type::STRING:
        return type == "string";
      case dom::element_type::INT64:
      case dom::element_type::UINT64:
        return type == "integer" || type == "number";
      case dom::element_type::DOUBLE:
        return type == "number";
      case dom::element_type::BOOL:
        return type == "boolean";
      case dom::element_type::NULL_VALUE:
        return type == "null";
    }
    return false;
  }

  static double number(dom::element e) {
    if (e.is_int64()) return static_cast<double>(int64_t(e));
    if (e.is_uint64()) return static_cast<double>(uint64_t(e));
    return double(e);
  }

  // The schema a local $ref ("#/$defs/a/b") names.
  dom::element resolve(std::string_view ref) {
    if (ref.substr(0, 2) != "#/") {
      ADD_FAILURE() << "not a local $ref: " << ref;
      return root_;
    }
    dom::element e;
    if (root_.at_pointer(ref.substr(1)).get(e)) {
      ADD_FAILURE() << "$ref names nothing: " << ref;
      return root_;
    }
    return e;
  }

  // Whether `instance` is valid against `schema`, without recording errors.
  bool valid(dom::element instance, dom::element schema) {
    const size_t before = errors_.size();
    check(instance, schema, "");
    const bool ok = errors_.size() == before;
    errors_.resize(before);
    return ok;
  }

  void fail(const std::string& at, const std::string& what) { errors_.push_back(at + ": " + what); }

  void check(dom::element instance, dom::element schema, const std::string& at) {
    static const std::set<std::string_view> kKeywords = {
        "$ref",    "type",  "enum",  "const", "properties", "required", "items", "minimum",
        "maximum", "allOf", "anyOf", "not",   "if",         "then",     "else"};
    static const std::set<std::string_view> kAnnotations = {"description", "title", "$schema",
                                                            "$id", "$defs"};
    dom::object keywords;
    if (schema.get_object().get(keywords)) {
      ADD_FAILURE() << "a schema that is not an object at " << at;
      return;
    }
    for (const auto [key, value] : keywords) {
      if (kAnnotations.count(key)) continue;
      if (!kKeywords.count(key)) {
        ADD_FAILURE() << "the validator does not implement \"" << key << "\"";
        continue;
      }
      if (key == "$ref") {
        check(instance, resolve(std::string_view(value)), at);
      } else if (key == "type") {
        bool any = false;
        if (value.is_string()) {
          any = is_type(instance, std::string_view(value));
        } else {
          for (const dom::element t : value.get_array())
            any |= is_type(instance, std::string_view(t));
        }
        if (!any) fail(at, "not of type " + text(value) + ": " + text(instance).substr(0, 80));
      } else if (key == "enum") {
        bool any = false;
        for (const dom::element v : value.get_array()) any |= text(v) == text(instance);
        if (!any) fail(at, text(instance).substr(0, 80) + " not one of " + text(value));
      } else if (key == "const") {
        if (text(value) != text(instance)) fail(at, "not " + text(value));
      } else if (key == "properties") {
        if (!instance.is_object()) continue;
        for (const auto [name, sub] : value.get_object()) {
          dom::element member;
          if (!instance[name].get(member)) check(member, sub, at + "." + std::string(name));
        }
      } else if (key == "required") {
        if (!instance.is_object()) continue;
        for (const dom::element name : value.get_array()) {
          dom::element member;
          if (instance[std::string_view(name)].get(member))
            fail(at, "missing \"" + std::string(std::string_view(name)) + "\"");
        }
      } else if (key == "items") {
        if (!instance.is_array()) continue;
        size_t i = 0;
        for (const dom::element item : instance.get_array())
          check(item, value, at + "[" + std::to_string(i++) + "]");
      } else if (key == "minimum" || key == "maximum") {
        if (!is_type(instance, "number")) continue;
        const double x = number(instance), bound = number(value);
        if (key == "minimum" ? x < bound : x > bound)
          fail(at, text(instance) + " beyond " + std::string(key) + " " + text(value));
      } else if (key == "allOf") {
        for (const dom::element sub : value.get_array()) check(instance, sub, at);
      } else if (key == "anyOf") {
        bool any = false;
        for (const dom::element sub : value.get_array()) any |= valid(instance, sub);
        if (!any) fail(at, "matches none of anyOf");
      } else if (key == "not") {
        if (valid(instance, value)) fail(at, "matches what \"not\" excludes: " + text(value));
      } else if (key == "if") {
        dom::element then_schema, else_schema;
        if (valid(instance, value)) {
          if (!schema["then"].get(then_schema)) check(instance, then_schema, at);
        } else if (!schema["else"].get(else_schema)) {
          check(instance, else_schema, at);
        }
      }
      // "then" and "else" are applied by "if".
    }
  }

  dom::element root_;
  std::vector<std::string> errors_;
};

using kernel::testing::quoted;
using kernel::testing::shell;
using kernel::testing::TempDir;

// The scratch directory of the cases' own files, for the whole run.
const TempDir& scratch() {
  static const TempDir dir;
  return dir;
}

std::string q(const std::string& s) { return quoted(s); }
std::string fixture(const std::string& name) { return q(std::string(VLAG_FIXTURES) + "/" + name); }
std::string data(const std::string& name) { return q(std::string(VLAG_TEST_DATA) + "/" + name); }

struct Case {
  std::string args;
  int status;           // the exit code the run must have
  std::string command;  // the report's command
  std::string result;   // its result
};

std::vector<Case> cases() {
  const std::string tmp = scratch().path();
  const std::string bad = tmp + "/vlag-schema-bad.jsonl";
  std::ofstream(bad) << "{\"format\":\"vlag-trace\",\"version\":2,\"preset\":\"paper-1\"}\n"
                        "{\"t\":0,\"ev\":\"teleport\"}\n";
  const std::string rebuilt = tmp + "/vlag-schema-rebuilt.jsonl";
  {
    std::ifstream in(std::string(VLAG_FIXTURES) + "/inv-pick-eligible.jsonl");
    std::string header, rest, line;
    std::getline(in, header);
    while (std::getline(in, line)) rest += line + "\n";
    header.insert(header.size() - 1, ",\"kernel_reconstruction\":true");
    std::ofstream(rebuilt) << header << "\n" << rest;
  }
  const std::string nice = "linux/hogs-nice.perf.txt";
  const std::string snap = "linux/hogs-nice.sched-debug.1.txt";
  const std::string results = std::string(VLAG_FIXTURES) + "/../../spec/results/";
  return {
      // vlag check: each verdict, trace problems, and errors.
      {"check --json --no-z3 --max-evidence 0 " + fixture("inv-pick-edf.jsonl"), 1, "check",
       "violated"},
      {"check --json " + q(results + "28-inv-reweight-linux-6.6.trace"), 0, "check", "held"},
      {"check --json --worst 3 " + q(results + "28-inv-reweight-linux-6.6.trace"), 0, "check",
       "held"},
      {"check --json " + q(rebuilt), 0, "check", "inconclusive"},
      {"check --json --strict " + q(rebuilt), 1, "check", "inconclusive"},
      {"check --json --keep-going " + q(bad), 2, "check", "not applicable"},
      {"check --json " + q(bad), 2, "check", "error"},
      {"check --json --no-such-option x", 2, "check", "error"},
      // vlag kernel: check, snapshot, import, replay, the state captures, record's errors.
      {"kernel check --json " + data(nice) + " --snapshot " + data(snap), 0, "kernel check",
       "inconclusive"},
      {"kernel check --json --worst 3 " + data(nice), 0, "kernel check", "inconclusive"},
      {"kernel check --json " + q(bad), 2, "kernel check", "error"},
      {"kernel check --json --state " + data("linux-state/hogs"), 0, "kernel check",
       "inconclusive"},
      {"kernel snapshot --json " + data(snap), 0, "kernel snapshot", "held"},
      {"kernel snapshot --json " + q(bad), 2, "kernel snapshot", "error"},
      {"kernel import --json " + data(nice) + " --cpu 1 -o " + q(tmp + "/vlag-schema-import.jsonl"),
       0, "kernel import", "not applicable"},
      {"kernel import --json " + data(nice) + " --cpu 1", 2, "kernel import", "error"},
      {"kernel replay --json " + data("fidelity/forty"), 0, "kernel replay", "not applicable"},
      {"kernel replay --json --goal one-cpu " + data("fidelity/forty"), -1, "kernel replay", ""},
      {"kernel record --json --cpu 99999", 2, "kernel record", "error"},
      // vlag prove: held, a counterexample, and an error.
      {"prove --json --tasks 2 --depth 2 --invariant INV-LAG-SUM --preset linux-6.18 "
       "--no-induction",
       0, "prove", "held"},
      {"prove --json --tasks 2 --depth 4 --invariant THM-LAG-BOUND --preset linux-6.18 "
       "--slices 100000,3000000 --trace " +
           q(tmp + "/vlag-schema-cex.trace"),
       1, "prove", "not applicable"},
      {"prove --json --invariant INV-NOPE", 2, "prove", "error"},
      // vlag compare; and the error of a subcommand without --json, asked for one.
      {"compare --json --workload hogs --seconds 0.01 --vary nice=0,1", 0, "compare",
       "not applicable"},
      {"sim --json", 2, "sim", "error"},
  };
}

class JsonReports : public ::testing::TestWithParam<Case> {};

TEST_P(JsonReports, FollowTheSchema) {
  const Case& c = GetParam();
  dom::parser schema_parser;
  dom::element schema;
  ASSERT_FALSE(schema_parser.load(std::string(VLAG_DOCS) + "/report.schema.json").get(schema));
  Validator validator(schema);

  const auto r = shell(std::string(VLAG_BINARY) + " " + c.args, scratch());
  if (c.status >= 0) {
    EXPECT_EQ(r.status, c.status) << c.args << "\n" << r.out.substr(0, 2000);
  }
  dom::parser parser;
  dom::element doc;
  ASSERT_FALSE(parser.parse(simdjson::padded_string(r.out)).get(doc))
      << c.args << ": not one JSON document:\n"
      << r.out.substr(0, 2000);
  for (const std::string& e : validator.validate(doc)) ADD_FAILURE() << c.args << ": " << e;
  EXPECT_EQ(int64_t(doc["exit_code"]), r.status) << c.args;
  EXPECT_EQ(std::string_view(doc["command"]), c.command) << c.args;
  if (!c.result.empty()) {
    EXPECT_EQ(std::string_view(doc["result"]), c.result) << c.args;
  }
}

INSTANTIATE_TEST_SUITE_P(EverySubcommand, JsonReports, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return "case" + std::to_string(info.index); });

// The validator itself refuses what the schema rules out, so a pass above means something.
TEST(JsonSchemaValidator, RejectsReportsTheSchemaRulesOut) {
  dom::parser schema_parser;
  dom::element schema;
  ASSERT_FALSE(schema_parser.load(std::string(VLAG_DOCS) + "/report.schema.json").get(schema));
  Validator validator(schema);
  const std::string envelope =
      R"("version":"0","exit_code":0,"counts":{"held":1,"violated":0,"inconclusive":0,"not_applicable":0},"findings":[],"findings_left_out":0)";
  const auto errors = [&](const std::string& text) {
    dom::parser p;
    return validator.validate(p.parse(simdjson::padded_string(text)));
  };
  EXPECT_TRUE(errors(R"({"command":"sim","result":"held",)" + envelope + "}").empty());
  EXPECT_FALSE(errors(R"({"command":"sim","result":"fine",)" + envelope + "}").empty());
  EXPECT_FALSE(errors(R"({"command":"check","result":"held",)" + envelope + "}").empty())
      << "check's own members are required";
  EXPECT_FALSE(errors(R"({"command":"sim","result":"error",)" + envelope + "}").empty())
      << "an error needs its error member and exit code 2";
  EXPECT_FALSE(errors(R"({"command":"sim","result":"held","counts":{"held":-1}})").empty());
}

}  // namespace
}  // namespace vlag
