"""Every path a command is given to read names a regular file: a FIFO, a device, a socket or a folder is refused in
one line, never waited on, and a file is read only up to its bound (cli.read_file); the server's database options
refuse the same before anything is opened or written.

A FIFO that a regression would wait on forever is only ever read in a child process with a timeout.
"""

import os
import socket
import stat
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from osfoundry_tools import cli
from osfoundry_tools.server import workspace
from osfoundry_tools.server.options import parse_options
from tests.helpers import ROOT, assert_server_refuses

SERVER = os.path.join(ROOT, "mcp_server.py")
WAIT = 20.0  # seconds a child may take before the test fails instead of hanging
DEVICE = "/dev/zero"  # a device that would never end a read
SWAPPED_FIFO = """
import contextlib, os, sys
from unittest import mock
from osfoundry_tools import cli
status = os.stat(sys.argv[2])  # a regular file's
for swapped in (False, True):  # then the FIFO's path as if it still named that file when checked
    with mock.patch.object(cli.os, "stat", lambda path: status) if swapped else contextlib.nullcontext():
        try:
            cli.read_file(sys.argv[1], 10)
        except cli.FileRefused as refused:
            print(refused)
"""


def server_refusal(test, argv, pattern, cwd=ROOT):
    """Run mcp_server.py with `argv` (stdin closed) and assert it refused: exit status 2, nothing on stdout, one
    line on stderr matching `pattern`; returns that line."""
    done = subprocess.run([sys.executable, SERVER, *argv], capture_output=True, text=True, timeout=WAIT, cwd=cwd,
                          stdin=subprocess.DEVNULL)
    test.assertEqual((done.returncode, done.stdout), (cli.EXIT_USAGE, ""), done.stderr)
    test.assertEqual(done.stderr.count("\n"), 1, done.stderr)
    test.assertRegex(done.stderr, pattern)
    return done.stderr


def listing(folder):
    """Every name in `folder` with what it is, to show that nothing was made or changed."""
    return sorted((name, stat.S_IFMT(os.lstat(os.path.join(folder, name)).st_mode)) for name in os.listdir(folder))


class Folder(unittest.TestCase):
    def setUp(self):
        temporary = tempfile.TemporaryDirectory()
        self.addCleanup(temporary.cleanup)
        self.root = temporary.name

    def path(self, name):
        return os.path.join(self.root, name)

    def write(self, name, data):
        with open(self.path(name), "wb") as file:
            file.write(data)
        return self.path(name)


