"""One's own content from files: a folder of Markdown as a knowledge base, a CSV or JSON Lines file as a channel.

Layer: content, a client of the stores' people's side (plain methods), beside
demo.py; the server serves what it reads here (--kb-from-dir, --channel-from).
It imports the stores, the core, record_fields and cli (which reads a file safely) only.
Every file is read, and every article and row written into throwaway in-memory stores,
before anything is written where it is served: a bad row never leaves half a channel in a
database file. A knowledge base or channel a database already holds is served as found,
never written again. IDs come from names, so a restart gives every article the same ID and
old citations still resolve. Only regular files are read (a FIFO, device or socket is
refused, never waited on), each up to a bound checked before it is read; a folder's .md
file may be a link to a file inside the folder, never one leading out of it, and a link to
a folder is never followed (one leading out of the folder is refused); no JSON object may
hold a key twice. Text is UTF-8 (a byte order mark of UTF-16 or UTF-32, or a NUL byte, is
named as such); a line ends at \\n, \\r\\n or a lone \\r. A message shows the control and
format characters of a name escaped, so it stays one line and cannot redraw a terminal.

Glossary:
  source        what one option names: a folder of Markdown files, or a rows file with its field file
  slug          an ID made from a name: lower-cased, Latin accents dropped, other scripts' letters kept,
                every ASCII character outside a-z 0-9 _ - turned into -
  front matter  key: value lines between two --- lines at the very top of a Markdown file; draft: true
                (or published: false), not indented, makes the article a draft, and title: names it; every
                other key is ignored
  rows file     a CSV file (its header row names field keys) or a JSON Lines file (.jsonl, one object a line)
  field file    JSON: the channel's field definitions as create_channel takes them, or {"name", "fields"}
  cell          one CSV value, always text: converted by its field's type; an empty cell leaves the field unset
  kept          a knowledge base or channel the database held already: served as found, the files not written

Left out on purpose: YAML beyond key: value lines (the rest of a front matter's lines, lists,
comments and indented ones, are let be; a line of none of these kinds is refused, for the ---
is then more likely a rule than front matter); setext and HTML headings (a title underlined
with ===, <h2>): text, neither a title nor a section; CSV separated otherwise than by commas
(refused, naming the separator it seems to be); item IDs of one's own (items are numbered
itm-00001, ... in row order, as stable as the file); updating what a database already holds
(remove the file, or serve from memory, to load again).

    >>> slug("Help Center"), title_from_file_name("guides/two-factor-setup.md")
    ('help-center', 'Two factor setup')
    >>> split_markdown("# Reset a password\\n\\nOpen Settings.\\n")
    ('Reset a password', 'Open Settings.')
"""

import contextlib
import csv
import dataclasses
import io
import itertools
import json
import math
import os
import re
import sys
import unicodedata
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple, Union

from osfoundry_tools import cli
from osfoundry_tools.core import checks, rejections
from osfoundry_tools.core.checks import RepeatedKey, unique_json
from osfoundry_tools.stores import kb_sections, kb_store, record_fields, record_store

MARKDOWN_SUFFIX = ".md"
MARKDOWN_MAX_BYTES = 1 << 20  # 1 MiB: an article at its largest (100,000 characters) in any script, front matter too
FIELDS_MAX_BYTES = 1 << 20  # a field file: 64 fields of 100 options each fit many times over
ROWS_MAX_BYTES = 64 << 20  # a rows file: 64 MiB, held in memory whole, and in a throwaway store, before serving
ROWS_SUFFIXES = (".csv", ".jsonl")
OTHER_BYTE_ORDER_MARKS = ((b"\xff\xfe\0\0", "UTF-32"), (b"\0\0\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"),
                          (b"\xfe\xff", "UTF-16"))  # a file that starts so is no UTF-8 text (UTF-32's first)
FRONT_MATTER_FENCE = "---"
FRONT_MATTER_ENDS = ("---", "...")
YAML_NULLS = ("", "~", "null", "Null", "NULL")  # a plain value YAML reads as no value
FLAG_WORDS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}  # front matter
CHECKBOX_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}  # a CSV cell
FIELD_FILE_OBJECT = '{"name": ..., "fields": [...]}'  # a field file's other shape, naming the channel
NUMBER_DIGITS = 308  # a number cell's digits before the point at most: a float (and so a store) holds up to 1.8e308
TOO_MANY_DIGITS = f"write one of at most {NUMBER_DIGITS} digits before the point"
LIST_SEPARATOR = ";"  # a multi_select cell may list option values so: "editor; mobile"
OTHER_SEPARATORS = {";": "; (a semicolon)", "\t": "tabs", "|": "| (a vertical bar)"}  # what spreadsheets use
SHOWN_OPTIONS = 20  # a message lists this many option values, then says how many more
ESCAPED = ("Cc", "Cf", "Cs", "Zl", "Zp")  # Unicode categories a message escapes: control characters (line breaks,
# a terminal's escape), format characters (a right-to-left override), lone surrogates (a file name not UTF-8), and
# the line and paragraph separators: a name shown in a message can neither break its line nor redraw the terminal
_NOT_IN_SLUG = re.compile(r"[^a-z0-9_\-\x80-\U0010ffff]")  # the ASCII characters a slug turns into -
_LINE_END = re.compile(rb"\r\n|\r|\n")
_TEXT_LINE_END = re.compile(r"\r\n|\r|\n")
_FRONT_MATTER_LINE = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)")
_FRONT_MATTER_KEY = re.compile(r"(?:\"[^\"]*\"[ \t]*|'[^']*'[ \t]*|[^\s#:-][^:]*|-[^\s:][^:]*):(?:[ \t]|$)")  # YAML's
# key: (a plain key's spaces before its colon are part of [^:]*, so that a line of spaces with no colon is one pass)
_SINGLE_QUOTED = re.compile(r"'((?:[^']|'')*)'[ \t]*(?:#.*)?")  # a front matter's value in single quotes
_AFTER_VALUE = re.compile(r"[ \t]*(?:#.*)?")  # what may follow a quoted value on its line: a comment
_COMMENT = re.compile(r"(?:^|[ \t])#")  # where a comment opens in a plain value: a # first, or after a space or tab
_FRONT_MATTER_OTHER = re.compile(r"[ \t]|#|-(?:[ \t]|$)|$")  # an indented line (a value going on), a comment, a
# list's item, a blank line: the rest of the lines YAML holds
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")  # the digits after a point only after
# one, so that a long run of digits that is no number (a letter after it) is one pass, not its square
_ITEM = re.compile(r"\bitem (itm-\d+)")
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:]')  # a JSON string, or a bracket or colon outside one
JSON_EXAMPLES = {"multi_select": '["a", "b"] or a; b', "relation": '["itm-00001"]',
                 "file": '[{"name": "a.png", "url": "https://example.com/a.png"}]', "json": '{"key": "value"}'}


