// Selects features of seeded synthetic data through the registry, as a
// program built against an installed topkfs would: prints the version, the
// number of registered methods and the selection, and fails unless the
// planted informative columns are the ones selected.
#include <topkfs/data/synthetic.hpp>
#include <topkfs/methods/registry.hpp>
#include <topkfs/select/run_selection.hpp>
#include <topkfs/version.hpp>

#include <algorithm>
#include <iostream>

int main() {
  topkfs::SyntheticOptions options;
  options.samples = 300;
  options.features = 12;
  options.informative = 3;
  options.correlated_decoys = 0;
  options.target = topkfs::SyntheticOptions::Target::Real;
  options.noise = 0.05;
  options.seed = 1;
  topkfs::SyntheticData made = topkfs::make_synthetic(options);

  auto selector = topkfs::make_selector("lasso");
  const topkfs::SelectionResult result =
      topkfs::run_selection(made.data, *selector, options.informative, {}, {});
  std::cout << "topkfs " << topkfs::kVersion << ", " << topkfs::registered_methods().size()
            << " methods; lasso selected";
  for (const auto column : result.selected) std::cout << ' ' << column;
  std::cout << '\n';

  auto selected = result.selected;
  auto informative = made.informative;
  std::sort(selected.begin(), selected.end());
  std::sort(informative.begin(), informative.end());
  if (!std::equal(selected.begin(), selected.end(), informative.begin(), informative.end())) {
    std::cerr << "consumer: the selection misses the planted columns\n";
    return 1;
  }
  return 0;
}
