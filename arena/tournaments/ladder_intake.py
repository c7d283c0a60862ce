"""How bots enter a ladder and leave it: submissions, validation, joining, retiring.

A submission is a bot file. It arrives by ``arena submit --ladder NAME`` or as a
file dropped in the ladder's submissions folder; either way a copy is kept in
the ladder's own folder (``<db folder>/ladders/<name>/``), so that changing or
deleting the original changes nothing, and it is queued. The ladder validates
queued submissions one at a time, as Kaggle does — seat-swapped games against
the game's random bot and a game against itself, in the sandbox, under the
ladder's time limit — in a process of its own while the ladder plays on. A
failure marks it ``error`` with the validation's log and it never plays a
ladder game; a valid one is registered as a revision of its bot (the same
name, version and code as an entrant is refused as a duplicate, a name of the
config's bots as taken) and joins as the next entrant at the next round. Only
the newest ``active_versions`` revisions of each bot name stay active; older
ones retire, keeping their games and ratings.

Files in the submissions folder are taken only when they are plain files (no
links), named ``*.py`` with letters, digits, ``.``, ``-`` and ``_``, at most
:data:`MAX_SUBMISSION_BYTES` long, and unchanged for :data:`SETTLE_SECONDS` (a
file still being written waits). A refused file is renamed ``*.refused`` (never
read), with a note in the log; taken files are removed from the folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import multiprocessing
import os
import re
import shutil
import signal
import stat
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path

from arena.bots.bundles import Bundle
from arena.bots.files import read_bot_file, read_bot_folder
from arena.bots.identity import BotEntry, entrant
from arena.bots.interrupts import children_deaf_to_ctrl_c, deaf_to_ctrl_c
from arena.bots.isolation import SANDBOX
from arena.bots.process import Limits
from arena.bots.strays import die_with_parent
from arena.bots.validation import validate
from arena.games.base import ArenaError
from arena.results.ladder_book import (
    ACTIVE,
    ERROR,
    ORGANIZER,
    QUEUED,
    RETIRED,
    VALIDATED,
    VALIDATING,
    LadderBook,
    Submission,
)
from arena.results.store import Store, StoredBot, StoreError
from arena.tournaments.runner import kept_entry
from arena.tournaments.submissions import accept

log = logging.getLogger(__name__)
MAX_SUBMISSION_BYTES = 1 << 20
SETTLE_SECONDS = 1.0
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.py")


@dataclass(frozen=True)
class Intake:
    """What a ladder needs to take submissions in."""

    game: str
    home: Path
    """The ladder's own folder: staged submissions, kept code."""
    time_limit: float
    validation_games: int
    active_versions: int
    limits: Limits


def ladder_home(store: Store, name: str) -> Path:
    """``<db folder>/ladders/<name>/``: the ladder's copies of its submissions."""
    return store.path.parent / "ladders" / name


def private_folder(folder: Path) -> None:
    """Make ``folder`` (made if need be) its owner's alone."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not folder.is_symlink():  # a link's target is not the ladder's to change
        with contextlib.suppress(OSError):  # not ours: as it is
            os.chmod(folder, 0o700)


def stage(book: LadderBook, home: Path, file: Path, source: str, *, attr: str | None = None,
          package: Path | None = None, submitter: int | None = None) -> int:
    """Copy the bot file (or the ``package`` folder whose ``__init__.py`` it is, as an
    upload unpacked it) into the ladder's folder and queue it, sent by the participant
    ``submitter`` if one did; the submission's id. A file is opened without following a
    link, and read once: what is queued is what was read. All of it or nothing: a failure
    halfway (the database locked too long, a full disk) leaves no submission without its
    code or its sender (whose name another participant could otherwise take)."""
    if file.suffix != ".py":
        raise ArenaError(f"a ladder takes a Python bot file (path/to/bot.py), not {file}")
    tree = read_bot_folder(package) if package is not None else None  # no link followed
    code = None if package is not None else _read_plain(file)
    private_folder(home.parent)  # participants' code: no other user of the machine reads it
    staged = home / "staged"
    staged.mkdir(parents=True, exist_ok=True)
    with book.store.transaction():
        submission = book.submit(source, "")
        if submitter is not None:
            book.record_submitter(submission, submitter)
        made = staged / str(submission) if tree is not None else \
            staged / f"{submission}-{file.name}"
        try:
            if tree is not None:
                copy = made / tree.name / "__init__.py"
                made.mkdir()
                tree.write(copy.parent)  # the bytes read, modes normalised
            else:
                copy = made
                copy.write_bytes(code or b"")
            book.set_spec(submission, str(copy) + (f":{attr}" if attr else ""))
        except BaseException:
            if tree is not None:
                shutil.rmtree(made, ignore_errors=True)
            else:
                made.unlink(missing_ok=True)
            raise
    return submission


def _read_plain(file: Path) -> bytes:
    return read_bot_file(file, limit=MAX_SUBMISSION_BYTES)[0]  # BotFileError: one line


def take_folder(book: LadderBook, home: Path, folder: Path) -> list[str]:
    """Queue the settled bot files of the submissions folder; notes on what was taken or
    refused."""
    notes: list[str] = []
    for path, refusal in settled_files(folder):
        if refusal is None:
            try:
                submission = stage(book, home, path, f"folder: {path.name}")
            except ArenaError as exc:  # changed under our feet: a link now, or gone
                refusal = str(exc)
            else:
                with contextlib.suppress(OSError):
                    path.unlink()
                notes.append(f"submission {submission}: {path.name} from {folder} queued")
                continue
        notes.append(f"{path}: not taken: {refusal}")
        with contextlib.suppress(OSError):
            path.rename(path.with_name(f"{path.name}.refused"))
    return notes


def settled_files(folder: Path) -> list[tuple[Path, str | None]]:
    """The folder's entries to act on, each with why it is refused (None: take it); files
    still being written, hidden ones and those refused before are left for later."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    found = []
    for name in names:
        path = folder / name
        if name.startswith(".") or name.endswith(".refused"):
            continue
        try:
            info = path.lstat()
        except FileNotFoundError:
            continue
        if stat.S_ISREG(info.st_mode) and time.time() - info.st_mtime < SETTLE_SECONDS:
            continue
        found.append((path, _file_refusal(name, info)))
    return found


