#pragma once
// A host plan (codegen/host_plan.hpp) as C++ tables for generated host code: the value of
// a template's code hole.

#include <string>

#include "liftc/codegen/host_plan.hpp"

namespace liftc::emit {

/// A C++ definition `const liftc_host::PlanInfo NAME = {...};` of the plan (the types are
/// in templates/host_support.hpp). `name` is a C++ name emit chose ("kPlan", "kPlan3");
/// every string of the plan is a string literal (cpp_string), each kernel source a raw
/// string (a source holding its delimiter is a liftc::Error).
std::string plan_tables(const codegen::HostPlan& plan, const std::string& name);

}  // namespace liftc::emit
