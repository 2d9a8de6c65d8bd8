#include "topkfs/core/error.hpp"

#include <cstdio>
#include <cstdlib>

namespace topkfs {

void assertion_failed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "topkfs: internal error: assertion '%s' failed at %s:%d\n", expr, file,
               line);
  std::abort();
}

}  // namespace topkfs
