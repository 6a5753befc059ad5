"""Small rules files shared by the command-line tests."""

# A game whose only decision offers an action that is never legal.
DEAD_RULES = '''game "Dead End"
players 2

card attributes: rank: int
cards:
  "One"  1
  "Two"  2

deck:
  cards where card.rank > 0

zone pile_z: pile, public
zone hand: pile, per player, owner

action take(c in hand(me)) "take {c}":
  require c.rank > 5
  pass
{extra}
play:
  turn 0:
    choose take{choices}

outcome(p):
  score 0
'''


# Two players draw or wait, ``rounds`` turns each; the score is ``score``
# (drawing is listed first: a player who takes the first action draws every turn).
def draw_or_wait(score: str = "size(hand(p))", rounds: int = 5) -> str:
    return f'''game "Draw or wait"
players 2
card attributes: rank: int
cards:
  "One" 1
  "Two" 2
  "Three" 3
  "Four" 4
  "Five" 5
  "Six" 6
zone deck: pile, hidden
zone hand: pile, per player, owner
action draw "draw":
  require not empty(deck)
  move top(deck) to hand(me)
action wait "wait":
  pass
play:
  shuffle deck
  repeat {rounds} times:
    for p in players:
      turn p:
        choose draw, wait
outcome(p):
  score {score}
'''
