"""WMT's `.docs` layout as a `docids` file (issue 35, item 6): `domain<TAB>docid` per line
(WMT24's documents/PAIR.docs); a document is found by its id in either field, and a docid
that matches a domain-wide block (several documents) is a warning, not a silent merge."""
from __future__ import annotations

import sacrebleu

from llgui.io.bundle import load_bundle

DOCS = ["canary\tcanary", "news\tnews-a", "news\tnews-a", "news\tnews-b", "literary\tlit-a",
        "literary\tlit-a", "literary\tlit-b"]
REFS = ["x", "the cat sat", "on the mat", "a dog barked", "it was night", "all was still",
        "the end came"]
HYPS = ["x", "the cat sat", "on a mat", "the dog barked", "it was the night", "all still",
        "the end come"]


def _bundle(tmp_path, docid: str):
    (tmp_path / "en-xx.docs").write_text("\n".join(DOCS) + "\n")
    (tmp_path / "ref.txt").write_text("\n".join(REFS) + "\n")
    (tmp_path / "hyp.txt").write_text("\n".join(HYPS) + "\n")
    path = tmp_path / "bundle.toml"
    path.write_text(f'''[bundle]
task = "mt"
name = "wmt24"
metrics = ["bleu"]

[[documents]]
id = "doc"
time = "1"
references = ["ref.txt"]
hypothesis = "hyp.txt"
docids = "en-xx.docs"
docid = "{docid}"
''')
    return load_bundle(path)


def test_a_document_id_of_a_wmt_docs_file_selects_its_lines(tmp_path):
    bundle = _bundle(tmp_path, "news-a")
    document = bundle.documents[0]
    assert list(document.references[0]) == REFS[1:3]
    assert list(document.hypothesis) == HYPS[1:3]
    assert not bundle.warnings


def test_a_domain_as_docid_is_a_warning(tmp_path):
    bundle = _bundle(tmp_path, "literary")
    document = bundle.documents[0]
    assert list(document.references[0]) == REFS[4:7]
    said = [str(w) for w in bundle.warnings]
    assert len(said) == 1 and "3 lines of 2 documents" in said[0]
    assert "bundle.toml:12: warning" in said[0]     # the docid line


def test_the_selected_lines_score_as_sacrebleu_scores_them(tmp_path, capsys):
    import json

    from llgui.cli.main import main

    _bundle(tmp_path, "news-a")
    capsys.readouterr()
    assert main(["score", str(tmp_path / "bundle.toml"), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    theirs = sacrebleu.corpus_bleu(HYPS[1:3], [REFS[1:3]]).score
    assert report["metrics"]["bleu"]["score"] == theirs
