"""Input files' digests remembered by their status (llgui.campaign.digests): a remembered
digest is always the one the file's bytes give (hashlib, not the memo), a changed file is read
again however its times were set back, and a memo that is not what the module writes is no
memo."""
from __future__ import annotations

import hashlib
import json
import os

import pytest

from llgui.campaign.cache import file_digest
from llgui.campaign.digests import MEMO_NAME, RACY_NS, DigestMemo


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _aged(path, seconds: int = 60) -> None:
    """The file as if written `seconds` ago (its change time stays now: tests that need an
    old change time wait instead, see `_old_file`)."""
    old = path.stat().st_mtime_ns - seconds * 10**9
    os.utime(path, ns=(old, old))


@pytest.fixture
def counted():
    """file_digest, counting the files it reads."""
    calls = []

    def digest(path):
        calls.append(str(path))
        return file_digest(path)

    digest.calls = calls
    return digest


def _old_file(tmp_path, name: str, text: str, monkeypatch):
    path = tmp_path / name
    path.write_text(text)
    # the file's change time cannot be set back: the clock is moved on instead
    now = path.stat().st_ctime_ns + RACY_NS + 10**9
    monkeypatch.setattr("llgui.campaign.digests.time.time_ns", lambda: now)
    return path


def test_a_remembered_file_is_not_read_again_and_its_digest_is_its_bytes(
        tmp_path, counted, monkeypatch):
    path = _old_file(tmp_path, "h.txt", "a b c\n", monkeypatch)
    memo = DigestMemo(tmp_path / "cache", counted)
    assert memo.digest(path) == _sha(path)
    memo.save()
    assert (tmp_path / "cache" / MEMO_NAME).is_file()
    again = DigestMemo(tmp_path / "cache", counted)
    assert again.digest(path) == _sha(path)
    assert counted.calls == [str(path)]        # the second run did not read it


def test_a_changed_file_is_read_again_even_with_its_size_and_times_set_back(
        tmp_path, counted, monkeypatch):
    path = _old_file(tmp_path, "h.txt", "a b c\n", monkeypatch)
    memo = DigestMemo(tmp_path / "cache", counted)
    first = memo.digest(path)
    memo.save()
    times = path.stat()
    path.write_text("a b d\n")                  # same size
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))   # same modification time
    assert path.stat().st_size == times.st_size
    assert path.stat().st_mtime_ns == times.st_mtime_ns
    again = DigestMemo(tmp_path / "cache", counted)
    assert again.digest(path) == _sha(path) != first


def test_a_file_changed_just_before_it_was_hashed_is_not_remembered(tmp_path, counted):
    path = tmp_path / "h.txt"
    path.write_text("fresh\n")
    _aged(path)                                 # old modification time, change time now
    memo = DigestMemo(tmp_path / "cache", counted)
    assert memo.digest(path) == _sha(path)
    memo.save()
    assert not (tmp_path / "cache" / MEMO_NAME).exists()
    assert DigestMemo(tmp_path / "cache", counted).digest(path) == _sha(path)
    assert len(counted.calls) == 2


@pytest.mark.parametrize("memo_text", [
    "not json", "[]", '{"format": 99, "files": {}}', '{"format": 1, "files": []}',
    '{"format": 1, "files": {"PATH": [1, 2, 3, 4]}}',
    '{"format": 1, "files": {"PATH": ["6", 0, 0, 0, "' + "0" * 64 + '"]}}',
    '{"format": 1, "files": {"PATH": [SIZE, MTIME, CTIME, INO, "nothex"]}}',
    '{"format": 1, "files": {"PATH": [SIZE, MTIME, CTIME, INO, "' + "0" * 63 + 'Z"]}}',
    '{"format": 1, "files": {"PATH": [SIZE, MTIME, CTIME, 1e400, "' + "0" * 64 + '"]}}',
])
def test_a_memo_that_is_not_what_the_module_writes_is_ignored(tmp_path, counted, memo_text):
    path = tmp_path / "h.txt"
    path.write_text("a b c\n")
    info = path.stat()
    text = (memo_text.replace("PATH", str(path)).replace("SIZE", str(info.st_size))
            .replace("MTIME", str(info.st_mtime_ns)).replace("CTIME", str(info.st_ctime_ns))
            .replace("INO", str(info.st_ino)))
    (tmp_path / "cache").mkdir()
    checked = hashlib.sha256(text.encode()).hexdigest() + " " + text   # as the module writes
    for written in (text, checked):
        (tmp_path / "cache" / MEMO_NAME).write_text(written)
        assert DigestMemo(tmp_path / "cache", counted).digest(path) == _sha(path)
    assert counted.calls == [str(path)] * 2


def test_a_memo_edited_by_hand_or_torn_is_ignored_whole(tmp_path, counted, monkeypatch):
    """Outsider finding: another file's digest copied into an entry was trusted (the memo
    had no checksum): a wrong digest would also make a cell job refuse the file as changed."""
    path = _old_file(tmp_path, "h.txt", "a b c\n", monkeypatch)
    other = _old_file(tmp_path, "o.txt", "x y z\n", monkeypatch)
    memo = DigestMemo(tmp_path / "cache", counted)
    memo.digest(path), memo.digest(other)
    memo.save()
    stored = tmp_path / "cache" / MEMO_NAME
    data = stored.read_bytes()
    stored.write_bytes(data.replace(_sha(path).encode(), _sha(other).encode()))
    assert DigestMemo(tmp_path / "cache", counted).digest(path) == _sha(path)
    stored.write_bytes(data[: len(data) // 2])
    assert DigestMemo(tmp_path / "cache", counted).digest(path) == _sha(path)
    assert counted.calls == [str(path), str(other), str(path), str(path)]


def test_a_memo_that_is_a_fifo_or_unwritable_is_no_memo(tmp_path, counted, monkeypatch):
    path = _old_file(tmp_path, "h.txt", "a b c\n", monkeypatch)
    (tmp_path / "cache").mkdir()
    os.mkfifo(tmp_path / "cache" / MEMO_NAME)   # never opened for reading (no hang)
    memo = DigestMemo(tmp_path / "cache", counted)
    assert memo.digest(path) == _sha(path)
    memo.save()                                  # a FIFO in its place: the rename replaces it
    assert json.loads((tmp_path / "cache" / MEMO_NAME).read_text()[65:])["files"]
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    memo = DigestMemo(blocked, counted)          # a file where the folder should be
    assert memo.digest(path) == _sha(path)
    memo.save()                                  # skipped, no error


def test_a_folder_in_the_memo_s_place_is_replaced(tmp_path, counted, monkeypatch):
    """Outsider finding: a directory at digests.index disabled the memo for good, silently."""
    path = _old_file(tmp_path, "h.txt", "a b c\n", monkeypatch)
    (tmp_path / "cache" / MEMO_NAME / "inside").mkdir(parents=True)
    memo = DigestMemo(tmp_path / "cache", counted)
    assert memo.digest(path) == _sha(path)
    memo.save()
    assert (tmp_path / "cache" / MEMO_NAME).is_file()
    assert DigestMemo(tmp_path / "cache", counted).digest(path) == _sha(path)
    assert counted.calls == [str(path)]
