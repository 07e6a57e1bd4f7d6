"""mcp_tokens.py: a tokens file maps each bearer token to its grant, is refused in one line that never shows a
token, and a presented token finds its grant by comparing digests with every stored one.

Each test writes its file into a temporary folder with the mode it names (0600 unless it says otherwise).
"""

import hashlib
import hmac
import json
import os
import random
import shutil
import string
import tempfile
import types
import unittest
from unittest import mock

from osfoundry_tools.server.tokens import (
    MAX_FILE_BYTES, WRITE_SCOPE, Grant, TokenFileError, Tokens, check_private, grant_keys,
)
from osfoundry_tools.server import workspace
from osfoundry_tools.server.workspace import SERVED
from osfoundry_tools.stores import record_store
from tests.helpers import ROOT  # noqa: F401  (puts the project on the path)
from tests.test_special_files import server_refusal

ALICE = "s3cr3t-token-for-alice"
READER = "token-for-a-reader"
ALICE_NEXT = "s3cr3t-token-for-alice-rotated"
GOOD = {
    ALICE: {"caller": "alice", "knowledge_bases": ["kb-support"], "channels": ["bugs"], "scopes": [WRITE_SCOPE]},
    READER: {"caller": "reader", "knowledge_bases": "*", "channels": "*"},
}
SECRETS = (ALICE, READER, ALICE_NEXT, "x" * 16)  # none of these may ever appear in a message or a repr


KINDS = grant_keys(SERVED)  # what the server's own token files grant: knowledge_bases and channels


class Folder(unittest.TestCase):
    """A temporary folder, a tokens file written into it, and the checks every refusal must pass."""

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)

    def write(self, content, mode=0o600, name="tokens.json"):
        """The path of a file holding `content` (a str as it is, bytes as they are, anything else as JSON)."""
        path = os.path.join(self.folder, name)
        data = content if isinstance(content, bytes) else \
            (content if isinstance(content, str) else json.dumps(content)).encode("utf-8")
        with open(path, "wb") as file:
            file.write(data)
        os.chmod(path, mode)
        return path

    def refused(self, content, pattern, mode=0o600, secrets=()):
        """The message of the TokenFileError loading `content` raises: one line, naming the file, matching
        `pattern`, and showing none of the tokens."""
        path = self.write(content, mode)
        return self.refused_path(path, pattern, secrets)

    def refused_path(self, path, pattern, secrets=()):
        with self.assertRaisesRegex(TokenFileError, pattern) as caught:
            Tokens.load(path, KINDS)
        message = str(caught.exception)
        self.assertTrue(message.startswith(f"{path}: "), message)
        self.assertNotIn("\n", message)
        for secret in SECRETS + tuple(secrets):
            self.assertNotIn(secret, message)
        return message


def entry(**grant):
    """A file of one good token whose grant is `grant`."""
    return {ALICE: grant}


