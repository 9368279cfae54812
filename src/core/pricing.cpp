#include "rightsize/pricing.hpp"
