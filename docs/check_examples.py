#!/usr/bin/env python3
"""Runs every fenced example of README.md and docs/*.md against a fresh emulator, and fails when one fails.

Run it through `docs/check` (which picks the binary and a Python with firebase-admin and pytest).
Each markdown file gets its own emulator on free ports (`serve --port 0`, the proxy on, a private
state directory) and its own working directory; its examples run in order, so a page can create a
device in one example and use it in the next. The docs are written for an emulator started with
its defaults (`fcm-emu serve`), and this checker rewrites the addresses to the fresh one's:
`127.0.0.1:9092` and `localhost:9092` (HTTP), `:9093` (TLS), `:9094` (the proxy), `:5235` (XMPP), and `googleapis.com:9093`.

How each fence is checked, by its language:
- `sh`: run by bash (`set -euo pipefail`) in the page's session (shell variables carry over from
  one example to the next). `curl` is wrapped: an answer of 400 or more fails the example unless a
  comment in the example shows that error (`# {"error": {"code": 404, …` or `# HTTP 404`), in the
  same order, and an answer shown as JSON in such a comment must have the real answer's fields and
  types (`…`, `{…}` and `[…]` stand for any value, `, …` for more fields). `fcm-emu serve …` is started on free ports with the example's flags, waited for
  until ready, and stopped with SIGTERM (it must exit 0); `fcm-emu credentials` and `fcm-emu env`
  without `--emulator` are pointed at the page's emulator (the default address is the one rewritten).
- `python`: a file with `def test_` runs under pytest with fcm-emu's plugin (which starts its own
  emulator from $FCM_EMU_BIN); any other snippet runs as a script in the page's session, with the
  exported variables.
- `yaml`: a scenario (`fcm-emu run`), unless marked `<!-- as: config -->` (a `serve --config`
  file, started and stopped) or `<!-- as: faults -->` (a `serve --faults` file).
- `json`: a documented answer. `<!-- response-of: SHELL -->` before it runs SHELL in the session
  and checks that the real answer has the same fields, recursively, with the same JSON types.
- `js`, `go`, `java`: `<!-- same-as: PATH -->` names the test file of clients/ that holds this
  code (each code line of the example, comments aside, in that file in the same order); the
  clients' own `run-tests` run those files in CI.
- `text` (or no language): output shown to the reader, not an example.
Every relative link must name a file that exists (and a heading of it, for an `#anchor`).
A table right after `<!-- event-kinds-table -->` must name every event kind the emulator logs (it
lists them when asked for an unknown one), and no other.
Before any fence, `<!-- not-run: REASON -->` skips it (the report counts and lists the reasons),
`<!-- setup: SHELL -->` runs SHELL in the session first, visibly to anyone who reads the source,
and `<!-- save-as: NAME -->` also writes the example to NAME in the page's working directory, for
a later example to use (`fcm-emu run NAME`).
An example in one of the languages above with no way to check it is an error: mark it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(\s*)```([A-Za-z0-9_+-]*)\s*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*([a-z-]+):\s*(.*?)\s*-->\s*$")
OUTPUT_LANGS = {"", "text", "console"}
RUN_LANGS = {"sh", "bash", "python", "yaml", "json", "js", "go", "java"}
EXPECTED_ERROR = re.compile(r'^\s*#.*?(?:"code":\s*|HTTP\s+)(\d{3})\b')


@dataclass
class Example:
    path: Path
    line: int
    lang: str
    text: str
    directives: Dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def parse(path: Path) -> List[Example]:
    """The fenced blocks of a markdown file, each with the directives in the comments right above it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    examples: List[Example] = []
    pending: Dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        d = DIRECTIVE.match(line)
        if d:
            pending[d.group(1)] = d.group(2)
            i += 1
            continue
        m = FENCE.match(line)
        if not m:
            if line.strip():
                pending = {}
            i += 1
            continue
        indent, lang = m.group(1), m.group(2).lower()
        body: List[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        if j == len(lines):
            raise SystemExit(f"{path}:{i + 1}: a fence that never closes")
        examples.append(Example(path, i + 1, lang, "\n".join(body) + "\n", pending))
        pending = {}
        i = j + 1
    return examples


def _die_with_the_checker() -> None:
    """Runs in the emulator's child before exec: the kernel sends it SIGTERM when the checker
    dies, however it dies (prctl PR_SET_PDEATHSIG, Linux), so an interrupted check leaves no
    emulator behind."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Emulator:
    """A fresh `fcm-emu serve` on free ports, for one page."""

    def __init__(self, binary: str, work: Path):
        self.state = work / "emulator-state"
        self.ready = work / "emulator-ready.json"
        self.log = open(work / "emulator.log", "wb")
        self.proc = subprocess.Popen(
            [binary, "serve", "--port", "0", "--set", "proxyPort=0", "--set", f"stateDir={self.state}",
             "--ready-file", str(self.ready), "--log-level", "warning"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_die_with_the_checker)
        deadline = time.monotonic() + 60
        while not self.ready.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the emulator did not start; its log: {work / 'emulator.log'}")
            time.sleep(0.05)
        while True:
            try:
                self.info = json.loads(self.ready.read_text())
                break
            except ValueError:
                time.sleep(0.05)

    def rewrite(self, text: str) -> str:
        http = self.info["http"]["port"]
        https = self.info["https"]["port"]
        proxy = self.info["proxy"]["port"]
        xmpp = self.info["xmpp"]["ports"][0]
        for host in ("127.0.0.1", "localhost"):
            text = text.replace(f"{host}:9092", f"127.0.0.1:{http}")
            text = text.replace(f"{host}:9093", f"127.0.0.1:{https}")
            text = text.replace(f"{host}:9094", f"127.0.0.1:{proxy}")
            text = text.replace(f"{host}:5235", f"127.0.0.1:{xmpp}")
        # Google's names resolved to the emulator (curl --resolve) on its TLS port.
        return text.replace("googleapis.com:9093", f"googleapis.com:{https}")

    def environment(self) -> Dict[str, str]:
        return {
            "FCM_EMU_URL": self.info["http"]["url"],
            "FCM_EMU_STATE_DIR": str(self.state),
        }

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


# The wrappers every sh example runs with (see the module's docstring).
PRELUDE = r'''
__fcm_docs_statuses="$FCM_DOCS_SESSION/statuses"
curl() {
    local err rc=0 body
    err=$(mktemp)
    body="$FCM_DOCS_SESSION/body.$(wc -l <"$__fcm_docs_statuses" | tr -d ' ')"
    command curl --write-out '%{stderr}FCM-DOCS-STATUS %{http_code}\n' "$@" 2>"$err" >"$body" || rc=$?
    cat "$body"
    grep -a '^FCM-DOCS-STATUS ' "$err" | cut -d' ' -f2 >>"$__fcm_docs_statuses" || true
    grep -av '^FCM-DOCS-STATUS ' "$err" >&2 || true
    rm -f "$err"
    # A stream read for a bounded time (-m/--max-time) ends with curl's timeout, as meant.
    if [ "$rc" = 28 ] && printf '%s\n' "$@" | grep -Eqx -- '-m|--max-time'; then rc=0; fi
    return $rc
}
__fcm_docs_serve() {
    local args=() a ready="" state rc=0 next=""
    state=$(mktemp -d "$FCM_DOCS_SESSION/serve-state.XXXXXX")
    for a in "$@"; do
        case "$next" in ready) ready=$a ;; port) a=0 ;; esac
        next=""
        case "$a" in
            port=[0-9]*|tlsPort=[0-9]*|xmppPort=[0-9]*|xmppTestPort=[0-9]*|proxyPort=[0-9]*) a="${a%%=*}=0" ;;
            stateDir=*) a="stateDir=$state" ;;
            --ready-file) next=ready ;;
            --port) next=port ;;
        esac
        args+=("$a")
    done
    if [ -z "$ready" ]; then
        ready=$(mktemp -u "$FCM_DOCS_SESSION/serve-ready.XXXXXX")
        args+=(--ready-file "$ready")
    fi
    command fcm-emu serve --port 0 --set "stateDir=$state" "${args[@]}" --log-level warning &
    local pid=$!
    local tries=0
    until [ -s "$ready" ]; do
        if ! kill -0 "$pid" 2>/dev/null || [ $tries -ge 600 ]; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || rc=$?
            echo "fcm-emu serve $*: never became ready (exit $rc)" >&2
            return $(( rc == 0 ? 1 : rc ))
        fi
        sleep 0.1; tries=$((tries + 1))
    done
    command fcm-emu health --ready-file "$ready" --timeout 60s --quiet
    kill -TERM "$pid"
    wait "$pid" || rc=$?
    [ "$rc" = 0 ] || echo "fcm-emu serve $*: exited $rc after SIGTERM" >&2
    return $rc
}
fcm-emu() {
    case "${1:-}" in
        serve) shift; __fcm_docs_serve "$@" ;;
        credentials|env)
            local sub=$1; shift
            if printf '%s\n' "$@" | grep -q -- '^--emulator'; then command fcm-emu "$sub" "$@"
            else command fcm-emu "$sub" --emulator "$FCM_EMU_URL" "$@"; fi ;;
        *) command fcm-emu "$@" ;;
    esac
}
'''


class Page:
    """One markdown file's session: its emulator, working directory and shell variables."""

    def __init__(self, checker: "Checker", path: Path):
        self.checker = checker
        self.path = path
        self.work = Path(tempfile.mkdtemp(prefix="fcm-docs-", dir=checker.tmp))
        self.emulator: Optional[Emulator] = None
        (self.work / "env.sh").write_text("")

    def start(self) -> Emulator:
        if self.emulator is None:
            self.emulator = Emulator(self.checker.binary, self.work)
        return self.emulator

    def env(self) -> Dict[str, str]:
        env = dict(os.environ)
        env.update(self.start().environment())
        env["PATH"] = os.pathsep.join([str(Path(self.checker.binary).parent), str(Path(self.checker.python).parent),
                                       env.get("PATH", "")])
        env["FCM_DOCS_SESSION"] = str(self.work)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "clients" / "python"), env.get("PYTHONPATH", "")])
        env["FCM_EMU_BIN"] = self.checker.binary
        env.pop("FCM_EMU_CONTROL_API", None)
        return env

    def shell(self, script: str, timeout: int = 60) -> subprocess.CompletedProcess:
        """Runs script in the session: the page's variables before, its new ones kept after."""
        emulator = self.start()
        (self.work / "statuses").write_text("")
        for old_body in self.work.glob("body.*"):
            old_body.unlink()
        body = emulator.rewrite(script)
        wrapped = (
            "set -euo pipefail\n" + PRELUDE + "__fcm_docs_before=\" $(compgen -v | tr '\\n' ' ') \"\n"
            'source "$FCM_DOCS_SESSION/env.sh"\n' + body + "\n"
            "wait\n"
            'for __v in $(compgen -v); do case "$__fcm_docs_before" in *" $__v "*) ;; '
            '*) declare -p "$__v" ;; esac; done >"$FCM_DOCS_SESSION/env.next"\n'
            'mv "$FCM_DOCS_SESSION/env.next" "$FCM_DOCS_SESSION/env.sh"\n')
        script_path = self.work / "example.sh"
        script_path.write_text(wrapped)
        return run(["bash", str(script_path)], cwd=self.work, env=self.env(), timeout=timeout)

    def statuses(self) -> List[int]:
        return [int(s) for s in (self.work / "statuses").read_text().split() if s.isdigit()]

    def close(self) -> None:
        if self.emulator:
            self.emulator.stop()


