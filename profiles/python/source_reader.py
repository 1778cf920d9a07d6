# source_reader.py: the facts tvis_profiles needs from Python sources, read
# with this interpreter's own ast and tokenize. Nothing of the project is
# imported or run: files are read as text, parsed, and described.
#
# Embedded in tvis (source_reader_script.cpp) and run as
#   python -I -c <this file> < requests
# (-I: no PYTHON* variables, no user site, neither the cwd nor a script
# folder on sys.path, so a workspace module named like a stdlib one cannot
# shadow it). stdin, one request per line, tab-separated:
#   file <TAB> ABSOLUTE_PATH <TAB> MODULE <TAB> IS_PACKAGE(0|1)
#   find <TAB> MODULE      (a module outside the workspace: looked up as a
#                           file on sys.path and the user site, not imported)
# stdout: one JSON object {"files": [...]} (keys: see source_facts.h).
# Stays within Python 3.8's language and library.
import ast
import io
import json
import os
import re
import site
import sys
import tokenize

DECLARATION = re.compile(r"#\s*tensorviz\s*:")
MAX_FILE_BYTES = 8 * 1024 * 1024


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Subscript):  # Generic[T], Base[int]: the base itself
        return dotted(node.value)
    return None


def source_text(node):
    """A default's or annotation's source as ast.unparse gives it (bounded; None without one)."""
    if node is None:
        return None
    try:
        text = ast.unparse(node)
    except Exception:  # ast.unparse is 3.9+
        return None
    return text if len(text) <= 200 else text[:197] + "..."


def params_of(args):
    """Each parameter: name, kind, whether it has a default, and (for the setup
    form) the default's and the annotation's source text."""
    out = []
    positional = list(getattr(args, "posonlyargs", [])) + list(args.args)
    n_plain = len(positional) - len(args.defaults)
    n_posonly = len(getattr(args, "posonlyargs", []))

    def entry(a, kind, default):
        return {"name": a.arg, "kind": kind, "default": default is not None,
                "default_text": source_text(default), "annotation": source_text(a.annotation)}

    for i, a in enumerate(positional):
        out.append(entry(a, "posonly" if i < n_posonly else "pos", args.defaults[i - n_plain] if i >= n_plain else None))
    if args.vararg is not None:
        out.append(entry(args.vararg, "vararg", None))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(entry(a, "kwonly", d))
    if args.kwarg is not None:
        out.append(entry(args.kwarg, "varkw", None))
    return out


def module_level(body):
    """Statements at module level, including those inside if/try/with blocks."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.With, ast.AsyncWith)):
            for child in module_level(node.body + getattr(node, "orelse", [])):
                yield child
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            blocks = node.body + node.orelse + node.finalbody
            for h in node.handlers:
                blocks = blocks + h.body
            for child in module_level(blocks):
                yield child


def resolve_from(module, is_package, level, name):
    if level == 0:
        return name or ""
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    if name:
        base = base + name.split(".")
    return ".".join(base)


def imports_of(tree, module, is_package):
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    names[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom):
            source = resolve_from(module, is_package, node.level or 0, node.module)
            for a in node.names:
                if a.name != "*":
                    names[a.asname or a.name] = (source + "." if source else "") + a.name
    return names


def class_facts(node):
    forward = None
    init = None
    call = None
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__init__":
            init = {"line": stmt.lineno, "params": params_of(stmt.args), "assigned": False}
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "__call__":
            call = {"line": stmt.lineno, "params": params_of(stmt.args), "assigned": False}
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "forward":
            forward = {"line": stmt.lineno, "params": params_of(stmt.args), "assigned": False}
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "forward" for t in stmt.targets):
            forward = {"line": stmt.lineno, "params": [], "assigned": True}
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return {
        "name": node.name,
        "line": node.lineno,
        "first_line": first,
        "end_line": getattr(node, "end_lineno", None) or node.lineno,
        "bases": [dotted(b) for b in node.bases],
        "forward": forward,
        "init": init,
        "call": call,
    }


def token_facts(text):
    """Declaration comments, and the rows holding code or only comments."""
    code_rows, comment_rows, declarations = set(), set(), []
    skip = (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER, tokenize.COMMENT)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            comment_rows.add(tok.start[0])
            if DECLARATION.match(tok.string):
                declarations.append({"line": tok.start[0], "column": tok.start[1] + 1, "text": tok.string})
        elif tok.type not in skip:
            for row in range(tok.start[0], tok.end[0] + 1):
                code_rows.add(row)
    for d in declarations:
        d["comment_only"] = d["line"] not in code_rows
    return code_rows, comment_rows, declarations


def read_text(path):
    with open(path, "rb") as f:
        raw = f.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError("larger than %d bytes, not read" % MAX_FILE_BYTES)
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)  # a BOM gives utf-8-sig
    text = raw.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")  # CR and CRLF lines count as lines


def describe(path, module, is_package):
    out = {"path": path, "module": module, "is_package": is_package, "error": None,
           "imports": {}, "classes": [], "functions": [], "assigned": [], "declarations": []}
    try:
        text = read_text(path)
        tree = ast.parse(text, filename=path)
        # Tokenizing is most of the cost; only a file mentioning tensorviz can hold a declaration.
        code_rows, comment_rows, declarations = token_facts(text) if "tensorviz" in text else (set(), set(), [])
    except SyntaxError as e:
        out["error"] = "%s at line %s, column %s: %s" % (type(e).__name__, e.lineno, e.offset, e.msg)
        return out
    except Exception as e:  # unreadable, undecodable, too large, tokenizer failure
        out["error"] = "%s: %s" % (type(e).__name__, e)
        return out
    out["imports"] = imports_of(tree, module, is_package)
    out["declarations"] = declarations
    for node in module_level(tree.body):
        if isinstance(node, ast.ClassDef):
            facts = class_facts(node)
            row = facts["first_line"] - 1
            while row >= 1 and row in comment_rows and row not in code_rows:
                row -= 1
            facts["above_start"] = row + 1
            out["classes"].append(facts)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out["functions"].append({"name": node.name, "line": node.lineno, "params": params_of(node.args),
                                     "async": isinstance(node, ast.AsyncFunctionDef)})
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out["assigned"] += [t.id for t in targets if isinstance(t, ast.Name)]
    return out


def search_path():
    dirs = [p for p in sys.path if p and os.path.isdir(p)]
    try:
        user = site.getusersitepackages()
        if os.path.isdir(user) and user not in dirs:
            dirs.append(user)
    except Exception:
        pass
    return dirs


def find_module(module):
    parts = module.split(".")
    for d in search_path():
        base = os.path.join(d, *parts)
        if os.path.isfile(base + ".py"):
            return base + ".py", False
        init = os.path.join(base, "__init__.py")
        if os.path.isfile(init):
            return init, True
    return None, False


def main():
    files = []
    for line in sys.stdin.read().splitlines():
        fields = line.split("\t")
        if fields[0] == "file" and len(fields) == 4:
            files.append(describe(fields[1], fields[2], fields[3] == "1"))
        elif fields[0] == "find" and len(fields) == 2:
            path, is_package = find_module(fields[1])
            if path is None:
                files.append({"path": None, "module": fields[1], "external": True, "error": "not found"})
            else:
                facts = describe(path, fields[1], is_package)
                facts["external"] = True
                files.append(facts)
    json.dump({"python": sys.version.split()[0], "files": files}, sys.stdout)


main()
