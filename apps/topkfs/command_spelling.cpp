#include "command_spelling.hpp"

#include "topkfs/core/option_ref.hpp"

namespace topkfs::cli {

std::string for_command_line(const std::string& message) {
  return render_option_refs(message, command_line_spelling);
}

void spell_for_command_line(std::vector<std::string>& messages) {
  for (auto& message : messages) message = for_command_line(message);
}

void spell_for_command_line(nlohmann::json& value) {
  if (value.is_string()) {
    value = for_command_line(value.get_ref<const std::string&>());
  } else if (value.is_structured()) {
    for (auto& item : value) spell_for_command_line(item);
  }
}

void spell_for_command_line(SelectionResult& result) {
  spell_for_command_line(result.notes);
  spell_for_command_line(result.warnings);
  if (result.automatic) spell_for_command_line(*result.automatic);
}

void spell_for_command_line(EvaluationReport& report) {
  spell_for_command_line(report.notes);
  report.split_note = for_command_line(report.split_note);
}

}  // namespace topkfs::cli
