"""Reading a YAML data file (a board, a config) that may come from someone else.

The file must be UTF-8 text of at most :data:`MAX_BYTES`, and plain YAML: no
anchors or aliases, so it never expands into more than it says (the "billion
laughs"), and not nested so deeply that the parser overflows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from arena.games.base import ArenaError

MAX_BYTES = 1 << 20


class DataFileError(ArenaError, ValueError):
    """The file cannot be read as plain YAML; the message says why (without the file name)."""


class PlainLoader(yaml.SafeLoader):
    """YAML without anchors and aliases."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise DataFileError(f"line {event.start_mark.line + 1}: YAML anchors and aliases "
                                "(&name, *name) are not accepted; write the value out")
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        """A mapping, refused where a key is given twice (PyYAML keeps the last silently: a
        pasted ``seed:`` would change the tournament without a word)."""
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # an unhashable key: PyYAML says so itself
                continue
            if first is not key_node:
                raise DataFileError(f"line {key_node.start_mark.line + 1}: {key!r} is given "
                                    f"twice (first at line {first.start_mark.line + 1}); "
                                    "keep one")
        return super().construct_mapping(node, deep)


def yaml_problem(exc: yaml.YAMLError) -> str:
    """``at line 4, column 11: expected ',' or ']', but got ':' (while parsing a flow
    sequence from line 3, column 7)``: PyYAML's message in one line, with the place in the
    file (its own names the text "<unicode string>")."""
    if isinstance(exc, yaml.reader.ReaderError):  # its own text is two lines
        shown = chr(exc.character) if isinstance(exc.character, int) else exc.character
        return f" at character {exc.position + 1}: {exc.reason} ({shown!r})"
    if not isinstance(exc, yaml.MarkedYAMLError):
        return ": " + " ".join(str(exc).split())
    mark = exc.problem_mark or exc.context_mark
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    said = f"{where}: {exc.problem or exc.context or 'cannot read it'}"
    if exc.context and exc.problem:
        start = exc.context_mark
        said += f" ({exc.context}" + (f" from line {start.line + 1}, column "
                                      f"{start.column + 1})" if start else ")")
    return said


def read_yaml(path: str | Path) -> Any:
    """The data in ``path``; OSError if it cannot be read, DataFileError if it is not
    plain UTF-8 YAML of at most MAX_BYTES."""
    with open(path, "rb") as file:
        raw = file.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise DataFileError(f"the file is larger than {MAX_BYTES >> 20} MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataFileError(f"not UTF-8 text (byte {raw[exc.start]:#04x} at offset "
                            f"{exc.start})") from None
    try:
        return yaml.load(text, Loader=PlainLoader)
    except yaml.YAMLError as exc:
        raise DataFileError(f"not valid YAML{yaml_problem(exc)}") from None
    except RecursionError:
        raise DataFileError("the YAML is nested too deeply") from None
