"""Plain requests to a file server's tools, as a user of a third-party MCP server says them.

Written here (no benchmark): "Save the text 'hello world' to notes/hello.txt" is a write whose
name says the verb and whose every value is given, so it is chosen over a read of the same
path; "move a to b" gives each path its end by "to"; "files named readme" names the pattern;
a path, a URL or an e-mail address tells retrieval what kind of value the request carries.
"""

from __future__ import annotations

from typing import Any

from nodes.parsing.rules import RuleIntentParser
from nodes.planning.eligibility import score_candidates, writes_as_said
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema
from stores.catalog.model import Catalog, ToolSpec
from stores.language.lexicon import Lexicon
from stores.language.spans_text import value_kind_words
from stores.retrieval.embeddings import default_embedder

PATH = {"type": "string"}
WRITE = {"type": "object", "properties": {"path": PATH, "content": {"type": "string"}},
         "required": ["path", "content"]}
READ = {"type": "object", "properties": {"path": PATH}, "required": ["path"]}
EVENT = {"type": "object", "properties": {"title": {"type": "string"},
                                          "start": {"type": "string", "format": "date-time"}},
         "required": ["title", "start"]}
TOOLS: dict[str, tuple[str, dict[str, Any], bool | None]] = {
    "read_file": ("Read the complete contents of a file from the file system.", READ, False),
    "write_file": ("Create a new file or completely overwrite an existing file with new "
                   "content.", WRITE, None),
    "create_directory": ("Create a new directory or ensure a directory exists.", READ, None),
    "create_calendar_event": ("Create an event in the user's calendar.", EVENT, None),
    "list_directory": ("Get a detailed listing of all files and directories in a specified "
                       "path.", READ, False),
}


def _catalog() -> Catalog:
    catalog = Catalog()
    for name, (description, schema, side_effect) in TOOLS.items():
        catalog.add_raw_tool({"name": name, "agent": "files", "description": description,
                              "input_schema": schema, "side_effect": side_effect,
                              "environment": "test"}, source="test")
    return catalog


def _spec(name: str) -> ToolSpec:
    return _catalog().tools[f"files/{name}"]


def _ranked(text: str, names: list[str]) -> list[str]:
    catalog = _catalog()
    lexicon = Lexicon.default()
    sub = RuleIntentParser(lexicon).parse(text)["sub_intents"][0]
    candidates = [{"tool_id": f"files/{n}", "agent": "files", "score": 1.0, "call_name": n}
                  for n in names]
    scored = score_candidates(sub, candidates, [], catalog, lexicon, None,
                              embedder=default_embedder())
    return [c.spec.name for c in scored]


def test_a_write_said_with_its_verb_and_every_value_is_chosen_over_a_read() -> None:
    text = "Save the text 'hello world' to notes/hello.txt"
    assert writes_as_said(text, _spec("write_file"), default_embedder())
    assert _ranked(text, ["read_file", "write_file"])[0] == "write_file"
    assert _ranked("Make a new folder /srv/photos", ["read_file", "create_directory"])[0] \
        == "create_directory"


def test_a_write_is_never_chosen_without_its_values_or_without_a_model() -> None:
    embedder = default_embedder()
    assert not writes_as_said("Save it", _spec("write_file"), embedder)
    assert not writes_as_said("order a coffee", _spec("create_calendar_event"), embedder)
    assert not writes_as_said("Save the text 'hi' to a.txt", _spec("write_file"), None)
    assert "create_calendar_event" not in _ranked("order a coffee", ["create_calendar_event"])


def test_each_path_of_a_move_takes_its_end_from_the_word_before_it() -> None:
    # The server lists "destination" first: the order of the schema is no cue.
    schema = {"type": "object", "properties": {"destination": PATH, "source": PATH},
              "required": ["source", "destination"]}
    text = "Move /srv/notes.txt to /srv/docs/notes.txt"
    assert bind_schema(text, schema, spans=extract_spans(text)).sets == [
        {"source": "/srv/notes.txt", "destination": "/srv/docs/notes.txt"}
    ]