class GoodFileTest(Folder):
    def test_each_token_maps_to_its_grant(self):
        tokens = Tokens.load(self.write(GOOD), KINDS)
        self.assertEqual(len(tokens), 2)
        self.assertEqual(tokens.grant_for(ALICE),
                         Grant.of("alice", {"knowledge_base": {"kb-support"}, "record": {"bugs"}}, {WRITE_SCOPE}))
        self.assertEqual(tokens.grant_for(READER), Grant.of("reader", {"knowledge_base": None, "record": None}))

    def test_lists_left_out_grant_nothing_rather_than_everything(self):
        grant = Tokens.load(self.write(entry(caller="alice")), KINDS).grant_for(ALICE)
        self.assertEqual(grant, Grant.of("alice", {"knowledge_base": frozenset(), "record": frozenset()}, frozenset()))
        self.assertIsNotNone(grant.granted("knowledge_base"))
        self.assertIsNotNone(grant.granted("record"))

    def test_a_star_grants_every_one_and_an_empty_list_none(self):
        grant = Tokens.load(self.write(entry(caller="alice", knowledge_bases=[], channels="*")), KINDS).grant_for(ALICE)
        self.assertEqual((grant.granted("knowledge_base"), grant.granted("record")), (frozenset(), None))

    def test_unknown_scopes_are_kept_as_given(self):
        written = self.write(entry(caller="alice", scopes=["osfoundry:admin", WRITE_SCOPE]))
        grant = Tokens.load(written, KINDS).grant_for(ALICE)
        self.assertEqual(grant.scopes, frozenset({"osfoundry:admin", WRITE_SCOPE}))

    def test_two_tokens_may_share_a_caller_while_one_is_rotated(self):
        written = self.write({ALICE: {"caller": "alice"}, ALICE_NEXT: {"caller": "alice", "channels": "*"}})
        tokens = Tokens.load(written, KINDS)
        self.assertEqual(len(tokens), 2)
        self.assertEqual(tokens.grant_for(ALICE).caller, "alice")
        self.assertIsNone(tokens.grant_for(ALICE_NEXT).granted("record"))

    def test_the_shortest_and_longest_tokens_and_callers_load(self):
        drawn = "".join(hashlib.sha256(bytes([number])).hexdigest() for number in range(8))  # 512 hex digits
        shortest, longest = "0f3a9c1e7b2d5a84", "~" + drawn[1:]
        tokens = Tokens.load(self.write({shortest: {"caller": "a"}, longest: {"caller": "b" * 128}}), KINDS)
        self.assertEqual(tokens.grant_for(shortest).caller, "a")
        self.assertEqual(tokens.grant_for(longest).caller, "b" * 128)

    def test_a_caller_may_hold_letters_digits_and_dash_underscore_dot_at(self):
        grant = Tokens.load(self.write(entry(caller="CI-bot_2.0@example.com")), KINDS).grant_for(ALICE)
        self.assertEqual(grant.caller, "CI-bot_2.0@example.com")

    def test_the_write_scope_is_the_record_stores(self):
        self.assertEqual(WRITE_SCOPE, record_store.WRITE_SCOPE)


