"""Rules files inside other tools: :mod:`.openspiel` (a pyspiel game).
Each adapter needs its optional extra and is imported on its own."""
