"""Local scopes: the names a block, a function or an action binds, each with
its type, its slot and whether a statement may change it."""

from __future__ import annotations


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.names = {}  # name -> (type, slot, mutable)

    def lookup(self, name):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def all_names(self):
        out = set()
        s = self
        while s is not None:
            out |= set(s.names)
            s = s.parent
        return out
