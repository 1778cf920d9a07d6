// Source discovery with the real interpreter: model classes, forward
// signatures, declarations and their ownership rules; nothing is imported.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tvis/profiles/catalog.h"
#include "tvis/profiles/input_declaration.h"
#include "tvis/profiles/source_reader.h"

using namespace tvis::profiles;
namespace fs = std::filesystem;

namespace {

struct Tree {
  std::string root;
  Tree() {
    char tmpl[] = "/tmp/tvis-discovery-XXXXXX";
    root = mkdtemp(tmpl);
  }
  ~Tree() { fs::remove_all(root); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories(fs::path(root + "/" + rel).parent_path());
    std::ofstream(root + "/" + rel, std::ios::binary) << text;
  }
  Catalog catalog() const { return build_catalog(find_workspace(root, "/"), TVIS_TEST_PYTHON); }
};

const ModelClass* find(const Catalog& c, const std::string& ref) {
  for (const auto& m : c.classes)
    if (m.ref == ref) return &m;
  return nullptr;
}

}  // namespace

TEST_CASE("declaration text: what is read and what needs explicit setup") {
  struct Row { std::string comment; bool ok; std::string error; };
  const std::vector<Row> rows = {
      {"# tensorviz: input=5,8", true, ""},
      {"#tensorviz:input = 2, 8 ; 2, 8", true, ""},
      {"# tensorviz: input=batch,8", false, "unsupported expression 'input=batch,8': dims are positive integers, ',' between dims and ';' between tensors (nothing is evaluated; use tensorviz.toml for other inputs)"},
      {"# tensorviz: input=0,8", false, "dimension 0 in 'input=0,8' is not positive"},
      {"# tensorviz: input=2048,2049", false, "'input=2048,2049' declares more than 4194304 elements"},
      {"# tensorviz: dtype=int64", false, "'dtype=int64' is not a declaration tvis reads (only input=DIMS;DIMS, e.g. input=2,8;2,8)"},
      {"# tensorviz: input=" + std::string(33 * 2 - 1, ',').replace(0, 65, "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"), false, "a tensor of 33 dims, more than 32"},
  };
  for (const auto& r : rows) {
    INFO(r.comment);
    const ParsedDeclaration d = parse_declaration(r.comment);
    CHECK(d.ok == r.ok);
    CHECK(d.error == r.error);
  }
  CHECK(parse_declaration("# tensorviz: input=2,8;2,8").shapes == std::vector<std::vector<int64_t>>{{2, 8}, {2, 8}});
}

