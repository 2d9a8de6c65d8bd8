// Datasets whose values lie in other files (HDF5 external storage), found and
// refused before libhdf5 opens them: hdf5_util.hpp says why.
#include <fmt/format.h>

#include <string>

#include "hdf5_util.hpp"
#include "topkfs/core/error.hpp"

namespace topkfs::hdf5 {
namespace {

herr_t find_external_storage(hid_t root, const char* name, const H5L_info_t* info, void* found) {
  if (info->type != H5L_TYPE_HARD || !has_external_storage(root, name)) return 0;
  *static_cast<std::string*>(found) = name;
  return 1;  // the first one ends the walk
}

}  // namespace

bool has_external_storage(hid_t location, const char* name) {
  H5O_info_t info{};
  if (H5Oget_info_by_name2(location, name, &info, H5O_INFO_HDR, H5P_DEFAULT) < 0) return false;
  return ((info.hdr.mesg.present >> kExternalFilesMessage) & 1) != 0;
}

void check_no_external_storage(const std::string& path) {
  const QuietErrors quiet;
  const Handle file = file_handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file) return;  // the reader says why it cannot open the file
  std::string found;
  H5Lvisit(file.get(), H5_INDEX_NAME, H5_ITER_INC, find_external_storage, &found);
  if (found.empty()) return;
  throw DataError(
      fmt::format("{}: dataset '/{}' keeps its values in other files (an HDF5 external storage "
                  "list), which topkfs does not read: write the values into the file itself",
                  path, found));
}

}  // namespace topkfs::hdf5
