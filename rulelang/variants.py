"""Variants: a rules file that starts from another and says only what differs.

    extends "../my_game.rules"
    override param rounds = 1
    override option jokers = true
    override action sell(c in hand(me)) "sell {c}":
      ...

The file named by ``extends`` (a path relative to the variant) is read and
resolved first: it may itself be a variant.  Then each declaration of the
variant is merged into it, in the base's order:

- ``override param NAME = VALUE`` (or ``option``) changes only a
  parameter's default value.
- ``override DECL`` replaces the base's declaration of the same kind and
  name (a parameter or option, enum, zone, variable, function, action; a
  trigger by its event, card and zone; an example by its text; ``game``, ``players``, ``card
  attributes``, ``deck``, ``setup``, ``play``, ``outcome`` and
  ``achievements``, of which a file has one).  ``override cards:`` replaces
  the rows of the cards it names, and leaves the others.
- any other declaration is added: a new action, trigger, invariant, zone,
  ...; the rows of a ``cards:`` block are added to the base's cards.

Overriding what the base does not declare, or declaring again without
``override`` what it does, is an error (RL118) with "did you mean".  Every
span keeps the file it was read from, so each diagnostic names its file;
:class:`RulesText` carries every file's text, for the carets.

This is a stage of the front end of its own: text -> AST (parser) ->
resolved AST (here) -> checked game (checker).
"""

from __future__ import annotations

import os
from pathlib import Path

from . import ast as A
from .diagnostics import Diagnostic, Span, did_you_mean
from .parser import parse, parse_file

# A variant of a variant of ...: at most this many files in a chain.
MAX_CHAIN = 8

# The declarations a file has at most one of, and how a message names them.
_SINGLE = {A.Game: "game title", A.Players: "players line", A.Attrs: "card attributes line",
           A.Cards: "cards block", A.Deck: "deck block", A.Setup: "setup block", A.Play: "play block",
           A.Outcome: "outcome block", A.Achievements: "achievements block",
           A.Heuristic: "heuristic"}
_NAMED = {A.Param: "parameter or option", A.Enum: "enum", A.Zone: "zone", A.Var: "variable",
          A.Function: "function", A.Action: "action"}


class RulesText(str):
    """The text of a rules file (it is that string).  For a variant,
    ``files`` maps the name every span carries to its file's text: the
    variant's own and each file it extends, in the order of the chain."""

    files: dict

    def __new__(cls, text: str, files: dict | None = None, name: str = ""):
        self = super().__new__(cls, text)
        self.files = dict(files) if files else {name: str(text)}
        return self

    def of(self, file: str) -> str | None:
        """The text of the file a span names (None if not one of these)."""
        return self.files.get(file)

    def combined(self) -> str:
        """Every file's text, joined: what a log's fingerprint hashes (the
        text itself for a file that extends none)."""
        if len(self.files) <= 1:
            return str(self)
        return "\n\0\n".join(self.files.values())


def load_module(path, text: str | None = None) -> tuple[A.Module | None, list[Diagnostic], RulesText]:
    """Read, parse and resolve a rules file: (module with every ``extends``
    merged, or None; diagnostics; its text and its bases').  ``text``: the
    file's text as an editor holds it (the files it extends are read)."""
    return _load(Path(path), [], text)


def _load(path: Path, chain: list, text: str | None = None) -> tuple:
    if text is None:
        module, diags, text = parse_file(path)
    else:
        module, diags = parse(text, str(path))
    name = str(path)
    files = {name: text}
    if module is None or not module.items or not isinstance(module.items[0], A.Extends):
        if module is not None:
            stray = _stray(module)
            if stray:  # reported; the rest is checked as if they were not there
                diags = diags + stray
                module = A.Module(module.file, tuple(it.item if isinstance(it, A.Override) else it
                                                     for it in module.items if not isinstance(it, A.Extends)),
                                  span=module.span)
        return module, diags, RulesText(text, files)
    ext = module.items[0]
    base_path = _base_path(path, ext.path)
    problem = _base_problem(base_path, ext, chain + [path])
    if problem is not None:
        return None, diags + [problem], RulesText(text, files)
    base, base_diags, base_text = _load(base_path, chain + [path])
    files.update(base_text.files)
    if base is None:
        note = f'in the file this one extends ({ext.span})'
        return None, diags + [_with_note(d, note) for d in base_diags], RulesText(text, files)
    merged, merge_diags = merge(base, module)
    return merged, diags + base_diags + merge_diags, RulesText(text, files)


