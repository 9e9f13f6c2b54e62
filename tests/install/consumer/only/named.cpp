// A header of a user's that names soma's types through soma/fwd.hpp alone
// (compiled into only_actors): each is declared, none defined here.
#include <soma/fwd.hpp>

int named(const soma::store*, const soma::run_row*, const soma::fact*, const soma::values*,
          const soma::typed_graph<int, int>*, const soma::recorder_options*, soma::recorder*,
          const soma::draw::figure*, soma::live*, soma::existing_run*, soma::outcome*,
          soma::curve_columns*) {
  return 0;
}
