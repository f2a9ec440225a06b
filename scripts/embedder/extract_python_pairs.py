"""Extracts (docstring, function source) pairs from Python files, for training loci's
offline static embedder. Usage: python3 extract_python_pairs.py ROOT... > pairs.jsonl

Only the first paragraph of each docstring is kept (what a person would search for);
the function source has its docstring removed so the pair is not trivially identical.
"""
import ast
import json
import os
import sys

MAX_CODE_CHARS = 4000


def first_paragraph(docstring: str) -> str:
    text = docstring.strip().split("\n\n")[0]
    return " ".join(text.split())


def strip_docstring(source_lines, node):
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
        start, end = body[0].lineno - 1, body[0].end_lineno
        lines = source_lines[node.lineno - 1 : node.end_lineno]
        offset = node.lineno - 1
        return "\n".join(lines[: start - offset] + lines[end - offset :])
    return "\n".join(source_lines[node.lineno - 1 : node.end_lineno])


def pairs_of(path):
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        tree = ast.parse(source)
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError):
        return
    lines = source.split("\n")
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        docstring = ast.get_docstring(node)
        if not docstring:
            continue
        query = first_paragraph(docstring)
        if len(query) < 12 or len(query) > 600:
            continue
        code = strip_docstring(lines, node)
        if len(code) > MAX_CODE_CHARS or code.count("\n") < 1:
            continue
        yield {"query": query, "document": code, "source": "python"}


def main():
    seen = set()
    for root in sys.argv[1:]:
        for directory, _, files in os.walk(root):
            if "/test" in directory or "/tests" in directory:
                continue
            for name in files:
                if not name.endswith(".py"):
                    continue
                for pair in pairs_of(os.path.join(directory, name)):
                    key = pair["document"]
                    if key in seen:
                        continue
                    seen.add(key)
                    sys.stdout.write(json.dumps(pair) + "\n")


if __name__ == "__main__":
    main()