def _base_path(path: Path, written: str) -> Path:
    """The base's path as spans will name it: relative to the variant's
    folder, tidied ("house/../base.rules" is "base.rules")."""
    return Path(os.path.normpath(path.parent / written))


def _base_problem(base: Path, ext: A.Extends, chain: list) -> Diagnostic | None:
    if not base.is_file():
        folder = base.parent
        others = [p.name for p in folder.glob("*.rules")] if folder.is_dir() else []
        hint = did_you_mean(base.name, others)
        where = f"no such file: {base}" if folder.is_dir() else f"no such folder: {folder}"
        return Diagnostic("RL118", f'cannot extend "{ext.path}": {where}{hint}', ext.span)
    real = [os.path.realpath(p) for p in chain]
    if os.path.realpath(base) in real:
        loop = " -> ".join(str(p) for p in chain[real.index(os.path.realpath(base)):]) + f" -> {base}"
        return Diagnostic("RL118", f"a file cannot extend itself: {loop}", ext.span)
    if len(chain) >= MAX_CHAIN:
        return Diagnostic("RL118", f"too many files extend one another (at most {MAX_CHAIN} in a chain)", ext.span)
    return None


def _with_note(d: Diagnostic, note: str) -> Diagnostic:
    return Diagnostic(d.code, d.message, d.span, d.severity, d.notes + (note,))


def _stray(module: A.Module) -> list:
    """``extends`` after the first declaration, or ``override`` in a file that extends none."""
    out = []
    for i, it in enumerate(module.items):
        if isinstance(it, A.Extends) and i:
            out.append(Diagnostic("RL118", "`extends` must come first in the file, before any declaration",
                                  it.span))
        elif isinstance(it, A.Override):
            out.append(Diagnostic("RL118", "`override` is for a variant: this file extends no other "
                                  '(start it with: extends "FILE")', it.span))
    return out


# ---------------------------------------------------------------- merging
def key_of(item) -> tuple | None:
    """What an override of ``item`` replaces: its kind and name (None: an
    invariant, which is only ever added)."""
    t = type(item)
    if t in _SINGLE:
        return (t.__name__,)
    if t in _NAMED:
        return (t.__name__, item.name)
    if t is A.ParamDefault:
        return ("Param", item.name)
    if t is A.Trigger:
        card = item.card.value if isinstance(item.card, A.StrLit) else None
        return ("Trigger", item.event, card, item.zone)
    if t is A.Example:
        return ("Example", item.text)
    return None


def describe(item) -> str:
    """How a message names a declaration: 'action sell', 'the play block', ..."""
    t = type(item)
    if t in _SINGLE:
        return f"the {_SINGLE[t]}"
    if t in _NAMED:
        return f'{_NAMED[t]} "{item.name}"'
    if t is A.ParamDefault:
        return f'{item.kind} "{item.name}"'
    if t is A.Trigger:
        if item.event == "enter":
            card = f'"{item.card.value}"' if isinstance(item.card, A.StrLit) else "a card"
            return f"the trigger when {card} enters {item.zone}"
        return "the trigger after every action" if item.event == "action" else "the trigger before every turn"
    if t is A.Example:
        return f'example "{item.text}"'
    return "this declaration"


