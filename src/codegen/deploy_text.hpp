#pragma once
// The fixed text of a deployed front's project (deploy.hpp): the library's public header
// and implementation, the header of the generated point tables, and the demo. Nothing in
// them depends on a front; points.cpp, CMakeLists.txt and README.md are generated.

namespace liftc::codegen::deploy_text {

/// front.hpp: the library's API (namespace liftc_deploy, class Front).
extern const char* const kFrontHpp;
/// front_data.hpp: the declaration of the point tables points.cpp defines.
extern const char* const kFrontDataHpp;
/// front.cpp: the library (choosing, switching, caching built programs, running).
extern const char* const kFrontCpp;
/// demo.cpp: the demo executable.
extern const char* const kDemoCpp;

}  // namespace liftc::codegen::deploy_text
