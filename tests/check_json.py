"""check_json.py TABLE JSON INDENT [EXPR ...] — `pillar run/mesh info --json` against the table.

TABLE holds the command's table (run without --json), JSON its --json output. Checks that JSON
is one JSON object; that every line of the table indented by INDENT blanks ("key   text") has a
member of that key (blanks and other signs in a key as '_') whose text, or one of whose texts,
equals the line's text, except for the members named in VARY (timings and peak memory differ
between two runs);
then that each Python expression EXPR holds with `d` the object. Exit 0 or 1 with the reason."""
import json
import re
import sys

VARY = {"time", "moved", "kernels", "link", "link_use", "backend", "memory"}


def table_members(path, indent):
    """The table's key lines as (key, text); continuation lines appended to the text (a blank
    line ends them: a table of columns follows)."""
    out, cont = [], False
    for line in open(path):
        line = line.rstrip()
        ind = len(line) - len(line.lstrip(" "))
        body = line[ind:]
        cont = cont and bool(body)
        if not body:
            continue
        if ind > indent:
            if cont:
                out[-1][1] += " " + body
        elif ind == indent and " " in body and not body.startswith("*"):
            m = re.match(r"(\S+(?: \S+)?)  +(.*)$", body)
            key, text = (m.group(1), m.group(2)) if m else body.split(" ", 1)
            out.append([re.sub(r"[^A-Za-z0-9]", "_", key), text.strip()])
            cont = True
    return out


def main():
    table, js, indent = sys.argv[1], sys.argv[2], int(sys.argv[3])
    d = json.load(open(js))
    if not isinstance(d, dict) or "ok" not in d or "values" not in d:
        sys.exit(f"not a report object: {d!r}")
    rows = table_members(table, indent)
    if not rows:
        sys.exit("the table has no key lines")
    for key, text in rows:
        if key not in d:
            sys.exit(f"the table's line '{key}' is not in the JSON (members: {list(d)})")
        got = d[key] if isinstance(d[key], list) else [d[key]]
        if key not in VARY and text not in got:
            sys.exit(f"{key}: the table says {text!r}, the JSON {got!r}")
    for expr in sys.argv[4:]:
        if not eval(expr, {"d": d}):
            sys.exit(f"does not hold: {expr} (in {json.dumps(d)})")
    print(f"ok: {len(rows)} lines of the table in the JSON, {len(sys.argv) - 4} checks hold")


main()