class ContentError(ValueError):
    """A file that cannot be served: one line naming the file (and :line), what is wrong, and what to do."""

    def __init__(self, where: str, problem: str, advice: str = "") -> None:
        text = f"{where}: {problem}" + (f"; {advice}" if advice else "")
        super().__init__("".join(c.encode("unicode_escape").decode("ascii")
                                 if unicodedata.category(c) in ESCAPED else c for c in text))


# ---------------------------------------------------------------------------
# What the files hold, read and converted, before any store sees it.


@dataclasses.dataclass(frozen=True, eq=False)
class Article:
    """One Markdown file as an article."""

    path: str  # the file, as messages name it
    article_id: str
    title: str
    content: str
    published: bool


@dataclasses.dataclass(frozen=True, eq=False)
class KnowledgeBase:
    """A folder of Markdown files as a knowledge base."""

    source: str  # the folder, as messages name it
    knowledge_base_id: str
    name: str
    articles: Tuple[Article, ...]

    def label(self) -> str:
        return f"knowledge base {self.knowledge_base_id}"

    def summary(self) -> str:
        """What is loaded, for the server's startup line."""
        published = sum(a.published for a in self.articles)
        drafts = len(self.articles) - published
        return (f"{self.label()} from {self.source} ({_count(published, 'published article')}"
                + (f", {_count(drafts, 'draft')})" if drafts else ")"))


@dataclasses.dataclass(frozen=True)
class Row:
    """One item's values and the line of the rows file it starts on."""

    line: int
    values: Dict[str, Any]


@dataclasses.dataclass(frozen=True, eq=False)
class Channel:
    """A rows file and its field file as a record channel."""

    source: str  # the rows file, as messages name it
    fields_source: str  # the field file
    channel_id: str
    name: str
    fields: List[Dict[str, Any]]  # the definitions, as create_channel takes them
    rows: Tuple[Row, ...]

    def label(self) -> str:
        return f"record channel {self.channel_id}"

    def summary(self) -> str:
        """What is loaded, for the server's startup line."""
        return f"{self.label()} from {self.source} ({_count(len(self.rows), 'item')})"


Source = Union[KnowledgeBase, Channel]


@dataclasses.dataclass(frozen=True)
class Content:
    """Every source one command line names, read and checked."""

    knowledge_bases: Tuple[KnowledgeBase, ...] = ()
    channels: Tuple[Channel, ...] = ()

    def sources(self) -> List[Source]:
        return [*self.knowledge_bases, *self.channels]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def slug(name: str) -> str:
    """An ID from a name: lower-cased, the accents on Latin letters dropped (Über is uber), the letters, digits and
    marks of every other script kept (a folder of Japanese names is served), other characters outside ASCII left out
    (What’s is whats), and every ASCII character outside [a-z0-9_-] turned into "-".

    >>> slug("Billing/Refunds & VAT"), slug("Über-Ärger"), slug("What’s new"), slug("請求と返金"), slug("Straße")
    ('billing-refunds---vat', 'uber-arger', 'whats-new', '請求と返金', 'straße')
    """
    kept: List[str] = []
    for character in unicodedata.normalize("NFKD", name):
        if character.isascii() or character.isalnum():
            kept.append(character)
        elif unicodedata.category(character).startswith("M") and kept and not kept[-1].isascii():
            kept.append(character)  # a mark of another script (the dakuten of が, a Devanagari vowel sign)
    return _NOT_IN_SLUG.sub("-", unicodedata.normalize("NFC", "".join(kept)).lower())


def knowledge_base_id(folder: str) -> str:
    """The ID of the knowledge base a folder makes: its name's slug."""
    return slug(folder_name(folder))


def identifier(made: str, source: str, thing: str, advice: str = "") -> str:
    """An ID made from a source's name, refused (ContentError) when that name holds no letter or digit, or makes
    an ID longer than an ID may be; `thing`: what to rename, `advice`: what else may be done."""
    if not made.strip("-_"):
        raise ContentError(source, "its name holds no letter or digit to make an ID of", f"rename the {thing}{advice}")
    if len(made) > checks.ID_CHARACTERS:
        raise ContentError(source, f"the ID its name makes has {len(made)} characters, more than the "
                           f"{checks.ID_CHARACTERS} an ID may hold", f"rename the {thing}{advice}")
    return made


