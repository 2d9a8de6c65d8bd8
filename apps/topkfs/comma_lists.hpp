#pragma once
// The list options of the command (--target, --categorical, --numeric,
// --na-values, evaluate's --method), given as repeated flags, comma lists or
// both: --target a --target b, --target a,b.
#include <string>
#include <vector>

namespace topkfs::cli {

// The items of `values` split at commas. An empty item ("a,,b", a trailing
// comma) is an OptionError naming `flag`, as in the methods' list options
// (--hidden 4,,4), rather than dropped.
std::vector<std::string> comma_list(const std::string& flag,
                                    const std::vector<std::string>& values);

}  // namespace topkfs::cli