def test_a_lower_case_name_after_named_or_called_is_a_value() -> None:
    schema = {"type": "object", "properties": {"path": PATH, "pattern": {"type": "string"}},
              "required": ["path", "pattern"]}
    for text in ("Find files named readme under /srv", "find files called readme in /srv"):
        assert bind_schema(text, schema, spans=extract_spans(text)).sets == [
            {"path": "/srv", "pattern": "readme"}
        ]
    # "called" as a verb names nothing.
    assert all(s.kind != "name" for s in extract_spans("He called on me twice"))


def test_paths_urls_and_emails_say_their_kind_to_retrieval() -> None:
    assert value_kind_words("What's in /srv/notes.txt?") == ["file"]
    assert value_kind_words("list /srv/docs") == ["path"]
    assert value_kind_words("fetch https://example.com and mail bob@example.com") == [
        "url", "email"
    ]
    assert value_kind_words("what time is it") == []


def test_a_question_for_the_things_of_a_kind_lists_them() -> None:
    parser = RuleIntentParser(Lexicon.default())

    def operation(text: str) -> str:
        return str(parser.parse(text)["sub_intents"][0]["operation"])

    assert operation("What files are in the docs folder /srv/docs?") == "list"
    assert operation("Which rooms are free tomorrow?") == "list"
    assert operation("What is the status of the job?") != "list"
    assert operation("What news is there today?") != "list"  # no plural: "news is"
    assert operation("What address was used?") != "list"
    ranked = _ranked("What files are in /srv/docs?", ["read_file", "list_directory"])
    assert ranked[0] == "list_directory"


def test_a_word_after_an_article_is_a_noun_not_the_verb() -> None:
    parser = RuleIntentParser(Lexicon.default())

    def operation(text: str) -> str:
        return str(parser.parse(text)["sub_intents"][0]["operation"])

    # "file" is a verb of the lexicon ("file a complaint"); after "the" it is the noun.
    assert operation("Print the file /srv/notes.txt") == "get"
    assert operation("Summarize the file /srv/notes.txt") != "create"
    # A participle after an article still says what is asked ("an estimated value").
    assert operation("Could you provide an estimated value for a villa in Los Angeles?") \
        == "get"
    assert operation("I need a new account") == "create"


def test_a_question_of_what_happened_reads() -> None:
    parser = RuleIntentParser(Lexicon.default())

    def operation(text: str) -> str:
        return str(parser.parse(text)["sub_intents"][0]["operation"])

    # Read as "update", this question once reset a git index through the git MCP server.
    assert operation("What changed in /srv/repo that isn't staged yet?") == "get"
    assert operation("Who cancelled order 5?") == "get"
    assert operation("Change the price of product 5 to 10") == "update"


def test_a_tool_the_request_fills_beats_one_that_must_ask() -> None:
    from tests.unit_tests.test_rule_planner_schema import calls, plan_catalog

    catalog = Catalog()
    repo = {"type": "string"}
    for name, description, properties, required in [
        ("git_show", "Shows the contents of a commit", {"repo_path": repo, "revision": repo},
         ["repo_path", "revision"]),
        ("git_log", "Shows the commit logs",
         {"repo_path": repo, "max_count": {"type": "integer", "default": 10}}, ["repo_path"]),
    ]:
        catalog.add_raw_tool({"name": name, "agent": "git", "description": description,
                              "side_effect": False, "environment": "test",
                              "input_schema": {"type": "object", "properties": properties,
                                               "required": required}}, source="test")
    # "show" is git_show's verb, but only git_log can be called with what was said.
    draft = plan_catalog("Show the last 3 commits in /srv/repo", catalog, default_embedder())
    assert draft.question is None
    assert calls(draft) == [("git_log", {"repo_path": "/srv/repo", "max_count": 3})]