def checked_folder(folder: str) -> str:
    """The ID of the knowledge base a folder makes; ContentError if it is no folder or its name makes no ID."""
    if not os.path.isdir(folder):
        problem = f"is {_kind(folder)}, not a folder" if os.path.exists(folder) else "no such folder"
        raise ContentError(os.path.normpath(folder), problem, "give a folder of Markdown (.md) files, one per article")
    return identifier(knowledge_base_id(folder), os.path.normpath(folder), "folder")


def checked_rows(rows_path: str, fields_path: str) -> str:
    """The ID of the channel a rows file makes; ContentError for a file of another kind, a path that is no file,
    or a name that makes no ID."""
    if not rows_path.lower().endswith(ROWS_SUFFIXES):
        raise ContentError(rows_path, "is neither a .csv nor a .jsonl file",
                           "give a CSV file with a header row of field keys, or a JSON Lines file")
    for path in (rows_path, fields_path):
        if not os.path.isfile(path):
            raise ContentError(path, f"is {_kind(path)}, not a file" if os.path.exists(path) else "no such file",
                               "check the path")
    return identifier(channel_id(rows_path), rows_path, "rows file")


def _kind(path: str) -> str:
    """What an existing path names, for a message: "a folder", "a FIFO (named pipe)"..."""
    try:
        return cli.kind_of(os.stat(path).st_mode)
    except OSError:  # gone since it was seen
        return "something else"


def check_paths(folders: Sequence[str], channels: Sequence[Tuple[str, str]],
                taken: Sequence[Tuple[str, str, str]] = ()) -> None:
    """What can be checked of the sources without reading them: each folder a folder that holds a .md file, each
    rows and field file a file of its kind, each name an ID, and no two sources of one ID; `taken`: (kind, ID, who)
    already served, such as the demo's. ContentError for the first problem."""
    check_distinct("knowledge base", [(i, who) for kind, i, who in taken if kind == "knowledge base"]
                   + [(checked_folder(folder), os.path.normpath(folder)) for folder in folders])
    for folder in folders:
        check_holds_markdown(folder, markdown_files(folder))
    check_distinct("record channel", [(i, who) for kind, i, who in taken if kind == "record channel"]
                   + [(checked_rows(rows, fields), rows) for rows, fields in channels])


def folder_name(folder: str) -> str:
    """The folder's own name, whatever way the path spells it ("docs/", ".", "./docs")."""
    return os.path.basename(os.path.abspath(folder))


def channel_id(rows_path: str) -> str:
    """The ID of the channel a rows file makes: its file name's slug, without the extension."""
    return slug(os.path.splitext(os.path.basename(rows_path))[0])


def title_from_file_name(path: str) -> str:
    """A title from a file's name: "-" and "_" as spaces, the first letter capitalised, the rest kept."""
    words = " ".join(re.sub(r"[-_]", " ", os.path.splitext(os.path.basename(path))[0]).split())
    return words[:1].upper() + words[1:] if words else os.path.basename(path)


