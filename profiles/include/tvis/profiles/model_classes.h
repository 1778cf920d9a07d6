// model_classes.h: which discovered classes are models. A class is a model
// when a base resolves (through the file's imports) to torch.nn.Module, to
// another class of torch.nn (torch.nn.Sequential, ...; not Parameter), to a
// LightningModule, or to a model class of the workspace (followed across
// files and package re-exports). Its forward is its own, else the first
// found along its bases, depth first; one inherited from torch itself is
// unknown to source discovery (`forward_from` names it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tvis/profiles/input_declaration.h"
#include "tvis/profiles/source_facts.h"

namespace tvis::profiles {

struct ModelClass {
  std::string ref;     // "module:Class"
  std::string module, name;
  const FileFacts* file = nullptr;
  const ClassFacts* cls = nullptr;
  std::string base;    // the resolved base that makes it a model (e.g. torch.nn.Module, flax.linen.Module)
  std::string framework = "torch";  // "jax" for a Flax module (linen or nnx): its forward is `__call__`
  std::optional<Signature> forward;  // known forward (own or inherited from the workspace)
  std::string forward_from;  // "" own; else the dotted class it is inherited from
  std::optional<Signature> init;  // `__init__`, own or the first along the workspace bases (none: unknown or torch's)
  ClassDeclaration declaration;
  /// The method `forward` stands for: "__call__" for a Flax module, else "forward".
  const char* forward_name() const { return framework == "jax" ? "__call__" : "forward"; }
};

/// Every model class of the workspace's (non-external) files, in file and line order.
std::vector<ModelClass> find_model_classes(const SourceFacts& facts);

/// A top-level function of a workspace file that imports jax or flax: what a
/// framework = "jax" profile's `model` may name besides a Flax class (found
/// from the source, nothing imported; whether it is JAX code is not proven).
struct JaxFunction {
  std::string ref;  // "module:function"
  const FileFacts* file = nullptr;
  const FunctionFacts* function = nullptr;
};

/// Every such function, in file and line order.
std::vector<JaxFunction> find_jax_functions(const SourceFacts& facts);

}  // namespace tvis::profiles