class FileRefusalTest(Folder):
    @unittest.skipUnless(os.name == "posix", "file modes are POSIX")
    def test_a_file_other_users_may_read_is_refused_with_the_chmod_that_fixes_it(self):
        message = self.refused(GOOD, r"may be read by other users \(mode 0644\); chmod 600 ", mode=0o644)
        self.assertTrue(message.endswith(f"chmod 600 {os.path.join(self.folder, 'tokens.json')}"), message)

    @unittest.skipUnless(os.name == "posix", "file modes are POSIX")
    def test_any_group_or_other_bit_is_refused(self):
        for mode in (0o640, 0o604, 0o620, 0o602, 0o610, 0o601):
            with self.subTest(mode=oct(mode)):
                self.refused(GOOD, f"may be read by other users \\(mode {mode:04o}\\)", mode=mode)

    def test_a_missing_file_is_refused(self):
        self.refused_path(os.path.join(self.folder, "absent.json"), "no such file; give --tokens")

    def test_a_path_holding_a_line_break_still_costs_one_line(self):
        with self.assertRaisesRegex(TokenFileError, r"two\\nlines\.json: no such file") as caught:
            Tokens.load(os.path.join(self.folder, "two\nlines.json"), KINDS)
        self.assertNotIn("\n", str(caught.exception))

    @unittest.skipIf(hasattr(os, "geteuid") and os.geteuid() == 0, "root may read any file")
    def test_a_file_that_cannot_be_read_is_refused(self):
        self.refused(GOOD, r"cannot be read \(Permission denied\); give --tokens a file this user can read", mode=0)

    def test_a_folder_or_a_device_is_refused_saying_what_it_is(self):
        os.mkdir(os.path.join(self.folder, "a-folder"))
        self.refused_path(os.path.join(self.folder, "a-folder"), r"is a folder, not a regular file; give --tokens")
        if os.path.exists("/dev/zero"):
            os.symlink("/dev/zero", os.path.join(self.folder, "zero.json"))
            self.refused_path(os.path.join(self.folder, "zero.json"), r"is a character device, not a regular file")

    def test_a_file_past_the_bound_is_refused_before_it_is_read(self):
        path = self.write(GOOD)
        with open(path, "ab") as file:
            file.truncate(MAX_FILE_BYTES + 1)  # sparse: as large as it says, without the disk
        self.refused_path(path, r"is 1,048,577 bytes, larger than the 1,048,576 read from such a file; a tokens "
                                "file holds a few tokens")

    def test_a_file_nested_100000_deep_is_refused_in_one_line(self):
        for text in ("[" * 100_000 + "]" * 100_000, f'{{"{ALICE}": ' + '{"a":' * 100_000 + "1" + "}" * 100_001):
            with self.subTest(text=text[:20]):
                self.refused(text, r"not valid JSON for this server: arrays or objects nested too deeply to read")

    def test_a_number_python_will_not_convert_is_refused_in_one_line(self):
        self.refused(f'{{"{ALICE}": {{"caller": "alice", "scopes": {"9" * 5000}}}}}', r"not valid JSON|a JSON number")

    def test_a_file_that_is_not_utf8_is_refused(self):
        self.refused(b'{"\xff\xfe": {}}', "not UTF-8 text")

    def test_a_file_that_is_not_json_is_refused_without_the_token_near_the_fault(self):
        self.refused(f'{{"{ALICE}": {{"caller": "alice",}}}}', r"not valid JSON \(.* at line 1, column \d+\)")

    def test_nan_and_infinity_are_refused(self):
        for constant in ("NaN", "Infinity", "-Infinity"):
            with self.subTest(constant=constant):
                self.refused(f'{{"{ALICE}": {{"caller": "alice", "scopes": {constant}}}}}',
                             f"not valid JSON: {constant} is not a JSON value")

    def test_a_token_listed_twice_is_refused(self):
        self.refused(f'{{"{ALICE}": {{"caller": "alice"}}, "{ALICE}": {{"caller": "bob"}}}}',
                     "a key appears twice in one object")

    def test_a_grant_key_given_twice_is_refused(self):
        self.refused(f'{{"{ALICE}": {{"caller": "alice", "channels": "*", "channels": []}}}}',
                     "a key appears twice in one object")

    def test_a_file_that_is_not_an_object_is_refused(self):
        self.refused([ALICE, {"caller": "alice"}], "holds a JSON array, not an object")

    def test_a_file_of_no_token_is_refused(self):
        self.refused({}, "holds no token; add one")


class CallerTokenTest(Folder):
    """A caller name is logged and stored: one that equals any token of the file is refused, never shown."""

    def test_a_caller_equal_to_its_own_token_or_to_another_entrys_is_refused_without_showing_it(self):
        for tokens, position in (({ALICE: {"caller": ALICE}}, 1),
                                 ({READER: {"caller": "reader"}, ALICE: {"caller": READER}}, 2),
                                 ({ALICE: {"caller": READER}, READER: {"caller": "reader"}}, 1)):
            with self.subTest(tokens=list(tokens)):
                self.refused(tokens, rf": entry {position} has a caller that is one of the file's tokens; make the "
                             "caller a name")

    def test_a_caller_may_share_a_token_s_beginning(self):
        tokens = Tokens.load(self.write({ALICE: {"caller": ALICE[:15]}}), KINDS)
        self.assertEqual(tokens.grant_for(ALICE).caller, ALICE[:15])


