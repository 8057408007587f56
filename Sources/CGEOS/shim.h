// CGEOS: GEOS's C API (geos_c.h, Debian libgeos-dev), the geometry engine of PostGIS, QGIS and shapely. Only the
// reentrant `_r` functions are used, each call on one context handle (GEOSSupport's GEOSContext).
#ifndef FEATURELOAD_CGEOS_SHIM_H
#define FEATURELOAD_CGEOS_SHIM_H

#include <geos_c.h>

#endif
