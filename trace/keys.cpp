#include "trace/keys.h"

#include <algorithm>

namespace vlag::trace {

// clang-format off
// By length, then by letter: no string comparison for a key of a well-formed line beyond the
// one that confirms it.
Key key_of(std::string_view k) {
  // k has name's length here: the characters compared inline, not by a call to memcmp.
  const auto is = [&](std::string_view name, Key key) {
    return std::equal(name.begin(), name.end(), k.begin()) ? key : Key::Other;
  };
  switch (k.size()) {
    case 1:
      switch (k[0]) {
        case 't': return Key::t;
        case 'w': return Key::w;
        case 'r': return Key::r;
        case 'v': return Key::v;
        case 'd': return Key::d;
        case 'V': return Key::V;
        case 'W': return Key::W;
        default: return Key::Other;
      }
    case 2:
      switch (k[0]) {
        case 'e': return is("ev", Key::ev);
        case 't': return is("to", Key::to);
        case 'n': return is("nr", Key::nr);
        case 'r': return is("rq", Key::rq);
        case 's': return is("se", Key::se);
        case 'v': return is("v0", Key::v0);
        default: return Key::Other;
      }
    case 3:
      return k[0] == 'c' ? is("cpu", Key::cpu) : is("req", Key::req);
    case 4:
      switch (k[0]) {
        case 't': return is("task", Key::task);
        case 'v': return is("vlag", Key::vlag);
        case 'e': return is("elig", Key::elig);
        case 'n': return is("name", Key::name);
        default: return Key::Other;
      }
    case 5:
      switch (k[0]) {
        case 'd': return is("delta", Key::delta);
        case 's': return k[1] == 'l' ? is("slice", Key::slice) : is("sum_w", Key::sum_w);
        case 'g': return is("group", Key::group);
        case 'v': return is("vprot", Key::vprot);
        default: return Key::Other;
      }
    case 6:
      switch (k[0]) {
        case 'w': return is("weight", Key::weight);
        case 's': return k[1] == 't' ? is("status", Key::status) : is("sum_wv", Key::sum_wv);
        case 'p': return is("parent", Key::parent);
        default: return Key::Other;
      }
    case 7:
      return k[0] == 'p' ? is("preempt", Key::preempt) : is("running", Key::running);
    default:
      return Key::Other;
  }
}
// clang-format on

}  // namespace vlag::trace
