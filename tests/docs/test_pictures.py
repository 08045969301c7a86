"""Every picture the README and docs/ show is made by docs/make_pictures.py and is there; the
package index page shows no picture it could not resolve."""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def pictures() -> dict:
    spec = importlib.util.spec_from_file_location("make_pictures", DOCS / "make_pictures.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.PICTURES


def shown() -> dict[str, list[str]]:
    """docs/-relative picture path -> the documents that show it."""
    found: dict[str, list[str]] = {}
    for document in [REPO / "README.md", *DOCS.glob("*.md")]:
        for link in IMAGE.findall(document.read_text(encoding="utf-8")):
            target = (document.parent / link).resolve()
            assert target.is_relative_to(DOCS), f"{document.name}: {link} is not in docs/"
            found.setdefault(str(target.relative_to(DOCS)), []).append(document.name)
    return found


def test_every_picture_shown_is_made_by_the_script_and_present():
    made = pictures()
    for name, documents in shown().items():
        assert name in made, f"{documents} show {name}, which docs/make_pictures.py does not make"
        assert (DOCS / name).is_file(), f"{documents} show {name}, which is missing"


def test_every_picture_the_script_makes_is_present_and_no_stray_one():
    made = pictures()
    for name in made:
        assert (DOCS / name).is_file(), f"docs/make_pictures.py makes {name}: run it"
    on_disk = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.png")}
    assert on_disk <= set(made), f"pictures no script makes: {sorted(on_disk - set(made))}"


def test_the_package_index_page_has_no_relative_link():
    """A package index shows the `readme` of pyproject.toml without the repository: a
    relative picture or link there is broken."""
    import tomllib

    readme = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["readme"]
    path = REPO / (readme if isinstance(readme, str) else readme["file"])
    text = path.read_text(encoding="utf-8")
    assert not IMAGE.findall(text) or all(link.startswith("https://")
                                          for link in IMAGE.findall(text))
    for link in re.findall(r"\]\(([^)\s]+)\)", text):
        assert link.startswith(("https://", "http://", "#")), f"{path.name}: relative link {link}"
