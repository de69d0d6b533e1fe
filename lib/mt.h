/*
 * mt: the library every mt program links with, one header a module;
 * this one includes them all.  Nothing under lib/ prints except through
 * diag.c.
 */
#ifndef MT_H
#define MT_H

#include "diag.h"
#include "units.h"
#include "seconds.h"
#include "writeall.h"
#include "idxtab.h"
#include "event.h"
#include "out.h"
#include "json.h"
#include "lines.h"
#include "bits.h"
#include "pattern.h"
#include "map.h"
#include "trace.h"
#include "regions.h"
#include "bound.h"
#include "ktrace.h"
#include "reader.h"
#include "pair.h"
#include "lifeclass.h"
#include "sink.h"
#include "stacks.h"
#include "shortname.h"
#include "startup.h"
#include "groupkey.h"
#include "steps.h"
#include "pprof.h"
#include "suppress.h"
#include "table.h"
#include "inject.h"
#include "progress.h"
#include "outfile.h"
#include "pipepeer.h"

#endif
