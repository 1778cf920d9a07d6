"""Token labels for embedding tables and attention tokens: the script's vocabulary.

Rule (summarized in recorder/README.md): a vocabulary is a list/tuple of
distinct strings (index -> token; a corpus split into tokens repeats them, so it
is not one), a dict int -> str over 0..n-1, or a dict str -> int whose values
are exactly 0..n-1 (inverted), found under one of the names in ``INDEX_NAMES``
(list-like) or ``INVERSE_NAMES`` (str -> int)
  1. as a local variable of a project frame on the stack when the model is
     called (innermost first), or a global of that frame's module, or
  2. as an attribute of an object found there (one level deep, read from the
     object's instance ``__dict__`` only, so no property or user code runs);
     a DataLoader found there also has its ``dataset`` searched that way.
A table of n rows takes the first vocabulary of exactly n tokens; token ids
take the vocabulary of the table that embedded them, else the first one that
covers every id. Nothing found: labels stay empty (the viewer shows ids).

Contract: reads only; never calls user code. The search runs once per run.
"""

import sys
import types

INDEX_NAMES = ("itos", "idx_to_token", "index_to_token", "id_to_token", "id2token", "idx2token", "i2s",
               "vocab", "vocabulary", "chars", "tokens", "words", "idx_to_char", "idx2char")
INVERSE_NAMES = ("stoi", "token_to_idx", "token_to_index", "token_to_id", "token2id", "token2idx", "s2i",
                 "vocab", "vocabulary", "index", "char_to_idx", "char2idx", "word_to_idx", "word2idx")
_MAX_TOKENS = 1 << 20


def as_token_list(name, value):
    """value as an index -> token list when `name` and the value's shape say it is one, else None."""
    if name in INDEX_NAMES:
        if isinstance(value, (list, tuple)) and value and len(value) <= _MAX_TOKENS \
                and all(isinstance(v, str) for v in value) and len(set(value)) == len(value):
            return list(value)
        if isinstance(value, dict) and value and len(value) <= _MAX_TOKENS \
                and all(isinstance(k, int) and isinstance(v, str) for k, v in value.items()) \
                and set(value) == set(range(len(value))):
            return [value[i] for i in range(len(value))]
    if name in INVERSE_NAMES and isinstance(value, dict) and value and len(value) <= _MAX_TOKENS \
            and all(isinstance(k, str) and isinstance(v, int) for k, v in value.items()) \
            and set(value.values()) == set(range(len(value))):
        out = [""] * len(value)
        for k, v in value.items():
            out[v] = k
        return out
    return None


class Vocabularies:
    """The vocabularies visible from the model's call site, found at first use."""

    def __init__(self, project_files):
        self._project = project_files
        self._found = None  # [token list]

    def for_table(self, rows):
        return next((v for v in self._all() if len(v) == rows), [])

    def for_ids(self, max_id, table_rows=None):
        if table_rows is not None:
            v = self.for_table(table_rows)
            if v:
                return v
        return next((v for v in self._all() if len(v) > max_id), [])

    def _all(self):
        if self._found is None:
            self._found = self._search()
        return self._found

    def _search(self):
        found, seen = [], set()
        for namespace in self._namespaces():
            for name, value in list(namespace.items()):
                self._take(name, value, found, seen)
            for value in list(namespace.values()):
                for attrs in self._containers(value):
                    for name, attr in list(attrs.items()):
                        self._take(name, attr, found, seen)
        return found

    @staticmethod
    def _take(name, value, found, seen):
        tokens = as_token_list(name, value)
        if tokens is not None and tuple(tokens) not in seen:
            seen.add(tuple(tokens))
            found.append(tokens)

    @staticmethod
    def _containers(value):
        """Instance dicts searched one level deep (no user __getattr__ runs)."""
        import torch
        if isinstance(value, (torch.Tensor, torch.nn.Module, type, types.ModuleType, types.FunctionType)):
            return []
        dicts = [_instance_dict(value)]
        if isinstance(value, torch.utils.data.DataLoader) and dicts[0] is not None:
            dicts.append(_instance_dict(dicts[0].get("dataset")))
        return [d for d in dicts if d]

    def _namespaces(self):
        out, seen = [], set()
        f = sys._getframe(1)
        while f is not None:
            if self._project.contains(f.f_code.co_filename):
                for ns in (f.f_locals, f.f_globals):
                    if id(ns) not in seen:
                        seen.add(id(ns))
                        out.append(ns)
            f = f.f_back
        return out


def _instance_dict(obj):
    try:
        d = object.__getattribute__(obj, "__dict__")
    except (AttributeError, TypeError):
        return None
    return d if isinstance(d, dict) else None
