"""Helpers written out in the generated code (``compiler.inline``): a
card by its index, ``sign`` and a row's stacks give what the helpers give,
and fail where they fail with the same error, whether written out (their
arguments cheap to read again) or called (``cheap`` switched off)."""

import random

import pytest

from interpreter import load
from interpreter.compiler import inline
from interpreter.runtime import RuleError

RULES = '''game "inline"
players 2
card attributes: n: int
cards:
{cards}
zone pile: pile, public
zone hand: pile, per player, public
zone rows: stacks, per player, public
var k: int = 0
var d: int = 0
var s: int = 0
var t: int = 0
action pick(i in 0..3) "pick {i}":
  require i <= size(hand(me))
  set k = i
action lay(c in hand(me)) "lay {c}":
  move c to new stack in rows(me)
action grow(c in hand(me), b in rows(me)) "grow {b} with {c}":
  require sign(c.n - top(b).n) == sign(k - 1)
  move c to b
setup:
  deal 4 from pile to hand(0)
  deal 4 from pile to hand(1)
play:
  repeat 12 times:
    for p in players:
      turn p:
        choose pick
        choose lay, grow
        set d = {index}.n + sign(d - k) + sign({sign}) + size([b for b in rows(p)])
        set t = t + sum(size(b) for b in rows(p)) + count(x for x in [s] if x > 0)
outcome(p):
  score d
'''


def game(tmp_path, index="hand(p)[k - 1]", sign="d * 3 - s", cards=12, name="inline.rules"):
    text = RULES.replace("{cards}", "\n".join(f'  "C{i}" {i % 5}' for i in range(cards)))
    text = text.replace("{index}", index).replace("{sign}", sign)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load(path)


def trace(g, seed):
    """Every listing and variable of a random game, or its error (message and place)."""
    rnd = random.Random(seed)
    out = []
    try:
        state = g.new_state(seed)
        while not state.is_terminal:
            legal = state.legal_actions()
            out.append((legal, state.get_var("d"), state.get_var("t")))
            state.apply(legal[rnd.randrange(len(legal))])
        out.append(state.scores())
    except RuleError as err:
        out.append(f"{err}")
    return out


@pytest.mark.parametrize("index, sign", [("hand(p)[k - 1]", "d * 3 - s"), ("hand(p)[k]", "k"),
                                         ("[c for c in hand(p)][k - 1]", "sum(c.n for c in hand(p)) - 9")])
def test_written_out_or_called_the_helpers_play_alike(tmp_path, monkeypatch, index, sign):
    written = game(tmp_path, index, sign, name="written.rules")
    monkeypatch.setattr(inline, "cheap", lambda src: False)
    called = game(tmp_path, index, sign, name="called.rules")
    monkeypatch.undo()
    runs = [(trace(written, seed), trace(called, seed)) for seed in range(12)]
    for ours, theirs in runs:
        assert [x.replace("written.rules", "called.rules") if isinstance(x, str) else x for x in ours] == theirs
    ends = [ours[-1] for ours, _ in runs]
    if index.endswith("[k - 1]"):  # picking 0 reads index -1: past the start, an error
        assert any(isinstance(e, str) and "no such card" in e for e in ends), ends
    sources = "\n".join(written.machine.generated_sources)  # (written as the games ran them)
    assert ">= 0 else _index((), " in sources  # the index: written out
    assert "_stacks(" not in sources and "_sign((st.V" not in sources  # and the rest


def test_cheap_reads_no_call_and_nothing_long():
    assert inline.cheap("(st.V[1] - 1)") and inline.cheap("st.Z[(5 + L[0])]") and inline.cheap("_t3[v0]")
    assert not inline.cheap("len(st.Z[3])") and not inline.cheap("_fn3(st, 2)") and not inline.cheap("(h := 3)")
    assert not inline.cheap("[c for c in st.Z[1]]") and not inline.cheap("(1 if st.V[0] else 2)")
    assert not inline.cheap("st.V[1] + " * 8 + "1")


def test_a_sequence_and_an_index_that_both_fail_fail_on_the_sequence_first(tmp_path, monkeypatch):
    """Written out, ``pile[i]`` reads the pile first, as the helper's
    arguments are read: where both fail, the pile's error is told."""
    play = ("play:\n  turn 0:\n    choose wait\n  let ps = [p for p in players]\n"
            "  set d = hand(ps[5])[10 / t].n\n  turn 0:\n    choose wait\n")
    text = RULES.split("play:\n")[0].replace("{cards}", "\n".join(f'  "C{i}" {i}' for i in range(12)))
    text = text.replace("setup:\n", 'action wait "wait":\n  pass\nsetup:\n') + play + "outcome(p):\n  score d\n"
    errors = []
    for cheap in (inline.cheap, lambda src: False):
        monkeypatch.setattr(inline, "cheap", cheap)
        path = tmp_path / "both.rules"
        path.write_text(text, encoding="utf-8")
        state = load(path).new_state(0)
        with pytest.raises(RuleError) as err:
            state.apply(state.legal_actions()[0])
        errors.append((str(err.value), state.pc))
    assert errors[0] == errors[1] and "no such card" in errors[0][0]
