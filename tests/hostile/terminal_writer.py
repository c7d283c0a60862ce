import sys


class TerminalWriter:
    """Writes raw terminal escapes to its stderr (a window title, a cleared screen, a bell),
    then crashes, so that they land in its failure detail: stored, they would act on the
    terminal or page that shows them."""

    name, version = "terminal-writer", "1"

    def act(self, observation):
        sys.stderr.write("\x1b]0;ESCAPED title\x07\x1b[2J\x1b[31mred\r\x08\x00\x9b\n")
        sys.stderr.flush()
        raise RuntimeError("crashing with escapes \x1b[5m on stderr")
