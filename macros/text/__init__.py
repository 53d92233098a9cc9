"""Text for readers: fmt (the only place a number becomes a string), show (derivations), report (the calculator)."""