class ReadFileTest(Folder):
    """cli.read_file: a regular file up to its bound, anything else refused saying what it is."""

    def refused(self, path, limit, pattern, kind=cli.FileRefused):
        with self.assertRaisesRegex(kind, pattern) as caught:
            cli.read_file(path, limit)
        self.assertNotIn(path, str(caught.exception))  # the caller puts the path in front
        return str(caught.exception)

    def test_a_regular_file_within_its_bound_is_read_whole_links_followed(self):
        self.write("a.json", b"{}\n")
        os.symlink("a.json", self.path("link.json"))
        self.assertEqual(cli.read_file(self.path("a.json"), 3), b"{}\n")
        self.assertEqual(cli.read_file(self.path("link.json"), 3), b"{}\n")

    def test_the_size_is_checked_on_the_opened_file_before_it_is_read(self):
        self.write("big", b"x" * 100)
        self.refused(self.path("big"), 10, r"^is 100 bytes, larger than the 10 read", cli.FileTooLarge)

    @unittest.skipUnless(os.path.exists("/proc/self/maps"), "needs a file that reports size 0 but holds more")
    def test_no_more_than_the_bound_and_one_byte_is_read_whatever_the_size_says(self):
        self.assertEqual(os.stat("/proc/self/maps").st_size, 0)
        self.refused("/proc/self/maps", 10, r"^is 11 bytes, larger than the 10 read", cli.FileTooLarge)

    @unittest.skipUnless(os.path.exists(DEVICE), "needs /dev/zero")
    def test_a_device_or_a_link_to_one_is_refused_without_being_opened(self):
        os.symlink(DEVICE, self.path("zero.json"))
        with mock.patch.object(cli.os, "open", side_effect=AssertionError("a device was opened")):
            for path in (DEVICE, self.path("zero.json")):
                with self.subTest(path=path):
                    self.refused(path, 10, r"^is a character device, not a regular file$")

    def test_a_folder_and_a_socket_are_refused_saying_what_they_are(self):
        self.refused(self.root, 10, r"^is a folder, not a regular file$")
        if hasattr(socket, "AF_UNIX"):
            listener = socket.socket(socket.AF_UNIX)
            self.addCleanup(listener.close)
            listener.bind(self.path("s"))
            self.refused(self.path("s"), 10, r"^is a socket, not a regular file$")

    def test_a_missing_file_raises_what_open_raises(self):
        with self.assertRaises(FileNotFoundError):
            cli.read_file(self.path("absent"), 10)

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs FIFOs")
    def test_a_fifo_is_refused_at_once_even_one_swapped_in_after_its_path_was_checked(self):
        # In a child, with a timeout; the second time the path is reported as a regular file (as if the FIFO
        # replaced a file between the check and the open): only the check of the opened descriptor stands.
        os.mkfifo(self.path("pipe"))
        regular = self.write("regular", b"{}")
        done = subprocess.run([sys.executable, "-c", SWAPPED_FIFO, self.path("pipe"), regular], capture_output=True,
                              text=True, timeout=WAIT, cwd=ROOT, stdin=subprocess.DEVNULL)
        self.assertEqual(done.stderr, "")
        self.assertEqual(done.stdout.splitlines(), ["is a FIFO (named pipe), not a regular file"] * 2)

    def test_kind_of_names_each_kind_of_file(self):
        kinds = {stat.S_IFREG: "a regular file", stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO (named pipe)",
                 stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket",
                 stat.S_IFLNK: "a symbolic link"}
        for mode, kind in kinds.items():
            self.assertEqual(cli.kind_of(mode | 0o600), kind)


class DatabaseOptionsTest(Folder):
    """--kb-db and --records-db: a path naming anything but a regular file (or nothing yet) is refused by the
    option parser, before sqlite opens it and leaves a -journal file beside it (beside /dev/null, say)."""

    def test_a_fifo_a_socket_a_folder_or_a_link_to_a_device_is_refused_and_nothing_is_made(self):
        cases = {("--kb-db", self.root): "is a folder, not a database file"}
        if hasattr(os, "mkfifo"):
            os.mkfifo(self.path("pipe.db"))
            cases["--records-db", self.path("pipe.db")] = "is a FIFO (named pipe), not a database file"
        if os.path.exists("/dev/null"):
            os.symlink("/dev/null", self.path("null.db"))
            cases["--kb-db", self.path("null.db")] = "is a character device, not a database file"
        if hasattr(socket, "AF_UNIX"):
            listener = socket.socket(socket.AF_UNIX)
            self.addCleanup(listener.close)
            listener.bind(self.path("s.db"))
            cases["--records-db", self.path("s.db")] = "is a socket, not a database file"
        before = listing(self.root)
        assert_server_refuses(self, cases)
        self.assertEqual(listing(self.root), before)

    @unittest.skipUnless(hasattr(os, "mkfifo"), "needs FIFOs")
    def test_the_server_refuses_a_fifo_database_in_one_line_and_makes_no_journal(self):
        os.mkfifo(self.path("pipe.db"))
        server_refusal(self, ["--kb-db", self.path("pipe.db")], r"--kb-db: .*pipe\.db' is a FIFO \(named pipe\), "
                       r"not a database file")
        self.assertEqual(listing(self.root), [("pipe.db", stat.S_IFIFO)])

    def test_a_database_file_that_is_a_link_to_a_regular_file_is_taken(self):
        workspace.open_workspace(parse_options(["--kb-db", self.path("kb.db")])).close()
        os.symlink("kb.db", self.path("link.db"))
        options = parse_options(["--kb-db", self.path("link.db")])
        self.assertEqual(options.kb_db, self.path("link.db"))


if __name__ == "__main__":
    unittest.main()
