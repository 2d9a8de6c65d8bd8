// The library's option references (core/option_ref.hpp) as a Python user
// reads them: the keyword (w_step), or the keyword with its value as a
// Python literal (screen='off', k=5); the command's no-header is
// header=False. Every message leaves the module through these functions.
#include <cmath>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "topkfs/core/option_ref.hpp"

namespace topkfs::python {
namespace {

bool is_number(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

std::string python_spelling(const std::string& name, const std::string& value, bool has_value) {
  if (name == "no-header") return "header=False";
  const std::string keyword = python_keyword(name);
  if (!has_value) return keyword;
  return keyword + "=" + (is_number(value) ? value : "'" + value + "'");
}

}  // namespace

std::string python_keyword(std::string name) {
  for (auto& c : name) c = c == '-' ? '_' : c;
  return name;
}

std::string for_python(const std::string& message) {
  return render_option_refs(message, python_spelling);
}

std::vector<std::string> for_python(const std::vector<std::string>& messages) {
  std::vector<std::string> out;
  out.reserve(messages.size());
  for (const auto& message : messages) out.push_back(for_python(message));
  return out;
}

}  // namespace topkfs::python
