"""readme_examples.py: README.md's examples as scripts a test can run.

    python3 readme_examples.py README.md OUT_DIR PROJECT_DIR

Writes, into OUT_DIR:
  - files/NAME for every fenced block right after a `<!-- file: NAME -->`
    line (the example's own files: a model, a tensorviz.toml);
  - block_NNN.sh for every ```sh block, one command a line, rewritten by the
    rules below; its first line is a comment naming the README line;
  - skipped.txt: each command left out and the rule that left it out.
Exit 2 with a message for a README that cannot be read this way (an
unclosed fence, a file marker not followed by a block, no sh block at all).

Rules (each is named in skipped.txt or the rewritten line):
  - `tools/demo` and `tools/test` are not run here: they bootstrap the whole
    tree (minutes to tens of minutes) and tools/test runs this very test;
    tests/demo/test_demo.sh runs tools/demo against the built tree.
  - `tvis open ...` serves until Ctrl-C: it becomes `serve_check tvis open
    --no-browser ...`, which the test defines (waits for the URL, reads the
    run list, stops it with SIGINT, expects exit 0).
  - `tvis mcp ...` serves on stdio: it becomes `mcp_check tvis mcp ...`
    (initialize and tools/list over stdin, then end of input).
  - `~/project` (the remote project of the examples) is PROJECT_DIR (an
    absolute path without quotes or spaces), a folder the test fills with
    runs; the hosts gpu-box and login-node are
    the test's sshd (tests/e2e/sshd.sh), reached through $SSH_CONFIG.
"""
import os
import re
import shlex
import sys

SKIPPED = {
    "tools/demo": "bootstraps the tree; tests/demo/test_demo.sh runs it against a built tree",
    "tools/test": "bootstraps the tree and runs every suite, this one included",
}
FILE_MARKER = re.compile(r"^<!--\s*file:\s*([A-Za-z0-9_./-]+)\s*-->\s*$")
FENCE = re.compile(r"^```(\S*)\s*$")


def fail(message):
    sys.stderr.write(f"readme_examples: {message}\n")
    sys.exit(2)


def blocks(lines):
    """(language, first line number, body lines, file name or None) per fenced block."""
    pending_file = None
    i = 0
    while i < len(lines):
        marker = FILE_MARKER.match(lines[i])
        if marker:
            pending_file = (marker.group(1), i + 1)
            i += 1
            continue
        fence = FENCE.match(lines[i])
        if not fence:
            if lines[i].strip() and pending_file:
                fail(f"line {pending_file[1]}: the file marker for {pending_file[0]} is not followed by a block")
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        if end == len(lines):
            fail(f"line {i + 1}: the fenced block is not closed")
        yield fence.group(1), start + 1, lines[start:end], pending_file[0] if pending_file else None
        pending_file = None
        i = end + 1


def rewrite(command, project):
    """The command as the test runs it, or None with the rule that skips it."""
    words = command.split()
    if not words:
        return command, None
    if words[0] in SKIPPED:
        return None, SKIPPED[words[0]]
    command = command.replace("~/project", project)
    if words[:2] == ["tvis", "open"]:
        return "serve_check tvis open --no-browser " + command.split(None, 2)[2], None
    if words[:2] == ["tvis", "mcp"]:
        return "mcp_check " + command, None
    return command, None


def main():
    if len(sys.argv) != 4:
        fail("usage: readme_examples.py README.md OUT_DIR PROJECT_DIR")
    readme, out, project = sys.argv[1:4]
    if not re.fullmatch(r"/[A-Za-z0-9_./-]+", project):
        fail(f"PROJECT_DIR must be an absolute path of plain characters, not {project!r}")
    try:
        with open(readme, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail(f"cannot read {readme}: {e.strerror}")
    os.makedirs(os.path.join(out, "files"), exist_ok=True)
    skipped, scripts = [], 0
    for language, first_line, body, file_name in blocks(lines):
        if file_name:
            with open(os.path.join(out, "files", file_name), "w", encoding="utf-8") as f:
                f.write("\n".join(body) + "\n")
            continue
        if language != "sh":
            continue
        script = [f"# README.md line {first_line}"]
        for offset, line in enumerate(body):
            command, why = rewrite(line, project)
            if command is None:
                skipped.append(f"README.md:{first_line + offset}: {line.strip()}  -- not run: {why}")
                continue
            script.append("echo " + shlex.quote(f"+ README.md:{first_line + offset}: {line.strip()}") + " >&2")
            script.append(command)
        scripts += 1
        with open(os.path.join(out, f"block_{scripts:03d}.sh"), "w", encoding="utf-8") as f:
            f.write("\n".join(script) + "\n")
    if scripts == 0:
        fail(f"{readme} has no ```sh block")
    with open(os.path.join(out, "skipped.txt"), "w", encoding="utf-8") as f:
        f.write("".join(s + "\n" for s in skipped))


if __name__ == "__main__":
    main()