class ServerRefusalTest(Folder):
    """The server given such a file: exit status 2, one line, no token in it, nothing served."""

    def serve(self, path, pattern):
        return server_refusal(self, ["--demo", "--http", "127.0.0.1:0", "--tokens", path], pattern)

    def test_a_file_nested_100000_deep_costs_one_line_and_exit_2(self):
        self.serve(self.write("[" * 100_000 + "]" * 100_000), r"^mcp_server\.py: error: --tokens: .*tokens\.json: "
                   r"not valid JSON for this server: arrays or objects nested too deeply to read")

    def test_a_caller_equal_to_a_token_costs_one_line_that_does_not_show_it(self):
        said = self.serve(self.write({ALICE: {"caller": READER}, READER: {"caller": "reader"}}),
                          r"entry 1 has a caller that is one of the file's tokens")
        for token in (ALICE, READER):
            self.assertNotIn(token, said)

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs FIFOs")
    def test_a_fifo_is_refused_at_once(self):
        path = os.path.join(self.folder, "tokens.json")
        os.mkfifo(path, 0o600)
        self.serve(path, r"tokens\.json: is a FIFO \(named pipe\), not a regular file; give --tokens the path")


class TokenRefusalTest(Folder):
    def test_a_token_of_the_wrong_length_or_characters_is_refused_and_not_shown(self):
        for token in ("x" * 15, "x" * 513, "token with spaces-in-it", "token-with-a-tab\tinside", "token-for-zoë-12345",
                      "token-with-del\x7f-inside"):
            with self.subTest(token=token):
                self.refused({token: {"caller": "alice"}}, r"entry 1 \(caller alice\) has a token of \d+ characters "
                             "that is not 16 to 512 visible ASCII characters", secrets=[token])

    def test_the_faulty_entry_is_named_by_its_position(self):
        self.refused({ALICE: {"caller": "alice"}, "too-short": {"caller": "bob"}}, r"^.*: entry 2 \(caller bob\)",
                     secrets=["too-short"])


class WeakTokenTest(Folder):
    """A token anyone could guess is refused, whatever its length, in a line that says why and does not show it."""

    WEAK = {"a" * 16: "only 1 different character", "abababababababab": "only 2 different characters",
            "passwordpassword": "one run of 8 characters repeated", "x" * 512: "only 1 different character",
            "changeme-changeme-changeme": "one run of 9 characters repeated",
            "abcdefghijklmnop": "its characters run in order", "0123456789abcdef": "its characters run in order",
            "ZYXWVUTSRQPONMLK": "its characters run in order", "aaaaaaaaaaaaaaab": "only 2 different characters",
            "1a2b3c4d1a2b3c4d": "one run of 8 characters repeated"}

    def test_a_guessable_token_is_refused_saying_why_and_how_to_make_one(self):
        for token, reason in self.WEAK.items():
            with self.subTest(token=token):
                self.refused({ALICE: {"caller": "alice"}, token: {"caller": "bob"}},
                             rf": entry 2 \(caller bob\) has a weak token \({reason}[^)]*\), which anyone may guess; "
                             "make a new one, e.g. with: openssl rand -hex 32$", secrets=[token])

    def test_random_tokens_of_every_form_load(self):
        draw = random.Random(20260101)
        forms = {"hex": "0123456789abcdef", "base64": string.ascii_letters + string.digits + "-_",
                 "visible": "".join(map(chr, range(0x21, 0x7f)))}
        for form, alphabet in forms.items():
            for length in (16, 24, 32, 64, 512):
                drawn = {"".join(draw.choice(alphabet) for _ in range(length)): {"caller": f"c{number}"}
                         for number in range(50)}
                with self.subTest(form=form, length=length):
                    self.assertEqual(len(Tokens.load(self.write(drawn), KINDS)), len(drawn))

    def test_the_examples_of_the_documentation_load(self):
        self.assertEqual(len(Tokens.load(self.write({"token-of-alice-0123456789": {"caller": "alice"},
                                                     "token-of-a-reader-98765432": {"caller": "reader"}}), KINDS)), 2)


