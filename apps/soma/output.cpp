#include "output.hpp"

#include <ostream>

#include "soma/web/csv.hpp"

namespace soma::cli {

void print_rows(std::ostream& out, const invocation& inv, const web::json& array) {
  if (inv.csv)
    out << web::csv_of(array);
  else
    web::print_json_array(out, array);
}

} // namespace soma::cli