def read_text(path: str, limit: int, advice: str, opened: Optional[str] = None) -> str:
    """A file's text, strict UTF-8 (a byte order mark dropped), read from `opened` (the path a link leads to) if
    given; ContentError if missing, unreadable, no regular file, more than `limit` bytes (`advice`: what to do
    then), or not UTF-8."""
    try:
        data = cli.read_file(opened or path, limit)
    except FileNotFoundError:
        raise ContentError(path, "no such file", "check the path") from None
    except OSError as error:
        raise ContentError(path, f"cannot be read ({error.strerror})", "check the path and its permissions") from None
    except cli.FileTooLarge as refused:
        raise ContentError(path, str(refused), advice) from None
    except cli.FileRefused as refused:
        raise ContentError(path, str(refused), "give a regular file, or remove it from the folder") from None
    encoding = next((name for mark, name in OTHER_BYTE_ORDER_MARKS if data.startswith(mark)), None)
    if encoding:
        raise ContentError(f"{path}:1", f"is {encoding} text (its byte order mark says so), not UTF-8",
                           "save the file as UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        raise ContentError(f"{path}:{line_of(data, nul)}", "holds a NUL byte, which UTF-8 text does not: it may be "
                           "UTF-16 text, or no text at all", "save the file as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ContentError(f"{path}:{line_of(data, error.start)}", f"is not UTF-8 text (byte "
                           f"0x{data[error.start]:02x})", "save the file as UTF-8") from None


def line_of(data: bytes, at: int) -> int:
    """The line a byte of a file's data stands on, from 1: a line ends at \\n, at \\r\\n, or at a lone \\r."""
    return len(_LINE_END.findall(data, 0, at)) + 1


def check_distinct(kind: str, sources: Sequence[Tuple[str, str]]) -> None:
    """ContentError if two sources make one ID; `sources`: (ID, who makes it), in command-line order."""
    taken: Dict[str, str] = {}
    for identifier, source in sources:
        if identifier in taken:
            thing = "folder" if kind == "knowledge base" else "rows file"
            raise ContentError(source, f"{kind} ID {json.dumps(identifier)} is taken by {taken[identifier]}",
                               f"rename the {thing} (the ID is its name, lower-cased, other characters as -)")
        taken[identifier] = source

# ---------------------------------------------------------------------------
# A folder of Markdown files.


def read_knowledge_base(folder: str) -> KnowledgeBase:
    """The knowledge base a folder makes: one article per .md file, sorted by path, subfolders included."""
    shown, knowledge_base = os.path.normpath(folder), checked_folder(folder)
    found, others = markdown_files(folder)
    check_holds_markdown(folder, (found, others))
    articles: List[Article] = []
    first_path: Dict[str, str] = {}
    for relative in found:
        path = os.path.join(shown, relative)
        article_id = identifier(slug(relative[:-len(MARKDOWN_SUFFIX)]), path, "file",
                                " (or shorten the names of its folders)" if "/" in relative else "")
        if article_id in first_path:
            raise ContentError(path, f"article ID {json.dumps(article_id)} is taken by {first_path[article_id]}"
                               + alike(path, first_path[article_id]), "rename one of the two files")
        first_path[article_id] = path
        articles.append(read_article(path, article_id, inside(folder, path)))
    return KnowledgeBase(shown, knowledge_base, folder_name(folder), tuple(articles))


def alike(path: str, other: str) -> str:
    """What a message adds of two paths that differ only in how their accents are encoded (e as e and a combining
    accent, or as one character): they look the same."""
    if path != other and unicodedata.normalize("NFC", path) == unicodedata.normalize("NFC", other):
        return ", a name that differs from this one only in how its accents are encoded (Unicode normalisation)"
    return ""


def check_holds_markdown(folder: str, files: Tuple[List[str], List[str]]) -> None:
    """ContentError for a folder whose files (markdown_files' answer) hold no .md file: it would serve nothing."""
    found, others = files
    if not found:
        problem = (f"holds no Markdown (.md) file, only {_count(len(others), 'other file')} such as {others[0]}"
                   if others else "is empty")
        raise ContentError(os.path.normpath(folder), problem,
                           "put one .md file per article in it (subfolders count too)")


def markdown_files(folder: str) -> Tuple[List[str], List[str]]:
    """The .md files under `folder` and the other files, as sorted relative paths with "/"; hidden ones skipped.
    The folders are walked one after another, never by recursion, so no depth is too deep. A link to a folder is
    not followed: one inside the folder (to itself, say) leads to files found under their own paths, and one
    leading out of it is left out where it holds no Markdown (images, say), and refused (ContentError) where it
    does or is too large to tell (outside_markdown), as a folder that cannot be listed is: its articles would go
    unserved.
    """
    found: List[str] = []
    others: List[str] = []
    home = os.path.realpath(folder)
    waiting = [""]  # folders to list, as relative paths with "/" ("" is the folder itself)
    while waiting:
        relative = waiting.pop()
        for entry in listed(os.path.join(folder, relative)):
            name = f"{relative}/{entry.name}" if relative else entry.name
            if entry.name.startswith("."):
                continue
            if not is_folder(entry):
                (found if entry.name.lower().endswith(MARKDOWN_SUFFIX) else others).append(name)
            elif not entry.is_symlink():
                waiting.append(name)
            elif not within(home, os.path.realpath(entry.path)):
                held = outside_markdown(entry.path)
                if held is not None:
                    raise ContentError(os.path.join(os.path.normpath(folder), name), "is a link to a folder outside "
                                       f"this one, {os.path.realpath(entry.path)}, which is not followed{held}",
                                       "copy the folder into this one, or remove the link")
    return sorted(found), sorted(others)


OUTSIDE_LOOK = 10_000  # entries of a linked folder outside looked through for Markdown before it counts as too large


def outside_markdown(path: str, bound: int = OUTSIDE_LOOK) -> Optional[str]:
    """Why a linked folder outside the one served cannot be left out, as words to add to the refusal: it holds a
    .md file (named), or more than `bound` entries before one was found; None when it holds none (images, say).
    Links inside it are not followed, and a part that cannot be listed holds nothing for this look."""
    waiting, looked = [path], 0
    while waiting:
        try:
            with os.scandir(waiting.pop()) as entries:
                for entry in entries:
                    looked += 1
                    if looked > bound:
                        return f", and it holds more than {bound:,} entries to look through for Markdown"
                    if entry.name.startswith("."):
                        continue
                    if entry.name.lower().endswith(MARKDOWN_SUFFIX) and not is_folder(entry):
                        return f", and it holds Markdown ({os.path.relpath(entry.path, path)}) that would go unserved"
                    if not entry.is_symlink() and is_folder(entry):
                        waiting.append(entry.path)
        except OSError:
            continue
    return None


def within(home: str, real: str) -> bool:
    """Whether a real path (links resolved) is the folder `home` (resolved too) or inside it."""
    return os.path.commonpath([home, real]) == home


def listed(folder: str) -> List["os.DirEntry[str]"]:
    """What a folder holds; ContentError if it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError as error:
        raise ContentError(os.path.normpath(folder), f"cannot be read ({error.strerror})",
                           "check its permissions") from None


def is_folder(entry: "os.DirEntry[str]") -> bool:
    """Whether an entry is a folder or a link to one (False where that cannot be told: reading it will say why)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def inside(folder: str, path: str) -> str:
    """The file a path of the folder leads to, links followed; ContentError if that is outside the folder."""
    real, home = os.path.realpath(path), os.path.realpath(folder)
    if not within(home, real):
        raise ContentError(path, f"is a link to {real}, outside the folder",
                           "copy the file into the folder (a link may lead only to a file inside it)")
    if real != os.path.abspath(path) and not os.path.exists(real):
        raise ContentError(path, f"is a link to {real}, which does not exist", "remove the link, or mend it")
    return real


def read_article(path: str, article_id: str, opened: Optional[str] = None) -> Article:
    """One Markdown file as an article, read from `opened` (what a link leads to) if given; ContentError for a
    file the store could not take."""
    text = read_text(path, MARKDOWN_MAX_BYTES, "split it into several files", opened)
    lines = _TEXT_LINE_END.split(text)
    matter = front_matter(path, lines)
    body = matter.body
    heading, content = split_markdown("\n".join(body))
    if matter.title is not None and (heading is None or same_title(heading, matter.title)):
        title = matter.title  # the front matter's title, and a first heading that repeats it left out
    elif matter.title is not None:  # a first heading of other words is the article's: it stays in its text
        title, content = matter.title, without_blank_ends(body)
    else:
        title = heading or title_from_file_name(path)
    if len(title) > kb_store.TITLE_MAX_CHARACTERS:
        raise ContentError(path, f"the title has {len(title):,} characters, more than the "
                           f"{kb_store.TITLE_MAX_CHARACTERS} a title may hold",
                           "shorten the front matter's title" if matter.title is not None
                           else "shorten the first # heading")
    if not content:
        problem = ("is empty" if not text.strip() else "holds only front matter" if not "".join(body).strip()
                   else "holds no text besides its title")
        raise ContentError(path, problem, "write the article, or remove the file")
    if len(content) > kb_store.CONTENT_MAX_CHARACTERS:
        raise ContentError(path, f"holds {len(content):,} characters of text, more than the "
                           f"{kb_store.CONTENT_MAX_CHARACTERS:,} an article may hold", "split it into several files")
    return Article(path, article_id, title, content, matter.published)


class FrontMatter(NamedTuple):
    """What an article's front matter says, and the lines after it."""

    published: bool
    title: Optional[str]  # its title: line's value, None where it has none (or an empty one)
    body: List[str]  # the file's lines after the front matter (all of them if it has none)


def front_matter(path: str, lines: List[str]) -> FrontMatter:
    """Whether the article is published, the title its front matter names, and the lines after the front matter."""
    if not lines or lines[0].rstrip() != FRONT_MATTER_FENCE:
        return FrontMatter(True, None, lines)
    end = next((n for n in range(1, len(lines)) if lines[n].rstrip() in FRONT_MATTER_ENDS), None)
    if end is None:
        raise ContentError(f"{path}:1", "the front matter opened by --- is never closed",
                           "end it with a line of --- before the article's text")
    flags, title = {}, None
    for index in range(1, end):
        line = lines[index]
        if not _FRONT_MATTER_OTHER.match(line) and not _FRONT_MATTER_KEY.match(line):
            raise ContentError(f"{path}:{index + 1}", f"the front matter opened by --- on line 1 holds "
                               f"{rejections.quote(line.strip())}, which is no key: value line",
                               "if the --- is a rule, not front matter, remove it or write *** instead")
        matched = _FRONT_MATTER_LINE.fullmatch(line.rstrip())  # a key of the front matter's own, not indented
        if matched and matched.group(1) in ("draft", "published"):
            flags[matched.group(1)] = flag(f"{path}:{index + 1}", *matched.groups())
        elif matched and matched.group(1) == "title":
            title = matter_title(f"{path}:{index + 1}", matched.group(2), lines[index + 1:end])
    draft = flags.get("draft", False) or not flags.get("published", True)
    if flags.get("draft") and flags.get("published"):
        raise ContentError(path, "the front matter says both draft: true and published: true",
                           "keep one of them")
    return FrontMatter(not draft, title, lines[end + 1:])


def matter_title(where: str, text: str, after: Sequence[str]) -> Optional[str]:
    """A front matter's title, as YAML reads the value of its title: line (`after`: the front matter's lines after
    it, in which a block scalar, `>` or `|`, goes on while they are indented): plain, its comment left out; in single
    quotes, '' a quote; in double quotes, with JSON's escapes; None where it is empty or null."""
    value = text.strip()
    if value[:1] in (">", "|"):  # a block scalar: its indented lines, joined with spaces, as a title is one line
        kept = itertools.takewhile(lambda line: not line.strip() or line[:1] in (" ", "\t"), after)
        return " ".join(line.strip() for line in kept if line.strip()) or None
    if value[:1] == "'":
        quoted = _SINGLE_QUOTED.fullmatch(value)
        if quoted is None:
            raise ContentError(where, f"the front matter's title {rejections.quote(value)} opens a quote it never "
                               "closes", "close it, write a quote inside it as '', or leave the quotes out")
        return quoted.group(1).replace("''", "'").strip() or None
    if value[:1] == '"':
        try:
            read, stop = json.JSONDecoder().raw_decode(value)
        except ValueError:
            read, stop = None, 0
        if not isinstance(read, str) or not _AFTER_VALUE.fullmatch(value, stop):
            raise ContentError(where, f"the front matter's title {rejections.quote(value)} cannot be read as one "
                               'quoted text', r'close its quotes, write a quote inside it as \", or leave the '
                               "quotes out")
        return read.strip() or None
    value = without_comment(value)
    return None if value in YAML_NULLS else value


def same_title(heading: str, title: str) -> bool:
    """Whether a heading reads as the title: the same words, whatever their case and the spaces between them."""
    return " ".join(heading.split()).casefold() == " ".join(title.split()).casefold()


def without_comment(text: str) -> str:
    """A plain front-matter value as YAML reads it (the text after its key's colon and spaces): a comment (a # first,
    or after a space or a tab) and the spaces around left out."""
    return _COMMENT.split(text, maxsplit=1)[0].strip()


def flag(where: str, key: str, text: str) -> bool:
    """A front-matter flag's value: true or false (also yes/no, on/off, quoted or not, its comment left out)."""
    word = without_comment(text).strip("\"'").lower()
    if word in FLAG_WORDS:
        return FLAG_WORDS[word]
    raise ContentError(where, f"{key} must be true or false, got {json.dumps(text.strip())}",
                       f"write {key}: true or {key}: false")


def split_markdown(text: str) -> Tuple[Optional[str], str]:
    """The first "# Title" heading outside code blocks (None if there is none) and the rest of the text, its blank
    lines first and last left out: the first line keeps its indentation (an indented code block stays code)."""
    lines = text.split("\n")
    for number, level, heading in kb_sections.markdown_headings(lines):
        if level == 1:
            return heading, without_blank_ends(lines[:number] + lines[number + 1:])
    return None, without_blank_ends(lines)


def without_blank_ends(lines: List[str]) -> str:
    """Lines as one text, those of white space only before the first other line left out, and the end stripped."""
    first = next((number for number, line in enumerate(lines) if line.strip()), len(lines))
    return "\n".join(lines[first:]).rstrip()

# ---------------------------------------------------------------------------
# A rows file and its field file.


def read_channel(rows_path: str, fields_path: str) -> Channel:
    """The record channel a rows file makes, each CSV cell converted by its field's type (JSON Lines as they are)."""
    channel = checked_rows(rows_path, fields_path)
    name, definitions = read_fields(fields_path)
    try:
        fields = {field.key: field for field in record_fields.parse_schema(definitions)}
    except ValueError as error:
        raise ContentError(fields_path, str(error), "fix the field definition (record_fields.py lists what each "
                           "type takes)") from None
    text = read_text(rows_path, ROWS_MAX_BYTES, "split it into several channels, one rows file each")
    read = csv_rows if rows_path.lower().endswith(".csv") else json_lines_rows
    rows = tuple(read(rows_path, fields_path, text, fields))
    return Channel(rows_path, fields_path, channel, name or title_from_file_name(rows_path),
                   definitions, rows)


def read_fields(path: str) -> Tuple[Optional[str], List[Dict[str, Any]]]:
    """A field file's channel name (None if it gives none) and field definitions."""
    text = read_text(path, FIELDS_MAX_BYTES, "a field file holds a channel's field definitions only")
    try:
        data = unique_json(text)
    except RepeatedKey as repeated:
        raise ContentError(f"{path}:{repeated_line(text, repeated.key)}", str(repeated), "keep one of them") from None
    except (ValueError, RecursionError) as error:
        line = getattr(error, "lineno", 1)
        raise ContentError(f"{path}:{line}", f"is not JSON ({json_fault(error)})",
                           f"fix the JSON (a list of field definitions, or {FIELD_FILE_OBJECT})") from None
    if isinstance(data, dict) and set(data) <= {"name", "fields"} and isinstance(data.get("fields"), list):
        name = data.get("name")
        if name is not None and not isinstance(name, str):
            raise ContentError(path, f"name must be text, got {rejections.quote(name)}", "give the channel's name")
        return name, data["fields"]
    if isinstance(data, list):
        return None, data
    raise ContentError(path, f"must hold a list of field definitions, or {FIELD_FILE_OBJECT}",
                       "see examples/feature-requests.fields.json for one")


def json_fault(error: Exception) -> str:
    """What is wrong with JSON text that could not be read, as a message says it: Python's advice on an integer of
    thousands of digits (to raise its limit) is for programmers, not for the file's author."""
    if "integer string conversion" in str(error):
        return f"a number of more than {getattr(sys, 'get_int_max_str_digits', lambda: 4300)():,} digits"
    return str(getattr(error, "msg", error))


def repeated_line(text: str, key: str) -> int:
    """The line on which `key` appears the second time in one object of JSON text (1 if it cannot be found), by a
    scan of the text's strings and brackets: json.loads tells no object's position."""
    keys: List[Optional[Set[str]]] = []  # for each bracket open: an object's keys so far, or None for an array
    last = None
    for token in _JSON_TOKEN.finditer(text):
        mark = token.group()
        if mark in ("{", "["):
            keys.append(set() if mark == "{" else None)
        elif mark in ("}", "]") and keys:
            keys.pop()
        elif mark == ":" and last is not None and keys and keys[-1] is not None:
            seen, written = keys[-1], json.loads(last.group())
            if written == key and written in seen:
                return text.count("\n", 0, last.start()) + 1
            seen.add(written)
        last = token
    return 1


def csv_rows(path: str, fields_path: str, text: str, fields: Mapping[str, record_fields.Field]) -> Iterator[Row]:
    """The rows of a CSV file: a header row of field keys, then one item per row; rows of empty cells skipped."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: Optional[List[str]] = None
    start = 1
    try:
        for cells in reader:
            if any(cell.strip() for cell in cells):
                if header is None:
                    header = [cell.strip() for cell in cells]
                    check_separator(f"{path}:{start}", cells, fields)
                    check_keys(f"{path}:{start}", header, fields, fields_path, "column")
                    check_required(f"{path}:{start}", header, fields)
                else:
                    yield Row(start, converted(f"{path}:{start}", header, cells, fields))
            start = reader.line_num + 1
    except csv.Error as error:
        if "field larger than field limit" in str(error):  # a long cell, or a quote never closed: the rest is one cell
            raise ContentError(f"{path}:{start}", f"a cell holds more than {csv.field_size_limit():,} characters, "
                               "more than any field takes (a text field holds "
                               f"{record_fields.TEXT_MAX_CHARACTERS:,} at most)",
                               "shorten it, or close the quote opened in this row") from None
        raise ContentError(f"{path}:{start}", f"is not CSV ({error})", "fix the row: a quoted cell ends with a "
                           'quote, and a quote inside one is written twice ("")') from None
    if header is None:
        raise ContentError(path, "is empty", "give a header row of field keys, then one row per item")


def check_separator(where: str, cells: Sequence[str], fields: Mapping[str, record_fields.Field]) -> None:
    """ContentError for a header row that shows the file's cells separated by something other than commas: a
    spreadsheet's "sep=;" line, or one column whose name holds a semicolon, a tab or a bar between field keys."""
    if cells[0].lower().startswith("sep=") and len(cells) <= 2 and not "".join(cells[1:]).strip():
        raise ContentError(where, f"{rejections.quote(','.join(cells))} is a spreadsheet's note of the separator, "
                           "not a header row", "remove the line")
    if len(cells) == 1 and cells[0].strip() not in fields:
        for separator, named in OTHER_SEPARATORS.items():
            if len([name for name in cells[0].split(separator) if name.strip()]) > 1:
                raise ContentError(where, f"the header row is one column, {rejections.quote(cells[0])}: the cells "
                                   f"seem separated by {named}, not commas",
                                   "save the file as CSV with commas between cells")


def json_lines_rows(path: str, fields_path: str, text: str,
                    fields: Mapping[str, record_fields.Field]) -> Iterator[Row]:
    """The rows of a JSON Lines file: one object of field key -> value a line, blank lines skipped."""
    for number, line in enumerate(_TEXT_LINE_END.split(text), 1):  # JSON writes no \r inside a string
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            values = unique_json(line)
        except RepeatedKey as repeated:
            raise ContentError(where, str(repeated), "keep one of them") from None
        except (ValueError, RecursionError) as error:
            raise ContentError(where, f"is not JSON ({json_fault(error)})", "write one JSON object per line") from None
        if not isinstance(values, dict):
            raise ContentError(where, f"holds a JSON {type(values).__name__}, not an object",
                               'write one object per line, such as {"title": "..."}')
        check_keys(where, list(values), fields, fields_path, "key")
        yield Row(number, values)


def check_keys(where: str, keys: Sequence[str], fields: Mapping[str, record_fields.Field], fields_path: str,
               noun: str) -> None:
    """ContentError for a key that names no writable field of the channel, or a column named twice."""
    writable = [key for key, field in fields.items() if field.writable]
    seen = set()
    for position, key in enumerate(keys, 1):
        if not key:
            raise ContentError(where, f"{noun} {position} has no name",
                               "name every column by a field key, or remove it")
        if key in seen:
            raise ContentError(where, f"{noun} {json.dumps(key)} appears twice", "keep one of them")
        seen.add(key)
        if key in fields and not fields[key].writable:
            raise ContentError(where, f"{noun} {json.dumps(key)} is a formula field, computed by the store",
                               f"remove the {noun}")
        if key not in fields:
            meant = next((field for field in fields.values() if field.writable and key.lower() in
                          (field.key, field.label.strip().lower())), None)
            advice = (f"rename the {noun} {json.dumps(meant.key)} (the key of the field labelled "
                      f"{rejections.quote(meant.label)})" if meant else
                      f"rename the {noun}, or add the field to {fields_path}")
            raise ContentError(where, f"{noun} {json.dumps(key)} is not a field of the channel; the fields are "
                               f"{', '.join(writable)}", advice)


def check_required(where: str, header: Sequence[str], fields: Mapping[str, record_fields.Field]) -> None:
    """ContentError for a required field the header has no column for."""
    missing = [key for key, field in fields.items() if field.is_required and key not in header]
    if missing:
        raise ContentError(where, f"has no column for the required field {json.dumps(missing[0])}",
                           "add the column, with a value in every row")


def converted(where: str, header: Sequence[str], cells: Sequence[str],
              fields: Mapping[str, record_fields.Field]) -> Dict[str, Any]:
    """One CSV row as values: each non-empty cell converted by its field's type."""
    if len(cells) != len(header):
        raise ContentError(where, f"has {_count(len(cells), 'cell')}, but the header names {len(header)} columns",
                           "give every row one cell per column (an empty one leaves the field unset)")
    return {key: cell_value(where, fields[key], cell) for key, cell in zip(header, cells) if cell.strip()}


def cell_value(where: str, field: record_fields.Field, cell: str) -> Any:
    """A CSV cell as its field's type takes it; text stays exactly as written, other cells are stripped."""
    kind, text = field.type, cell.strip()
    if kind == "text":
        return cell
    if kind in ("number", "currency", "percentage"):
        return number_value(where, field, text[:-1].rstrip() if kind == "percentage" and text.endswith("%") else text)
    if kind == "rating":
        if re.fullmatch(r"[+-]?\d+", text):
            return whole_number(where, field, "a whole number of stars", text)
        return _bad_cell(where, field, "a whole number of stars", text, "write one such as 4")
    if kind == "boolean":
        if text.lower() in CHECKBOX_WORDS:
            return CHECKBOX_WORDS[text.lower()]
        return _bad_cell(where, field, "true or false", text, "write true, false, yes, no, 1 or 0")
    if kind == "multi_select" and not text.startswith("["):
        return [value.strip() for value in text.split(LIST_SEPARATOR) if value.strip()]
    if kind in JSON_EXAMPLES:
        try:
            return unique_json(text)
        except RepeatedKey as repeated:
            return _bad_cell(where, field, "JSON text with no key twice in one object", text,
                             f"keep one {rejections.quote(repeated.key)}")
        except (ValueError, RecursionError):
            return _bad_cell(where, field, "JSON text", text, f"write it such as {JSON_EXAMPLES[kind]}")
    return text  # date, email, phone, url, select: text the store checks as it is


def number_value(where: str, field: record_fields.Field, text: str) -> Union[int, float]:
    """A number cell: an integer when written as one, otherwise a float."""
    if not _NUMBER.fullmatch(text):
        return _bad_cell(where, field, "a number", text, "write digits such as 12 or 3.5, without units or commas")
    if re.fullmatch(r"[+-]?\d+", text):
        return whole_number(where, field, "a number", text)
    number = float(text)
    if not math.isfinite(number) or len(text.lstrip("+-").split(".")[0].lstrip("0")) > NUMBER_DIGITS:
        return _bad_cell(where, field, "a number", text, TOO_MANY_DIGITS)
    return number


def whole_number(where: str, field: record_fields.Field, wanted: str, text: str) -> int:
    """A cell of digits as an integer; one of more than NUMBER_DIGITS digits is refused, before Python refuses to
    read past its own limit (sys.get_int_max_str_digits) with a ValueError no message should show."""
    if len(text.lstrip("+-").lstrip("0")) > NUMBER_DIGITS:
        return _bad_cell(where, field, wanted, text, TOO_MANY_DIGITS)
    return int(text)


def _bad_cell(where: str, field: record_fields.Field, wanted: str, text: str, advice: str) -> Any:
    raise ContentError(where, f"values.{field.key} must be {wanted}, got {record_fields.got(text)}", advice)


# ---------------------------------------------------------------------------
# Checking every source in throwaway stores, then writing where new.


def read_content(folders: Sequence[str] = (), channels: Sequence[Tuple[str, str]] = ()) -> Content:
    """Every source read and written into throwaway in-memory stores: ContentError for the first problem."""
    check_paths(folders, channels)
    content = Content(tuple(read_knowledge_base(folder) for folder in folders),
                      tuple(read_channel(rows, fields) for rows, fields in channels))
    if content.sources():
        with kb_store.connect() as kb, record_store.connect() as records:
            write_content(content, kb, records)
    return content


def write_content(content: Content, kb: kb_store.KnowledgeBaseStore,
                  records: record_store.RecordStore) -> List[Source]:
    """Write each knowledge base and channel the stores do not hold yet, in one transaction per store (all or
    nothing); returns the ones they held already (kept: served as found). A store that holds every one of its
    sources is only read, so a database file that may not be written still serves what it holds."""
    kept: List[Source] = [source for source in content.sources() if _held(source, kb, records)]
    new = [source for source in content.sources() if all(source is not held for held in kept)]
    source: Optional[Source] = None
    try:
        with contextlib.ExitStack() as transactions:
            if any(isinstance(source, KnowledgeBase) for source in new):
                transactions.enter_context(kb.database.write())
            if any(isinstance(source, Channel) for source in new):
                transactions.enter_context(records.database.write())
            for source in new:
                written = (write_knowledge_base(kb, source) if isinstance(source, KnowledgeBase)
                           else write_channel(records, source))
                if not written:  # another process wrote it since: served as found too
                    kept.append(source)
    except rejections.Rejection as refused:  # a read-only file, another writer past the timeout, a failing disk
        where = (source or content.sources()[0]).source
        raise ContentError(where, f"could not be written into its database ({refused.code}: {refused.message})",
                           "serve it from memory, or from another database file") from None
    return kept


def _held(source: Source, kb: kb_store.KnowledgeBaseStore, records: record_store.RecordStore) -> bool:
    """Whether the store a source goes into holds its ID already."""
    if isinstance(source, KnowledgeBase):
        return kb.has_knowledge_base(source.knowledge_base_id)
    return records.has_channel(source.channel_id)


def write_knowledge_base(store: kb_store.KnowledgeBaseStore, base: KnowledgeBase) -> bool:
    """Create the knowledge base and its articles; False, writing nothing, if the store holds that ID already."""
    try:
        store.create_knowledge_base(base.knowledge_base_id, base.name)
    except ValueError as error:
        if isinstance(error, rejections.IdTaken):
            return False
        raise ContentError(base.source, str(error), "rename the folder") from None
    for article in base.articles:
        try:
            store.create_article(base.knowledge_base_id, article.title, article.content,
                                 published=article.published, article_id=article.article_id)
        except ValueError as error:
            raise ContentError(article.path, str(error), "fix the file, or rename it") from None
    return True


def write_channel(store: record_store.RecordStore, channel: Channel) -> bool:
    """Create the channel and one item per row; False, writing nothing, if the store holds that ID already."""
    try:
        store.create_channel(channel.channel_id, channel.name, channel.fields)
    except ValueError as error:
        if isinstance(error, rejections.IdTaken):
            return False
        raise ContentError(channel.fields_source, str(error), "fix the field definitions, or give a related "
                           "channel's files before this one's") from None
    lines: Dict[str, int] = {}  # item ID -> the line it came from, for a message about a unique value
    for row in channel.rows:
        try:
            lines[store.create_item(channel.channel_id, row.values)["item_id"]] = row.line
        except record_store.InvalidValues as invalid:
            raise row_error(f"{channel.source}:{row.line}", invalid.failures, lines) from None
    return True


def row_error(where: str, failures: Sequence[record_fields.Failure], lines: Mapping[str, int]) -> ContentError:
    """The first failure of a row, with what to do: the option values to write, the line of a unique value."""
    failure = failures[0]
    message = _ITEM.sub(lambda m: m.group(0) + (f" (line {lines[m.group(1)]})" if m.group(1) in lines else ""),
                        failure.message)
    if failure.labels:
        options = [f"{json.dumps(value)} ({label})" for value, label in failure.labels.items()]
        more = f" and {len(options) - SHOWN_OPTIONS} more" if len(options) > SHOWN_OPTIONS else ""
        advice = f"write one of the option values: {', '.join(options[:SHOWN_OPTIONS])}{more}"
    elif "is required" in failure.message:
        advice = f"give {failure.key} a value in this row"
    else:
        advice = "fix the row"
    if len(failures) > 1:
        advice += f" ({_count(len(failures) - 1, 'more problem')} in this row)"
    return ContentError(where, message, advice)
