// fb_string.h: a FlatBuffers string field as a std::string.
#pragma once

#include <string>

#include <flatbuffers/flatbuffers.h>

namespace tvis::format {

/// The field's text; an absent field (null) reads as "", as the schema's
/// strings default.
inline std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

}  // namespace tvis::format
