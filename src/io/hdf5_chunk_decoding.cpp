#include "hdf5_chunk_decoding.hpp"

#include <algorithm>

namespace topkfs::hdf5 {

bool read_pipeline(hid_t plist, std::vector<PipelineFilter>* pipeline) {
  const int count = H5Pget_nfilters(plist);
  if (count < 0) return false;
  pipeline->assign(static_cast<std::size_t>(count), {});
  for (int index = 0; index < count; ++index) {
    auto& filter = (*pipeline)[static_cast<std::size_t>(index)];
    unsigned flags = 0;
    std::size_t values = 32;  // libhdf5's filters record at most 20 values
    filter.values.resize(values);
    unsigned config = 0;
    filter.id = H5Pget_filter2(plist, static_cast<unsigned>(index), &flags, &values,
                               filter.values.data(), 0, nullptr, &config);
    if (filter.id < 0) return false;
    filter.values.resize(std::min<std::size_t>(values, 32));
  }
  return true;
}

}  // namespace topkfs::hdf5