def _file_refusal(name: str, info: os.stat_result) -> str | None:
    if not stat.S_ISREG(info.st_mode):
        return "not a plain file (links and folders are not taken)"
    if not FILE_NAME.fullmatch(name):
        return "the name must be letters, digits, '.', '-' or '_', ending in .py"
    if info.st_size > MAX_SUBMISSION_BYTES:
        return f"larger than {MAX_SUBMISSION_BYTES} bytes"
    return None


VERDICT_WAIT_SECONDS = 120.0
"""How long a ladder that is done with its rounds waits for a validation's verdict."""


class Validator:
    """Validates one queued submission at a time in a process of its own (started fresh,
    not forked), so that the ladder plays on meanwhile: a slow or hostile submission
    delays no game. The ladder process alone makes a valid one an entrant, between rounds
    (:func:`join_validated`)."""

    def __init__(self, store: Store, tournament: int, intake: Intake) -> None:
        self.store, self.tid, self.intake = store, tournament, intake
        self.process: BaseProcess | None = None
        self.current: int | None = None

    def poll(self, *, frozen: bool) -> list[str]:
        """Refuse what is queued once the ladder is frozen; else start validating the next
        queued submission when none is being validated. Notes on what happened."""
        book = LadderBook(self.store, self.tid)
        notes = []
        if self.process is not None and not self.process.is_alive():
            self.process.join()
            notes += self._finished(book)
        for submission in book.submissions(QUEUED):
            if frozen:
                book.set_status(submission.id, ERROR, "the ladder is frozen: it takes no new "
                                "submissions")
                notes.append(f"submission {submission.id}: refused, the ladder is frozen")
            elif self.process is None:
                book.set_status(submission.id, VALIDATING)
                self.current = submission.id
                self.process = _SPAWN.Process(target=validate_submission, daemon=True, args=(
                    str(self.store.path), self.tid, submission.id, self.intake))
                with children_deaf_to_ctrl_c():
                    self.process.start()
                notes.append(f"submission {submission.id}: validating")
        return notes

    def _finished(self, book: LadderBook) -> list[str]:
        assert self.process is not None and self.current is not None
        submission = book.submission(self.current)
        code = self.process.exitcode
        self.process = self.current = None
        if submission.status == VALIDATING:  # the validating process died before a verdict
            book.set_status(submission.id, ERROR, f"{submission.log}\nvalidation stopped "
                            f"(exit code {code}) before its verdict")
            return [f"submission {submission.id}: error, its validation stopped"]
        if submission.status == ERROR:  # why, in its log's last line
            why = next((line.strip() for line in reversed(submission.log.splitlines())
                        if line.strip()), "")
            return [f"submission {submission.id}: error" + (f": {why[:300]}" if why else "")]
        return [f"submission {submission.id}: {submission.status}"]

    def finish(self, seconds: float = VERDICT_WAIT_SECONDS) -> list[str]:
        """Wait at most ``seconds`` for the validation under way to give its verdict, else
        stop it and queue its submission again for the next run; notes on it."""
        if self.process is None:
            return []
        self.process.join(seconds)
        if self.process.is_alive():
            submission = self.current
            self.stop()
            return [f"submission {submission}: no verdict within {seconds:g} s; "
                    "queued again for the next run"]
        return self._finished(LadderBook(self.store, self.tid))

    def stop(self) -> None:
        """Stop a validation under way; its submission is queued again for the next run."""
        if self.process is not None and self.current is not None:
            self.process.kill()
            self.process.join()
            book = LadderBook(self.store, self.tid)
            if book.submission(self.current).status == VALIDATING:  # no verdict yet
                book.set_status(self.current, QUEUED)
            self.process = self.current = None

    @property
    def busy(self) -> bool:
        return self.process is not None