TEST_CASE("model classes are found without importing; declarations follow the ownership rules") {
  Tree t;
  t.write("models.py",
          "import torch.nn as nn\nraise SystemExit('imported!')\n\n"
          "# tensorviz: input=2,4\n@decorate\nclass A(nn.Module):\n    def forward(self, x):\n        s = '# tensorviz: input=9,9'\n        return x\n\n"
          "class B(A):\n    # tensorviz: input=1,2;1,2\n    def forward(self, x, y, *, mask=None):\n        return x\n\n"
          "# tensorviz: input=3\n\nclass C(nn.Module):\n    def forward(self, x):\n        return x\n\n"
          "class NotModel(object):\n    pass\n");
  t.write("one.py", "\xEF\xBB\xBF" "from torch.nn import Module\r\n# tensorviz: input=7,7\r\nx = 1\r\nclass Only(Module):\r\n    def forward(self, a, b=None):\r\n        return a\r\n");
  t.write("cr.py", "from torch import nn\r# tensorviz: input=5\rclass Cr(nn.Sequential):\r    pass\r");
  t.write("pkg/__init__.py", "from .layers import Block\n");
  t.write("pkg/layers.py", "from torch import nn\nclass Block(nn.Module):\n    def forward(self, x, *rest):\n        return x\n");
  t.write("pkg/net.py", "from pkg import Block\nclass Net(Block):\n    # tensorviz: input=1,2\n    # tensorviz: input=1,3\n    pass\n");
  t.write("bad.py", "class (:\n");
  const Catalog c = t.catalog();
  REQUIRE(c.sources.error.empty());
  const ModelClass* a = find(c, "models:A");
  REQUIRE(a);
  CHECK(a->base == "torch.nn.Module");
  CHECK(a->cls->line == 6);
  CHECK(a->forward->text() == "forward(self, x)");
  CHECK(a->declaration.ok);
  CHECK(a->declaration.spec() == "input=2,4");  // the string in the body is not a declaration
  const ModelClass* b = find(c, "models:B");
  REQUIRE(b);
  CHECK(b->base == "models.A");
  CHECK(b->forward->text() == "forward(self, x, y, *, mask=...)");
  CHECK(b->declaration.spec() == "input=1,2;1,2");
  const ModelClass* cc = find(c, "models:C");
  REQUIRE(cc);
  CHECK_FALSE(cc->declaration.ok);  // a blank line between: not C's; three models: applies to none
  CHECK(cc->declaration.error.empty());
  CHECK(!find(c, "models:NotModel"));
  const ModelClass* only = find(c, "one:Only");  // BOM, CRLF; the file's only model
  REQUIRE(only);
  CHECK(only->declaration.ok);
  CHECK(only->declaration.lines == std::vector<int>{2});
  CHECK(only->declaration.error.empty());
  const ModelClass* cr = find(c, "cr:Cr");  // CR line endings; forward is torch's
  REQUIRE(cr);
  CHECK(cr->declaration.spec() == "input=5");
  CHECK(cr->forward_from == "torch.nn.Sequential");
  const ModelClass* net = find(c, "pkg.net:Net");  // through the package's re-export
  REQUIRE(net);
  CHECK(net->forward_from == "pkg.layers.Block");
  CHECK(net->declaration.error == "conflicting declarations input=1,2 (line 3) and input=1,3 (line 4); keep one, or use tensorviz.toml");
  bool saw_bad = false, saw_unowned = false;
  for (const auto& n : c.notices) {
    saw_bad = saw_bad || n.rfind("bad.py: not read: SyntaxError at line 1", 0) == 0;
    saw_unowned = saw_unowned || n == "models.py:16: declaration applies to no class: the file has 3 model classes; move it into or directly above the intended class";
  }
  CHECK(saw_bad);
  CHECK(saw_unowned);
}

TEST_CASE("argument-count mismatches and keyword-only forwards need explicit setup") {
  Tree t;
  t.write("m.py", "from torch import nn\n# tensorviz: input=2,4;2,4\nclass One(nn.Module):\n    def forward(self, x):\n        return x\n");
  t.write("k.py", "from torch import nn\n# tensorviz: input=2,4\nclass K(nn.Module):\n    def forward(self, x, *, mask):\n        return x\n");
  const Catalog c = t.catalog();
  CHECK(find(c, "m:One")->declaration.error == "2 declared tensors for forward(self, x), which takes 1 positional input; explicit setup is needed");
  CHECK(find(c, "k:K")->declaration.error == "forward(self, x, *, mask) requires keyword-only mask; a declaration supplies positional tensors only; explicit setup is needed");
}

TEST_CASE("profiles are checked against the sources: model file, factory callable, package-qualified model") {
  Tree t;
  t.write("pkg/__init__.py", "");
  t.write("pkg/model.py", "import torch\nclass Whisper(torch.nn.Module):\n    def forward(self, mel, tokens):\n        return mel\n");
  t.write("recipes.py", "def make_model():\n    pass\nhelper = 1\n");
  t.write("tensorviz.toml",
          "version = 1\n[profiles.w]\nkind = \"model\"\nmodel = \"pkg.model:Whisper\"\nmode = \"eval\"\ndevice = \"cpu\"\ngrad_enabled = false\nseed = 0\n"
          "factory = { file = \"recipes.py\", callable = \"make_model\", kwargs = {} }\n"
          "inputs = { factory = { file = \"recipes.py\", callable = \"helper\" } }\n"
          "[profiles.gone]\nkind = \"model\"\nmodel = \"pkg.model:Missing\"\nmode = \"eval\"\ndevice = \"cpu\"\ngrad_enabled = false\n"
          "init = { args = [], kwargs = {} }\ninputs = { args = [] }\n");
  const Catalog c = t.catalog();
  const auto problems = c.config.all_problems();
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].text() == t.root + "/tensorviz.toml:2: profiles.w.inputs.factory.callable: recipes.py assigns helper but a factory must be a top-level def");
  CHECK(problems[1].text() == t.root + "/tensorviz.toml:11: profiles.gone.model: pkg/model.py defines no class Missing");
  CHECK(c.exit_code() == 2);
  CHECK(find(c, "pkg.model:Whisper"));
}

