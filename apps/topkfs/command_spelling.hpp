#pragma once
// The library's option references (core/option_ref.hpp) as the command line
// spells them: `--w-step`, `--screen off`. Every library text the command
// shows passes through here: the error report (main.cpp), the log lines
// (progress_bar.cpp), and the notes and warnings it prints or writes.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topkfs/evaluation/evaluation.hpp"
#include "topkfs/select/selection_result.hpp"

namespace topkfs::cli {

std::string for_command_line(const std::string& message);
void spell_for_command_line(std::vector<std::string>& messages);
// Every text of `value` (objects and arrays included).
void spell_for_command_line(nlohmann::json& value);
// The notes, the warnings and the texts of the automatic choice.
void spell_for_command_line(SelectionResult& result);
// The notes and the split note.
void spell_for_command_line(EvaluationReport& report);

}  // namespace topkfs::cli
