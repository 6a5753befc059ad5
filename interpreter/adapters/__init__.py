"""Rules files inside other tools: :mod:`.openspiel` (a pyspiel game) and
:mod:`.pettingzoo` (an AEC environment); :mod:`.encoding` is what they
share.  Each needs its optional extra and is imported on its own."""
