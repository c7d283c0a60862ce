class FormulaName:
    """A name a spreadsheet would run as a formula (legal as a name: CSV cells neutralise it)."""

    name, version = '=HYPERLINK("evil.example";"open me")', "1"

    def act(self, observation):
        return observation.legal_actions[0]
