//===- HostFunctionDict.h - A host function's description in Python -*- C++ -*-===//

#ifndef FLY_BINDINGS_HOSTFUNCTIONDICT_H
#define FLY_BINDINGS_HOSTFUNCTIONDICT_H

#include "fly/HostAbi.h"

#include <nanobind/nanobind.h>

/// The dict the front end holds for host function `f`: name,
/// original_type, block_size, arguments, parameters and slots.
nanobind::dict hostFunctionDict(const fly::HostFunctionInfo &f);

/// hostFunctionDict's inverse (the dict may have been through JSON, in the
/// disk cache: tuples come back as lists). A ValueError for anything else.
fly::HostFunctionInfo hostFunctionOf(nanobind::handle object);

#endif // FLY_BINDINGS_HOSTFUNCTIONDICT_H
