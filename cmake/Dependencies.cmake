# All third-party packages come from the system (scripts/setup.sh installs the Debian packages).
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
# yaml-cpp writes the Kubernetes manifests of `recommend --emit k8s` (libyaml-cpp-dev; target yaml-cpp).
find_package(yaml-cpp REQUIRED)
if(RIGHTSIZE_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()