// Issue 29 item 13: a cloned workspace cannot make discovery read files elsewhere.
TEST_CASE("a .py link out of the workspace is not a source, and is named; a link inside it is") {
  Tree t, outside;
  outside.write("secret.py", "from torch import nn\nclass Secret(nn.Module):\n    pass\n");
  t.write("real.py", "from torch import nn\nclass Real(nn.Module):\n    pass\n");
  fs::create_symlink(outside.root + "/secret.py", t.root + "/leak.py");
  fs::create_symlink(t.root + "/real.py", t.root + "/alias.py");
  const Catalog c = t.catalog();
  REQUIRE(c.sources.error.empty());
  CHECK(find(c, "real:Real"));
  CHECK(find(c, "alias:Real"));
  CHECK_FALSE(find(c, "leak:Secret"));
  bool named = false;
  for (const auto& n : c.notices)
    named = named || n == "leak.py -> " + fs::canonical(outside.root + "/secret.py").string() +
                             ": not read: a link out of the workspace";
  CHECK(named);
}

TEST_CASE("Flax module classes (linen and nnx) are models of framework jax, their forward is __call__") {
  Tree t;
  t.write("flax_models.py",
          "import flax.linen as nn\nfrom flax import nnx\nraise SystemExit('imported!')\n\n"
          "class Dense2(nn.Module):\n    features: int = 2\n    @nn.compact\n    def __call__(self, x, train: bool = False):\n        return x\n\n"
          "class Sub(Dense2):\n    pass\n\n"
          "class Mlp(nnx.Module):\n    def __init__(self, hidden, rngs):\n        pass\n    def __call__(self, x):\n        return x\n\n"
          "def plain(x):\n    return x\n\ndef _private(x):\n    return x\n");
  t.write("torch_only.py", "import torch\n\ndef helper(x):\n    return x\n");
  t.write("tensorviz.toml", "version = 1\n[profiles.f]\nkind = \"model\"\nframework = \"jax\"\nmodel = \"flax_models:plain\"\n"
                            "mode = \"eval\"\ndevice = \"cpu\"\ngrad_enabled = false\n[profiles.f.init]\nargs = []\nkwargs = {}\n"
                            "[profiles.f.inputs]\nargs = []\nkwargs = {}\n"
                            "[profiles.g]\nkind = \"model\"\nmodel = \"flax_models:plain\"\n"
                            "mode = \"eval\"\ndevice = \"cpu\"\ngrad_enabled = false\n[profiles.g.init]\nargs = []\nkwargs = {}\n"
                            "[profiles.g.inputs]\nargs = []\nkwargs = {}\n");
  const Catalog c = t.catalog();
  REQUIRE(c.sources.error.empty());
  const ModelClass* d = find(c, "flax_models:Dense2");
  REQUIRE(d);
  CHECK(d->framework == "jax");
  CHECK(d->base == "flax.linen.Module");
  CHECK(d->forward->text("__call__") == "__call__(self, x, train=...)");
  const ModelClass* sub = find(c, "flax_models:Sub");  // through a workspace base
  REQUIRE(sub);
  CHECK(sub->framework == "jax");
  const ModelClass* mlp = find(c, "flax_models:Mlp");
  REQUIRE(mlp);
  CHECK(mlp->base == "flax.nnx.Module");
  CHECK(mlp->init->params.size() == 3);
  const auto functions = find_jax_functions(c.sources);
  REQUIRE(functions.size() == 1);  // plain(); torch-only files list none
  CHECK(functions[0].ref == "flax_models:plain");
  CHECK(catalog_json(c)["jax_functions"][0]["function"] == "flax_models:plain");
  // A JAX profile may name a top-level function; a torch profile may not.
  const Profile* f = nullptr;
  const Profile* g = nullptr;
  for (const auto& p : c.config.profiles) (p.name == "f" ? f : g) = &p;
  REQUIRE(f);
  REQUIRE(g);
  CHECK(f->valid());
  REQUIRE_FALSE(g->valid());
  CHECK(g->problems.front().message == "flax_models.py defines no class plain");
}