def test_a_paths_own_words_stay_out_of_the_retrieval_query() -> None:
    from nodes.retrieve import query_for
    from stores.language.spans_text import without_paths

    text = "What files are in the docs folder /tmp/pytest-266/first-hour0/root/docs?"
    assert without_paths(text) == "What files are in the docs folder ?"
    assert without_paths("fetch https://github.com/a/b") == "fetch https://github.com/a/b"
    lexicon = Lexicon.default()
    sub = RuleIntentParser(lexicon).parse(text)["sub_intents"][0]
    assert not {"tmp", "pytest", "hour", "first", "root"} & set(sub["keywords"])
    query = query_for(sub, False, lexicon)
    assert "pytest" not in query and "path" in query
    assert "pytest" not in query_for(sub, True, lexicon)


def test_a_condition_before_a_question_is_what_the_question_asks_from() -> None:
    parser = RuleIntentParser(Lexicon.default())
    subs = parser.parse("If it's 9:30 in London, what time is it in Tokyo?")["sub_intents"]
    assert len(subs) == 1 and "9:30" in subs[0]["text"] and "Tokyo" in subs[0]["text"]
    # A condition before an action is not folded: nothing here runs an action conditionally.
    assert len(parser.parse("If the order is paid, ship it")["sub_intents"]) == 2


def _git_catalog() -> Catalog:
    catalog = Catalog()
    repo = {"type": "string"}
    for name, description, properties, required, effect in [
        ("git_show", "Shows the contents of a commit", {"repo_path": repo, "revision": repo},
         ["repo_path", "revision"], False),
        ("git_log", "Shows the commit logs",
         {"repo_path": repo, "max_count": {"type": "integer", "default": 10}}, ["repo_path"],
         False),
        ("git_commit", "Records changes to the repository",
         {"repo_path": repo, "message": repo}, ["repo_path", "message"], None),
    ]:
        catalog.add_raw_tool({"name": name, "agent": "git", "description": description,
                              "side_effect": effect, "environment": "test",
                              "input_schema": {"type": "object", "properties": properties,
                                               "required": required}}, source="test")
    return catalog


def test_a_tool_named_by_the_request_beats_one_whose_verb_nobody_said() -> None:
    from tests.unit_tests.test_rule_planner_schema import calls, plan_catalog

    # No verb: "get" is the default, and git_show's "show" only stands for it; "log" is said.
    draft = plan_catalog("git log of /srv/repo", _git_catalog(), default_embedder())
    assert calls(draft) == [("git_log", {"repo_path": "/srv/repo"})]


def test_a_value_said_counts_once_whatever_parameter_takes_it() -> None:
    from nodes.planning.bound_choices import consumed_values

    def call(**args: str) -> Any:
        return {"role": "core", "args": {k: {"value": v, "origin": f"span:{k}"}
                                         for k, v in args.items()}}

    # "'fix typo'" is git_show's revision or git_commit's message: one value of the user's,
    # so a commit that uses it ignores nothing another candidate would use.
    show, _ = consumed_values([call(repo_path="/srv/repo", revision="fix typo")])
    commit, _ = consumed_values([call(repo_path="/srv/repo", message="fix typo")])
    assert show == commit and len(commit) == 2


def test_a_thing_named_and_where_it_goes_is_one_path() -> None:
    text = "Create a directory called backups in /srv/root"
    assert bind_schema(text, READ, spans=extract_spans(text)).sets == [
        {"path": "/srv/root/backups"}
    ]
    text = "Create a file called todo.txt in /tmp"
    assert bind_schema(text, READ, spans=extract_spans(text)).sets == [{"path": "/tmp/todo.txt"}]
    # A name and a parent of their own stay apart.
    schema = {"type": "object", "properties": {"name": PATH, "parent": {
        "type": "string", "description": "parent directory path"}}, "required": ["name", "parent"]}
    text = "Create a folder called reports inside /home/ana/docs"
    assert bind_schema(text, schema, spans=extract_spans(text)).sets == [
        {"name": "reports", "parent": "/home/ana/docs"}
    ]