def merge(base: A.Module, variant: A.Module) -> tuple[A.Module, list]:
    """The base with the variant's declarations merged in (see the module's
    docstring); the variant's ``extends`` line is dropped."""
    items = list(base.items)
    index = {}
    for i, it in enumerate(items):
        k = key_of(it)
        if k is not None:
            index.setdefault(k, []).append(i)
    diags = []
    for it in variant.items[1:]:
        if isinstance(it, A.Extends):
            diags.append(Diagnostic("RL118", "a file extends one other file, named on its first line", it.span))
            continue
        override = isinstance(it, A.Override)
        decl = it.item if override else it
        k = key_of(decl)
        at = index.get(k, []) if k is not None else []
        if isinstance(decl, A.Cards) and at:
            items[at[0]], problems = _merge_cards(items[at[0]], decl, override)
            diags += problems
        elif override and len(at) == 1 and isinstance(decl, A.ParamDefault):
            was = items[at[0]]
            items[at[0]] = A.Param(was.kind, was.name, was.type, decl.default, was.low, was.high,
                                   decl.doc if decl.doc is not None else was.doc, span=was.span)
        elif override and len(at) == 1:
            items[at[0]] = decl
        elif override and at:
            diags.append(Diagnostic("RL118", f"{describe(decl)} is declared {len(at)} times in the base: "
                                    "an override cannot say which one it replaces", it.span))
        elif override:
            diags.append(_unknown_override(decl, it.span, items, base.file))
        elif at:
            first = items[at[0]]
            diags.append(Diagnostic("RL118", f"{describe(decl)} is already declared in the base, at "
                                    f"{first.span}: write `override` before it to replace it", decl.span))
        else:
            if k is not None:
                index[k] = [len(items)]
            items.append(decl)
    return A.Module(variant.file, tuple(items), span=variant.span), diags


def _unknown_override(decl, span: Span, items: list, base_file: str) -> Diagnostic:
    what = describe(decl)
    kind = A.Param if type(decl) is A.ParamDefault else type(decl)
    if kind in _NAMED:
        same = [it.name for it in items if type(it) is kind]
        if kind is A.Param:
            what = f'{decl.kind} "{decl.name}"'
        return Diagnostic("RL118", f"cannot override {what}: the base ({base_file}) declares no such "
                          f"{_NAMED[kind]}{did_you_mean(decl.name, same)}", span)
    if type(decl) is A.Trigger and decl.event == "enter":
        same = [key_of(it)[3] for it in items if isinstance(it, A.Trigger) and it.event == "enter"]
        return Diagnostic("RL118", f"cannot override {what}: the base ({base_file}) has no such trigger"
                          f"{did_you_mean(decl.zone or '', same)}", span)
    if type(decl) is A.Example:
        same = [it.text for it in items if isinstance(it, A.Example)]
        return Diagnostic("RL118", f"cannot override {what}: the base ({base_file}) has no example of that text"
                          f"{did_you_mean(decl.text, same)}", span)
    return Diagnostic("RL118", f"cannot override {what}: the base ({base_file}) has none; "
                      "leave out `override` to add it", span)


def _merge_cards(base: A.Cards, cards: A.Cards, override: bool) -> tuple:
    """The base's cards block with the variant's rows: replacing the rows of
    the same name (``override cards:``), or added after them."""
    rows = list(base.rows)
    where = {r.name: i for i, r in enumerate(rows)}
    diags = []
    for r in cards.rows:
        if override:
            if r.name in where:
                rows[where[r.name]] = r
            else:
                diags.append(Diagnostic("RL118", f'cannot override card "{r.name}": the base has no card of that '
                                        f"name{did_you_mean(r.name, where)} (a new card goes in a `cards:` block "
                                        "without override)", r.span))
        elif r.name in where:
            diags.append(Diagnostic("RL118", f'card "{r.name}" is already in the base, at {rows[where[r.name]].span}:'
                                    " change it in an `override cards:` block", r.span))
        else:
            where[r.name] = len(rows)
            rows.append(r)
    return A.Cards(tuple(rows), span=base.span), diags


__all__ = ["RulesText", "load_module", "merge", "key_of", "describe", "MAX_CHAIN"]