_SPAWN = multiprocessing.get_context("spawn")


def validate_submission(db: str, tournament: int, submission_id: int, intake: Intake) -> None:
    """In a process of its own: validate the submission and record the verdict — ``error``
    with its log, or ``validated`` with its registered revision."""
    deaf_to_ctrl_c()  # the ladder decides when to stop it
    die_with_parent(signal.SIGKILL)
    with Store(db) as store:
        book = LadderBook(store, tournament)
        _judge(book, intake, book.submission(submission_id))


def _judge(book: LadderBook, intake: Intake, submission: Submission) -> None:
    text, bot_id = _verdict(book, intake, submission)
    text = as_submitted(text, intake.home, submission.id)
    if bot_id is None:
        book.set_status(submission.id, ERROR, text)
    else:
        book.set_validated(submission.id, bot_id, text)


def as_submitted(text: str, home: Path, submission: int) -> str:
    """``text`` naming the bot's files as they were submitted (``bot.py``,
    ``mybot/__init__.py``), not where the ladder keeps its copy."""
    staged = str(home / "staged")
    return text.replace(f"{staged}/{submission}-", "").replace(f"{staged}/{submission}/", "")


def _verdict(book: LadderBook, intake: Intake, submission: Submission
             ) -> tuple[str, int | None]:
    """The validation's log, and the bot's id if it may join (None: refused, and why)."""
    try:
        verdict, identity, bundle = accept(submission.spec, intake.home / "code", lambda code: (
            validate(submission.spec, game=intake.game, games=intake.validation_games,
                     time_limit=intake.time_limit, strangers=True, against_itself=1,
                     code=code)))
    except ArenaError as exc:
        return str(exc), None
    text = "\n".join(verdict.lines())
    if identity is None:
        return text, None
    if identity.name in organizer_names(book):
        return (f"{text}\nthe name {identity.name!r} belongs to a bot of the ladder's "
                "config; give the bot a name of its own"), None
    lookalike = book.lookalike_of(identity.name)  # so no two owners' names look alike
    if lookalike is not None:
        return (f"{text}\nthe name {identity.name!r} looks like the bot {lookalike!r}; give "
                "the bot a name of its own"), None
    owner = book.owner_of_name(identity.name)
    if owner is not None and owner != book.sender_of(submission.id):
        whose = "the ladder's organizer" if owner == ORGANIZER else "another participant"
        return (f"{text}\nthe name {identity.name!r} belongs to {whose}; give the bot a name "
                "of its own"), None
    bot_id = book.store.register_bot(intake.game, identity, bundle)
    already = book.entrant_of(bot_id)
    if already is not None and already.status == RETIRED:
        return (f"{text}\nthe same bot as submission {already.id} "
                f"({book.store.bot(bot_id).label}), which the ladder retired: a revision "
                "plays once; to bring this code back, give it a new version"), None
    if already is not None:
        return (f"{text}\nthe same bot as submission {already.id} "
                f"({book.store.bot(bot_id).label}), which is in the ladder already"), None
    return text, bot_id


def join_validated(book: LadderBook, intake: Intake, next_round: int, *,
                   frozen: bool) -> list[str]:
    """Validated submissions become the next entrants (refused once frozen); older versions
    retire. Notes on what happened."""
    notes = []
    for submission in book.submissions(VALIDATED):
        assert submission.bot_id is not None
        label = book.store.bot(submission.bot_id).label
        if frozen:
            book.set_status(submission.id, ERROR, f"{submission.log}\nthe ladder froze "
                            "before it could join")
            notes.append(f"submission {submission.id} ({label}): refused, the ladder is frozen")
            continue
        book.join(submission.id, submission.bot_id, next_round)
        name = book.store.bot(submission.bot_id).identity.name
        retired = retire_old_versions(book, name, intake.active_versions)
        notes.append(f"submission {submission.id}: {label} joins" + (
            f"; {', '.join(retired)} retired" if retired else ""))
    return notes


def organizer_names(book: LadderBook) -> set[str]:
    """The names of the bots the ladder's config brought in: no submission may take them
    (and so retire the organizer's bot as an older version)."""
    return {book.store.bot(s.bot_id).identity.name for s in book.submissions()
            if s.source.startswith("config:") and s.bot_id is not None}


