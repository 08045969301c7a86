"""docs/developing.md's layout is true to the tree (issue 37, item 3): every folder or module it
names exists where it says, and every package of llgui (a folder with `__init__.py`) is named
there, so a package added without a line in the layout fails here."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def layout_block() -> list[str]:
    """The lines of the code block that follows `## Layout` in docs/developing.md."""
    text = (REPO / "docs" / "developing.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Layout\n"):]
    start = section.index("\n```\n") + len("\n```\n")
    return section[start:section.index("\n```", start)].splitlines()


def named_paths(lines: list[str]) -> list[str]:
    """Repository-relative paths the layout names. A line's leading words that end in `/` or
    `.py` are names (its description follows); a name is inside the last folder named alone on
    a line less indented than it, or at the repository's root."""
    names: list[str] = []
    folders: list[tuple[int, str]] = []   # (indent, path) of the enclosing folders
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        leading = []
        for word in line.split():
            if not (word.endswith("/") or word.endswith(".py")):
                break
            leading.append(word)
        if not leading:
            continue                      # a description continued
        while folders and folders[-1][0] >= indent:
            folders.pop()
        parent = folders[-1][1] if folders else ""
        paths = [parent + word for word in leading]
        names += paths
        if len(paths) == 1 and paths[0].endswith("/"):
            folders.append((indent, paths[0]))
    return names


def test_the_parser_nests_names_by_indentation():
    lines = ["a/            x", "  b/          y", "    c.py d/   z", "              more x/",
             "              w.py more", "  e.py", "f/"]
    assert named_paths(lines) == ["a/", "a/b/", "a/b/c.py", "a/b/d/", "a/b/w.py", "a/e.py",
                                  "f/"]


def test_every_name_in_the_layout_exists():
    names = named_paths(layout_block())
    assert "llgui/core/effort/" in names and "llgui/core/bounds.py" in names
    missing = [name for name in names if not (REPO / name).exists()
               or (REPO / name).is_dir() != name.endswith("/")]
    assert not missing, f"docs/developing.md's layout names what is not in the tree: {missing}"


def test_every_package_is_in_the_layout():
    named = set(named_paths(layout_block()))
    packages = sorted(p.parent.relative_to(REPO).as_posix() + "/"
                      for p in (REPO / "llgui").rglob("__init__.py"))
    assert "llgui/core/effort/" in packages
    absent = [package for package in packages if package not in named]
    assert not absent, f"add these packages to docs/developing.md's layout: {absent}"
