#pragma once
// The w^{max_k} operator of the sub-model is the library's one top-k rule,
// top_k_by_magnitude (topkfs/select/top_k.hpp): the k entries of largest
// |w|, ties to the lower index. The neural code includes it under this name.
#include "topkfs/select/top_k.hpp"
