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
