#include "run_config.h"

#include <flatbuffers/minireflect.h>

namespace tvis::cli {

std::string run_config_json(const schema::RunConfigT& c) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);  // every scalar written: the runner sees the whole configuration
  fbb.Finish(schema::RunConfig::Pack(fbb, &c));
  flatbuffers::ToStringVisitor json(" ", /*quotes=*/true, "");
  flatbuffers::IterateFlatBuffer(fbb.GetBufferPointer(), schema::RunConfigTypeTable(), &json);
  return json.s;
}

}  // namespace tvis::cli