def run(cmd: List[str], cwd: Path, env: Dict[str, str], timeout: int) -> subprocess.CompletedProcess:
    """Runs cmd in a process group of its own, so that a timeout ends everything it started."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise subprocess.TimeoutExpired(cmd, timeout, output=out, stderr=err)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything the example left running in the background
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def shown_answers(text: str, page: "Page"):
    """Compares each answer an example shows in a comment (`# {...}` under a curl) with the real one.

    The comment's JSON may leave values out as `…` (any value) and fields as `, …` (the answer may
    have more). Returns the differences, and how many answers were compared."""
    calls = 0
    shown = []  # (index of the curl call it follows, comment text)
    comment: List[str] = []
    for line in text.splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip())
            continue
        if comment and calls:
            shown.append((calls - 1, " ".join(comment)))
        comment = []
        calls += len(re.findall(r"(?:^|[;&|(]\s*|\s)curl\s", stripped.split(" #", 1)[0]))
    statuses = page.statuses()
    if calls != len(statuses):
        return [], 0  # a loop or a condition: calls do not line up with the text
    problems: List[str] = []
    compared = 0
    for index, comment_text in shown:
        candidate = re.sub(r"^HTTP \d{3}\s*(\([^)]*\))?\s*", "", comment_text)
        if not candidate.startswith("{"):
            continue
        open_ended = ", …" in candidate or ",…" in candidate
        candidate = re.sub(r",\s*…", "", candidate)
        candidate = re.sub(r"\{\s*…\s*\}|\[\s*…\s*\]", "null", candidate)
        candidate = re.sub(r"(?<![\w\"])…(?![\w\"])", "null", candidate)
        try:
            doc = json.loads(candidate)
        except ValueError:
            continue
        body = page.work / f"body.{index}"
        try:
            real = json.loads(body.read_text())
        except (OSError, ValueError):
            problems.append(f"the answer of curl call {index + 1} is not JSON, the example shows JSON")
            continue
        compared += 1
        problems += [f"call {index + 1}: {p}" for p in same_shape(doc, real, open_ended=open_ended)]
    return problems, compared


def same_shape(doc, real, where: str = "$", open_ended: bool = False) -> List[str]:
    """Where the documented JSON differs from the real answer in its fields or their JSON types."""
    def kind(v):
        return "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__
    if doc is None:
        return []  # shown as …: any value
    if kind(doc) != kind(real):
        return [f"{where}: documented {kind(doc)}, answered {kind(real)}"]
    problems: List[str] = []
    if isinstance(doc, dict):
        for k in doc.keys() - real.keys():
            problems.append(f"{where}.{k}: documented, not in the answer")
        if not open_ended:
            for k in real.keys() - doc.keys():
                problems.append(f"{where}.{k}: in the answer, not documented")
        for k in doc.keys() & real.keys():
            problems += same_shape(doc[k], real[k], f"{where}.{k}", open_ended)
    elif isinstance(doc, list) and doc and real:
        problems += same_shape(doc[0], real[0], f"{where}[0]", open_ended)
    return problems


def anchors(path: Path) -> List[str]:
    """GitHub's anchors for the headings of a markdown file: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    out = []
    for heading in re.findall(r"^#+\s+(.*)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.append(slug)
    return out


def code_lines(text: str, comment: str) -> List[str]:
    out = []
    for line in text.splitlines():
        code = line.split(comment, 1)[0].strip() if comment else line.strip()
        if code:
            out.append(code)
    return out


class Checker:
    def __init__(self, binary: str, python: str, files: List[Path]):
        self.binary = binary
        self.python = python
        self.files = files
        self.tmp = tempfile.mkdtemp(prefix="fcm-docs-check-")
        self.passed = 0
        self.failures: List[str] = []
        self.skipped: List[str] = []
        self.outputs = 0
        self.mirrored: List[str] = []

    def fail(self, ex: Example, why: str, output: str = "") -> None:
        tail = "\n".join(output.strip().splitlines()[-25:])
        self.failures.append(f"FAIL {ex.where} ({ex.lang}): {why}" + (f"\n    " + tail.replace("\n", "\n    ") if tail else ""))
        print(self.failures[-1], flush=True)

    def ok(self, ex: Example, what: str) -> None:
        self.passed += 1
        print(f"ok   {ex.where} ({what})", flush=True)

    def run(self) -> int:
        for path in self.files:
            page = Page(self, path)
            try:
                for ex in parse(path):
                    self.check(page, ex)
                self.event_kinds(page)
                self.links(path)
            finally:
                page.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
        print()
        print(f"docs: {self.passed} examples passed, {len(self.failures)} failed, {len(self.skipped)} not run, "
              f"{self.outputs} outputs shown (not examples)")
        if self.mirrored:
            print("checked by the clients' own run-tests (the example is in that test file):")
            for m in self.mirrored:
                print(f"  {m}")
        if self.skipped:
            print("not run:")
            for s in self.skipped:
                print(f"  {s}")
        for f in self.failures:
            print(f, file=sys.stderr)
        return 1 if self.failures else 0

    def links(self, path: Path) -> None:
        """Every relative link of the page names a file that exists, and a heading of it when it has an #anchor."""
        text = path.read_text(encoding="utf-8")
        prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        broken = []
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                broken.append(target)
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(target)
        ex = Example(path, 1, "links", "")
        if broken:
            self.fail(ex, f"links to nothing: {', '.join(broken)}")
        else:
            self.ok(ex, "links")

    def event_kinds(self, page: Page) -> None:
        """The table after `<!-- event-kinds-table -->` names every kind the emulator logs, and no other."""
        lines = page.path.read_text(encoding="utf-8").splitlines()
        starts = [i for i, line in enumerate(lines) if line.strip().startswith("<!-- event-kinds-table")]
        for start in starts:
            documented: List[str] = []
            for line in lines[start + 1:]:
                if not line.startswith("|"):
                    if documented or not line.strip():
                        break
                    continue
                documented += re.findall(r"`([A-Za-z]+)`", line.split("|")[1])
            ex = Example(page.path, start + 1, "kinds", "")
            url = page.start().info["controlApi"] + "/events?kind=%3F"
            import urllib.error
            import urllib.request
            try:
                urllib.request.urlopen(url, timeout=10)
                self.fail(ex, "the emulator took kind=? without naming its kinds")
                return
            except urllib.error.HTTPError as e:
                message = json.load(e)["error"]["message"]
            known = [k.strip() for k in message.split("expected:", 1)[-1].split(",")]
            missing = [k for k in known if k not in documented]
            unknown = [k for k in documented if k not in known]
            if missing or unknown:
                self.fail(ex, f"event kinds the table lacks: {missing}; rows the emulator does not log: {unknown}")
            else:
                self.ok(ex, f"event kinds table, all {len(known)}")

    def check(self, page: Page, ex: Example) -> None:
        if "not-run" in ex.directives:
            self.skipped.append(f"{ex.where} ({ex.lang or 'text'}): {ex.directives['not-run']}")
            return
        if ex.lang in OUTPUT_LANGS:
            self.outputs += 1
            return
        if ex.lang not in RUN_LANGS:
            self.fail(ex, f"no way to check a '{ex.lang}' example: mark it <!-- not-run: reason -->")
            return
        if "save-as" in ex.directives:
            (page.work / ex.directives["save-as"]).write_text(page.start().rewrite(ex.text))
        if "setup" in ex.directives:
            done = page.shell(ex.directives["setup"])
            if done.returncode != 0:
                self.fail(ex, f"its setup failed: {ex.directives['setup']}", done.stdout + done.stderr)
                return
        handler = {"sh": self.sh, "bash": self.sh, "python": self.python_example, "yaml": self.yaml,
                   "json": self.json, "js": self.mirror, "go": self.mirror, "java": self.mirror}[ex.lang]
        try:
            handler(page, ex)
        except subprocess.TimeoutExpired as e:
            self.fail(ex, f"timed out after {e.timeout} s", (e.output or "") + (e.stderr or ""))

    def sh(self, page: Page, ex: Example) -> None:
        done = page.shell(ex.text)
        output = done.stdout + done.stderr
        if done.returncode != 0:
            self.fail(ex, f"exited {done.returncode}", output)
            return
        expected = [int(m.group(1)) for m in map(EXPECTED_ERROR.match, ex.text.splitlines()) if m]
        errors = [s for s in page.statuses() if s >= 400]
        if errors != expected:
            self.fail(ex, f"HTTP errors answered {errors}, the example shows {expected}", output)
            return
        problems, compared = shown_answers(ex.text, page)
        if problems:
            self.fail(ex, "an answer differs from the one shown", "\n".join(problems) + "\n" + output)
            return
        self.ok(ex, "sh" + (f", errors {errors} as shown" if errors else "") + (f", {compared} answers as shown" if compared else ""))

    def python_example(self, page: Page, ex: Example) -> None:
        emulator = page.start()
        name = "test_docs_example.py" if re.search(r"^def test_", ex.text, re.M) else "docs_example.py"
        target = page.work / name
        target.write_text(emulator.rewrite(ex.text))
        if name.startswith("test_"):
            cmd = [self.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "fcm_emu.pytest_plugin",
                   "-W", "error::DeprecationWarning:test_docs_example", "--rootdir", str(page.work), str(target)]
        else:
            cmd = ["bash", "-c", 'set -a; source "$FCM_DOCS_SESSION/env.sh"; set +a; exec "$0" -W error::DeprecationWarning:__main__ "$1"',
                   self.python, str(target)]
        done = run(cmd, cwd=page.work, env=page.env(), timeout=180)
        if done.returncode != 0:
            self.fail(ex, f"exited {done.returncode}", done.stdout + done.stderr)
        else:
            self.ok(ex, "pytest" if name.startswith("test_") else "python")

    def yaml(self, page: Page, ex: Example) -> None:
        as_ = ex.directives.get("as", "scenario")
        target = page.work / f"example-{ex.line}.yaml"
        target.write_text(page.start().rewrite(ex.text))
        if as_ == "scenario":
            script = f"command fcm-emu run {shlex.quote(str(target))}"
        elif as_ == "config":
            script = f"fcm-emu serve --config {shlex.quote(str(target))}"
        elif as_ == "faults":
            script = f"fcm-emu serve --faults {shlex.quote(str(target))}"
        else:
            self.fail(ex, f"unknown <!-- as: {as_} -->")
            return
        done = page.shell(script)
        if done.returncode != 0:
            self.fail(ex, f"{as_} exited {done.returncode}", done.stdout + done.stderr)
        else:
            self.ok(ex, f"yaml {as_}")

    def json(self, page: Page, ex: Example) -> None:
        try:
            doc = json.loads(ex.text)
        except ValueError as e:
            self.fail(ex, f"not JSON: {e}")
            return
        command = ex.directives.get("response-of")
        if not command:
            self.fail(ex, "a JSON example needs <!-- response-of: SHELL --> (or not-run)")
            return
        done = page.shell(command)
        if done.returncode != 0:
            self.fail(ex, f"response-of exited {done.returncode}", done.stdout + done.stderr)
            return
        try:
            real = json.loads(done.stdout)
        except ValueError as e:
            self.fail(ex, f"response-of did not print JSON: {e}", done.stdout)
            return
        problems = same_shape(doc, real)
        if problems:
            self.fail(ex, "differs from the real answer", "\n".join(problems) + "\nanswer: " + done.stdout[:2000])
        else:
            self.ok(ex, "json, same fields as the answer")

    def mirror(self, page: Page, ex: Example) -> None:
        source = ex.directives.get("same-as")
        if not source:
            self.fail(ex, f"a {ex.lang} example needs <!-- same-as: clients/…/test file --> (or not-run)")
            return
        path = ROOT / source
        if not path.is_file():
            self.fail(ex, f"same-as names {source}, which does not exist")
            return
        comment = "//"
        wanted = code_lines(ex.text, comment)
        have = code_lines(path.read_text(encoding="utf-8"), comment)
        at = 0
        for line in wanted:
            while at < len(have) and line not in have[at]:
                at += 1
            if at == len(have):
                self.fail(ex, f"this line is not in {source} (in order): {line}")
                return
            at += 1
        self.mirrored.append(f"{ex.where} ({ex.lang}) = {source}")
        self.ok(ex, f"{ex.lang}, same as {source}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=os.environ.get("FCM_EMU_BIN", str(ROOT / ".build" / "debug" / "fcm-emu")))
    parser.add_argument("--python", default=sys.executable, help="a Python with firebase-admin and pytest")
    parser.add_argument("files", nargs="*", help="markdown files (default: README.md and docs/*.md)")
    args = parser.parse_args()
    files = [Path(f).resolve() for f in args.files] or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    if not os.access(args.bin, os.X_OK):
        print(f"docs/check: no fcm-emu binary at {args.bin} (swift build, or set FCM_EMU_BIN)", file=sys.stderr)
        return 2
    return Checker(os.path.abspath(args.bin), args.python, files).run()


if __name__ == "__main__":
    sys.exit(main())