def enter_config_bots(book: LadderBook, bots: Sequence[BotEntry], intake: Intake,
                      next_round: int, configured: dict[int, BotEntry]) -> list[str]:
    """The config's bots join (each revision once): they are the organizer's, named in
    their own process like a tournament's bots, and not validated by games. Each bot's
    revision id and entry go into ``configured``; notes on what happened."""
    notes = []
    for index, entry in enumerate(bots):
        source = f"config: bots[{index}]"
        named = entrant(entry, intake.limits, intake.game)
        if named.problem is not None:
            # One error per entry, its text the latest: the text of a bot that fails to
            # start may differ from run to run (a timeout on a busy machine, say).
            known = [s for s in book.submissions(ERROR)
                     if s.source == source and s.spec == entry.spec]
            if not known:
                book.submit(source, entry.spec, ERROR, named.problem)
                notes.append(f"bots[{index}] ({entry.spec}): error: {named.problem}")
            elif known[-1].log != named.problem:
                book.set_status(known[-1].id, ERROR, named.problem)
            continue
        bot_id = book.store.register_bot(intake.game, named.identity, named.bundle)
        configured[bot_id] = entry
        if book.entrant_of(bot_id) is not None:
            continue
        submission = book.submit(source, entry.spec, VALIDATING)
        book.join(submission, bot_id, next_round)
        retired = retire_old_versions(book, named.identity.name, intake.active_versions)
        notes.append(f"{book.store.bot(bot_id).label} joins (bots[{index}])" + (
            f"; {', '.join(retired)} retired" if retired else ""))
    return notes


def retire_old_versions(book: LadderBook, name: str, keep: int) -> list[str]:
    """Retire all but the newest ``keep`` active revisions of bot ``name``; their labels."""
    store = book.store
    active = [s for s in book.submissions(ACTIVE)
              if s.bot_id is not None and store.bot(s.bot_id).identity.name == name]
    retired = []
    for old in active[:-keep]:
        assert old.bot_id is not None
        book.set_status(old.id, RETIRED, f"{old.log}\nretired: a newer version of {name} "
                        "joined")
        retired.append(store.bot(old.bot_id).label)
    return retired


VERDICT = re.compile(r"^(?:NOT )?VALID: .* \(([^()\s]+@[^()\s]+)\)$")
"""A validation's first line, ``VALID: mine.py (mine@1+3f2a9c)``: the revision it names."""


def names_revision(label: str, revision: str) -> bool:
    """Whether ``label`` (``mine@1`` or ``mine@1+3f2a9c``) names the revision ``revision``
    (``mine@1+3f2a9c``; a verdict's of a bot whose code could not be read: ``mine@1``)."""
    return revision == label or revision.startswith(label + "+")


def named_in_verdict(log: str) -> str | None:
    """The bot a submission said it was, from its validation's verdict (None before one)."""
    found = VERDICT.match(log.strip().splitlines()[0]) if log.strip() else None
    return found.group(1) if found else None


def retire(book: LadderBook, game: str, label: str) -> str:
    """Retire the entrant ``label`` (``name@version``, or its revision's label as ``arena
    ladder status`` shows it)."""
    try:
        bot = book.store.find_bot(game, label)
    except StoreError:
        unjoined = next((s for s in book.submissions() if s.bot_id is None
                         and names_revision(label, named_in_verdict(s.log) or "")), None)
        if unjoined is None:
            raise
        raise ArenaError(f"{label} is submission {unjoined.id}, which did not join "
                         f"({unjoined.status}): there is nothing to retire") from None
    submission = book.entrant_of(bot.id) or next(
        (s for s in book.submissions(VALIDATED) if s.bot_id == bot.id), None)
    if submission is None:
        raise ArenaError(f"{bot.label} is not in this ladder")
    if submission.status not in (ACTIVE, VALIDATED):  # validated: it will never join
        raise ArenaError(f"{bot.label} is {submission.status}, not active")
    book.set_status(submission.id, RETIRED, f"{submission.log}\nretired by the organizer")
    return bot.label


def entry_of(store: Store, bot: StoredBot, configured: Mapping[int, BotEntry]
             ) -> tuple[BotEntry, Bundle | None, str | None]:
    """How a worker runs an entrant: from its kept code, a bot of the config as configured,
    any other (a submission, or a bot since left out of the config) in the sandbox, under
    its name; with the bundle of its code, and why it cannot play (its code is not kept,
    and its file holds other code now), if it cannot."""
    identity = bot.identity
    isolation = (configured[bot.id].isolation if bot.id in configured else None) or SANDBOX
    try:
        entry, bundle = kept_entry(store, bot)
    except ArenaError as exc:
        return BotEntry(identity.spec, identity.name, identity.version, dict(identity.params),
                        isolation), None, str(exc)
    return dataclasses.replace(entry, isolation=isolation, shown=None), bundle, None
