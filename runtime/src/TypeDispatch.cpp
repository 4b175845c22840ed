#include "strata/runtime/TypeDispatch.h"

namespace strata::runtime {

std::string type_name(halide_type_t type) {
    std::string code;
    switch (type.code) {
    case halide_type_int: code = "int"; break;
    case halide_type_uint: code = type.bits == 1 ? "bool" : "uint"; break;
    case halide_type_float: code = "float"; break;
    case halide_type_handle: code = "handle"; break;
    case halide_type_bfloat: code = "bfloat"; break;
    default: code = "type" + std::to_string(int(type.code)); break;
    }
    if (type.bits != 1) code += std::to_string(int(type.bits));
    if (type.lanes != 1) code += "x" + std::to_string(int(type.lanes));
    return code;
}

}  // namespace strata::runtime
