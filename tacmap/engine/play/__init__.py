"""Play: the referee, the GM's tools, narration, headless play, the bench figures."""