@unittest.skipUnless(hasattr(os, "geteuid"), "file owners are POSIX")
class OwnerTest(Folder):
    """A token file another user owns is theirs to read and change: refused, however private its mode."""

    def owned_by(self, owner):
        path = self.write(GOOD)
        status = os.stat(path)
        return path, os.stat_result((status.st_mode, status.st_ino, status.st_dev, status.st_nlink, owner,
                                     status.st_gid, status.st_size, 0, 0, 0))

    def test_a_file_of_another_user_is_refused_with_the_chown_that_fixes_it(self):
        other = 65534 if os.geteuid() != 65534 else 65533
        path, status = self.owned_by(other)
        with self.assertRaisesRegex(ValueError, rf"belongs to user {other}, who may read and change it; "
                                                rf"chown {os.geteuid()} {path}$"):
            check_private(path, status)

    def test_a_file_of_this_user_or_of_root_passes(self):
        for owner in {os.geteuid(), 0}:
            path, status = self.owned_by(owner)
            check_private(path, status)

    @unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0, "only root may give a file away")
    def test_the_loader_and_the_server_refuse_a_file_given_to_another_user(self):
        path = self.write(GOOD)
        os.chown(path, 65534, 65534)
        self.refused_path(path, "belongs to user 65534, who may read and change it; chown 0 ")
        server_refusal(self, ["--demo", "--http", "127.0.0.1:0", "--tokens", path],
                       r"^mcp_server\.py: error: --tokens: .*tokens\.json: belongs to user 65534")


class GrantRefusalTest(Folder):
    def test_an_entry_that_is_not_an_object_is_refused(self):
        self.refused({ALICE: "alice"}, "entry 1 maps its token to a JSON string; map each token to an object")

    def test_an_entry_without_a_caller_is_refused(self):
        self.refused(entry(channels="*"), 'entry 1 has no caller; add "caller"')

    def test_unknown_keys_are_refused_and_named(self):
        self.refused(entry(caller="alice", knowledge_base=["kb"], scope=[]),
                     "entry 1 has the unknown keys 'knowledge_base', 'scope'; a grant may hold only 'caller'")

    def test_an_unknown_key_as_long_as_a_token_is_not_shown(self):
        nested = "a-token-nested-one-level-too-deep"
        self.refused({ALICE: {nested: {"caller": "alice"}}}, "the unknown key a key of 33 characters \\(not shown\\)",
                     secrets=[nested])

    def test_a_caller_of_the_wrong_type_length_or_characters_is_refused(self):
        for caller, pattern in ((7, "a caller that is a JSON number"), (None, "a caller that is a JSON null"),
                                ("", "a caller of 0 characters"), ("c" * 129, "a caller of 129 characters"),
                                ("al ice", "a caller holding ' '"), ("zoë", "a caller holding 'ë'"),
                                ("a/b", "a caller holding '/'")):
            with self.subTest(caller=caller):
                self.refused(entry(caller=caller), f"entry 1 has {pattern}; make it 1 to 128 ASCII letters, digits "
                             "and - _ . @")

    def test_ids_that_are_not_a_list_or_a_star_are_refused(self):
        for key in ("knowledge_bases", "channels"):
            for value, pattern in (("kb-support", "that is a JSON string"), (None, "that is a JSON null"),
                                   ({"kb": True}, "that is a JSON object"), (["*"], 'lists "\\*" as one of its'),
                                   (["kb-support", "*"], 'lists "\\*" as one of its'),
                                   ([""], "item \\(number 1\\) that does not fit"),
                                   (["ok", "i" * 129], "item \\(number 2\\) that does not fit"),
                                   (["ok", 3], "item \\(number 2\\) that does not fit")):
                with self.subTest(key=key, value=value):
                    self.refused(entry(caller="alice", **{key: value}), f"entry 1 \\(caller alice\\) .*{pattern}")

    def test_an_id_may_be_any_text_up_to_128_characters(self):
        written = self.write(entry(caller="alice", channels=["bug reports", "i" * 128]))
        grant = Tokens.load(written, KINDS).grant_for(ALICE)
        self.assertEqual(grant.granted("record"), frozenset({"bug reports", "i" * 128}))

    def test_scopes_that_are_not_a_list_of_visible_ascii_strings_are_refused(self):
        for value, pattern in (("*", "scopes that is a JSON string"), (WRITE_SCOPE, "scopes that is a JSON string"),
                               ([""], "item \\(number 1\\)"), (["read write"], "item \\(number 1\\)"),
                               ([WRITE_SCOPE, None], "item \\(number 2\\)")):
            with self.subTest(value=value):
                self.refused(entry(caller="alice", scopes=value), f"entry 1 \\(caller alice\\) has .*{pattern}")

    def test_a_refusal_is_a_value_error(self):
        self.assertTrue(issubclass(TokenFileError, ValueError))


class LookupTest(Folder):
    def setUp(self):
        super().setUp()
        self.tokens = Tokens.load(self.write(GOOD), KINDS)

    def test_an_unknown_token_has_no_grant(self):
        self.assertIsNone(self.tokens.grant_for("an-unknown-token-of-good-form"))

    def test_a_token_one_character_off_has_no_grant(self):
        for position in (0, len(ALICE) // 2, len(ALICE) - 1):
            near = ALICE[:position] + ("X" if ALICE[position] != "X" else "Y") + ALICE[position + 1:]
            with self.subTest(position=position):
                self.assertIsNone(self.tokens.grant_for(near))
        for near in (ALICE[:-1], ALICE + "e", ALICE.upper()):
            with self.subTest(near=near):
                self.assertIsNone(self.tokens.grant_for(near))

    def test_non_ascii_over_long_empty_and_non_text_tokens_have_no_grant_and_raise_nothing(self):
        for presented in (ALICE[:-1] + "é", ALICE + "\u0000", ALICE + " ", "x" * 100_000, "", None, ALICE.encode()):
            with self.subTest(presented=repr(presented)[:40]):
                self.assertIsNone(self.tokens.grant_for(presented))

    def test_every_stored_digest_is_compared_whichever_token_matches(self):
        tokens = Tokens.load(self.write(dict(GOOD, **{ALICE_NEXT: {"caller": "alice"}})), KINDS)
        for presented in (ALICE, READER, ALICE_NEXT, "an-unknown-token-of-good-form"):
            with self.subTest(presented=presented), \
                    mock.patch.object(hmac, "compare_digest", wraps=hmac.compare_digest) as compare:
                tokens.grant_for(presented)
                self.assertEqual(compare.call_count, 3)
                self.assertNotIn(presented.encode(), [argument for call in compare.call_args_list
                                                      for argument in call.args])

    def test_no_token_is_kept_as_it_was_given(self):
        kept = repr(vars(self.tokens))
        for token in GOOD:
            self.assertNotIn(token, kept)


class ReprTest(Folder):
    def test_the_repr_counts_and_names_the_callers_and_shows_no_token(self):
        tokens = Tokens.load(self.write(GOOD), KINDS)
        self.assertEqual(repr(tokens), "Tokens(2 callers: alice, reader)")

    def test_the_startup_line_says_whom_the_tokens_serve_in_words(self):
        options = types.SimpleNamespace(tokens=Tokens.load(self.write(GOOD), KINDS), approve_writes=False,
                                        durability="full", rejection_detail="labels", people_edit_every=0)
        line = workspace.describe(options, ":memory:", ":memory:", None, ())
        self.assertIn("callers, grants and scopes from the token file: 2 callers: alice, reader;", line)
        self.assertNotIn("Tokens(", line)

    def test_the_repr_of_a_rotation_counts_the_tokens_too(self):
        tokens = Tokens.load(self.write(dict(GOOD, **{ALICE_NEXT: {"caller": "alice"}})), KINDS)
        self.assertEqual(repr(tokens), "Tokens(3 tokens, 2 callers: alice, reader)")
        for token in SECRETS:
            self.assertNotIn(token, repr(tokens))
            self.assertNotIn(token, str(tokens))


if __name__ == "__main__":
    unittest.main()
