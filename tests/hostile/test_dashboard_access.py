"""Class 1: the operator owns the dashboard (issue 23).

Surfaces: the policy (``pe_eval_core.access``), the dashboard under AppTest (login, a member's
data folder, responses file, skill file, server key, agent URL, history actions; every paid
run confirmed with its count), and the real server: ``streamlit run app.py`` with the repo's
``.streamlit/config.toml`` listens on 127.0.0.1 only, refuses a WebSocket with a foreign
Host or Origin header, and in Chromium a host name rebound to 127.0.0.1 (DNS rebinding) gets
the page shell but never the app, while ``localhost`` gets the app."""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from pe_eval_core.access import (
    AccessConfig,
    LoginThrottle,
    access_config,
    check_agent_url,
    check_path,
    check_skill,
    is_loopback_address,
)
from pe_eval_core.errors import AccessDeniedError
from tests.helpers.chromium import launch, require_chromium
from tests.helpers.hostile_kit import REPO, free_port, rendered_text

pytestmark = pytest.mark.timeout(300)
TEAM = "team-password-0123"
OPERATOR = "operator-token-0123456789"


# --- the policy -------------------------------------------------------------------------


def test_served_needs_a_login_and_a_local_dashboard_is_the_operators(tmp_path):
    local = access_config(address="127.0.0.1", secrets={}, repo_root=tmp_path, env={})
    assert not local.login_required and local.role(None) == "operator"
    for address in (None, "0.0.0.0", "::", "10.0.0.5"):
        served = access_config(address=address, secrets={}, repo_root=tmp_path, env={})
        assert served.login_required and served.role(None) is None
        assert "no login is configured" in (served.problem() or "")
    proxied = access_config(
        address="127.0.0.1", secrets={}, repo_root=tmp_path, env={"PE_EVAL_SERVED": "1"}
    )
    assert proxied.problem() is not None
    from_secrets = access_config(
        address="0.0.0.0",
        secrets={"pe_eval": {"team_password": TEAM, "operator_token": OPERATOR}},
        repo_root=tmp_path,
        env={},
    )
    assert from_secrets.problem() is None
    assert from_secrets.login(TEAM) == "member" and from_secrets.login(OPERATOR) == "operator"
    assert from_secrets.login("") is None and from_secrets.login(TEAM[:-1]) is None
    short = AccessConfig(served=True, team_password="short")
    assert "shorter than" in (short.problem() or "")
    assert is_loopback_address("127.0.0.2") and not is_loopback_address("192.168.1.1")


def test_login_failures_slow_every_next_attempt():
    now = [0.0]
    throttle = LoginThrottle(free=2, delay_s=1.0, clock=lambda: now[0])
    assert throttle.delay() == 0
    for _ in range(4):
        throttle.failed()
    assert throttle.delay() == 3.0
    now[0] += 1000
    assert throttle.delay() == 0


def test_a_member_is_confined_the_operator_is_not(tmp_path):
    shared, skills = tmp_path / "shared", tmp_path / "skills"
    shared.mkdir()
    skills.mkdir()
    (shared / "escape").symlink_to("/etc")
    cfg = AccessConfig(served=True, data_roots=(shared,), skills_root=skills)
    check_path("member", cfg, shared / "finance", "data folder")
    for outside in (Path("/etc"), shared / ".." / "x", shared / "escape"):
        with pytest.raises(AccessDeniedError):
            check_path("member", cfg, outside, "data folder")
        check_path("operator", cfg, outside, "data folder")
    check_skill("member", cfg, skills / "a" / "SKILL.md")
    with pytest.raises(AccessDeniedError):
        check_skill("member", cfg, Path("/etc/passwd"))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/chat",
        "http://localhost/chat",
        "http://[::1]/chat",
        "http://2130706433/chat",  # 127.0.0.1 as one number
        "http://0x7f.1/chat",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.8/agent",
        "http://[::ffff:127.0.0.1]/x",
        "http://0.0.0.0:8501/",
    ],
)
def test_a_member_cannot_point_the_server_at_itself_or_its_network(url):
    with pytest.raises((AccessDeniedError, Exception)) as err:
        check_agent_url("member", url)
    assert err.type.__name__ in ("AccessDeniedError", "TargetConfigError")
    assert check_agent_url("operator", url).connect_url == url


def test_a_members_public_url_is_pinned_against_rebinding():
    answers = iter([["93.184.216.34"], ["127.0.0.1"]])
    checked = check_agent_url("member", "https://agent.example/chat", lambda h, p: next(answers))
    assert checked.connect_url == "https://93.184.216.34/chat"
    assert (checked.host_header, checked.sni) == ("agent.example", "agent.example")
    mixed = lambda h, p: ["93.184.216.34", "10.0.0.1"]  # noqa: E731
    with pytest.raises(AccessDeniedError):
        check_agent_url("member", "http://agent.example/chat", mixed)


# --- the dashboard under AppTest ----------------------------------------------------------


def _app(monkeypatch, **env: str):
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()
    monkeypatch.setenv("PE_EVAL_NO_HISTORY", "1")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=240)
    at.run()
    return at


def _login(at, secret: str):
    at.text_input(key="access.secret").input(secret)
    next(b for b in at.button if b.label == "Log in").click()
    at.run()
    return at


SERVED = {"PE_EVAL_TEAM_PASSWORD": TEAM, "PE_EVAL_OPERATOR_TOKEN": OPERATOR}


def test_served_without_a_login_renders_nothing(monkeypatch):
    at = _app(monkeypatch, PE_EVAL_SERVED="1")
    assert not at.exception
    assert "will not run" in rendered_text(at) and [t.value for t in at.title] == []


def test_nothing_renders_before_the_login_and_a_wrong_one_is_refused(monkeypatch):
    at = _app(monkeypatch, **SERVED)
    assert [t.value for t in at.title] == ["pe-eval"]
    shown = rendered_text(at)
    assert "MortgageCo" not in shown and "Citation" not in shown
    _login(at, "wrong-password")
    assert "not right" in rendered_text(at) and "access.role" not in at.session_state
    _login(at, TEAM)
    assert at.session_state["access.role"] == "member"
    assert not at.exception and "Memo scorecard" in [t.value for t in at.title]
    assert TEAM not in rendered_text(at)


def test_a_member_cannot_leave_the_shared_folders(monkeypatch, tmp_path):
    from ui import state

    at = _login(_app(monkeypatch, **SERVED), TEAM)
    at.sidebar.text_input(key=state.Sidebar.DATA_DIR_INPUT).input("/etc")
    at.run()
    assert not at.exception
    assert "outside the folders this dashboard shares" in rendered_text(at)
    assert at.session_state[state.Sidebar.DATA_DIR] == state.default_data_dir()
    at.sidebar.text_input(key=state.Sidebar.SCENARIOS_FILE_INPUT).input("/etc/passwd")
    at.run()
    assert at.session_state[state.Sidebar.SCENARIOS_FILE] == state.default_scenarios_file()


def _scenario_page(at):
    at.switch_page("app_pages/scenario_eval.py")
    at.run()
    assert not at.exception, at.exception
    return at


SEEN: list[str] = []


class _Agent(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        SEEN.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_a_members_live_targets_stay_on_their_own_key_and_public_urls(monkeypatch, tmp_path):
    from ui import state

    K = state.Scenarios
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Agent)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        at = _scenario_page(
            _login(
                _app(monkeypatch, ANTHROPIC_API_KEY="sk-ant-api03-SERVERKEY0123456789", **SERVED),
                TEAM,
            )
        )
        at.radio(key=K.TARGET).set_value("HTTP agent").run()
        at.text_input(key=K.HTTP_URL).input(
            f"http://127.0.0.1:{httpd.server_address[1]}/chat"
        ).run()
        shown = rendered_text(at)
        assert "not a public address" in shown and not any(
            b.label == "Run evaluation" and not b.disabled for b in at.button
        )
        at.radio(key=K.TARGET).set_value("Anthropic model").run()
        shown = rendered_text(at)
        assert "Your Anthropic API key" in shown  # the server's key is not offered
        at.text_input(key=K.API_KEY).input("sk-ant-api03-MEMBERKEY0123456789")
        at.text_input(key=K.SKILL).input("/etc/passwd")
        at.run()
        assert "outside the skills folder" in rendered_text(at)
        at.radio(key=K.TARGET).set_value("Recorded responses").run()
        at.text_input(key=K.RESPONSES).input("/etc/passwd").run()
        assert "outside the folders this dashboard shares" in rendered_text(at)
        assert SEEN == []
    finally:
        httpd.shutdown()


def test_every_paid_run_is_confirmed_with_its_count(monkeypatch):
    from ui import state

    K = state.Scenarios
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Agent)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        at = _scenario_page(_app(monkeypatch))  # local: the operator
        at.radio(key=K.TARGET).set_value("HTTP agent").run()
        at.text_input(key=K.HTTP_URL).input(
            f"http://127.0.0.1:{httpd.server_address[1]}/chat"
        ).run()
        run = next(b for b in at.button if b.label == "Run evaluation")
        box = at.checkbox(key=K.CONFIRM_LIVE)
        # 19 (under the CLI's 20-call threshold) calls to a local agent: still confirmed
        assert "I confirm 19 calls (19 to the local agent" in box.label
        assert run.disabled
        box.check().run()
        assert not next(b for b in at.button if b.label == "Run evaluation").disabled
    finally:
        httpd.shutdown()


def test_a_member_sees_history_but_cannot_delete_or_pin(monkeypatch):
    from pe_eval_core.history.store import RunStore
    from tests.helpers.history_builders import make_result, make_scenario_run

    RunStore().record_scenario_run(make_scenario_run([make_result("s", "smoke", "pass")]))
    at = _login(_app(monkeypatch, **SERVED), TEAM)
    at.switch_page("app_pages/run_history.py")
    at.run()
    assert not at.exception
    labels = [b.label for b in at.button]
    assert not any(lbl.startswith(("Delete", "Pin", "Yes, delete")) for lbl in labels)
    assert "Only the operator can pin or delete runs." in rendered_text(at)
    op = _login(_app(monkeypatch, **SERVED), OPERATOR)
    op.switch_page("app_pages/run_history.py")
    op.run()
    assert any(b.label == "Delete run" for b in op.button)


# --- the real server -------------------------------------------------------------------------


class _Server:
    def __init__(self, home: Path):
        self.port = free_port()
        env = dict(os.environ, PE_EVAL_HOME=str(home), PE_EVAL_NO_HISTORY="1")
        for name in ("ANTHROPIC_API_KEY", "PE_EVAL_DATA_DIR", "PE_EVAL_SCENARIOS"):
            env.pop(name, None)
        home.mkdir(parents=True, exist_ok=True)
        self.log = open(home / "streamlit.log", "wb")  # noqa: SIM115
        # the repo's config.toml as is: no --server.address (the default must be 127.0.0.1)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(self.port),
             "--server.fileWatcherType", "none"],
            cwd=REPO, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{self.port}/_stcore/health", timeout=2
                ):
                    return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("streamlit did not start")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = _Server(tmp_path_factory.mktemp("st"))
    yield s
    s.stop()


def _listening_addresses(port: int) -> set[str]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, hex_port = local.rsplit(":", 1)
            if int(hex_port, 16) == port and state == "0A":  # LISTEN
                found.add(addr)
    return found


def test_the_server_listens_on_loopback_only(server):
    if not Path("/proc/net/tcp").exists():
        pytest.skip("no /proc/net/tcp on this platform")
    assert _listening_addresses(server.port) == {"0100007F"}  # 127.0.0.1, nothing else


def _ws(port: int, host: str, origin: str | None) -> str:
    import websockets.sync.client as client
    from websockets.exceptions import InvalidStatus

    sock = socket.create_connection(("127.0.0.1", port))
    headers = {"Origin": origin} if origin else {}
    try:
        uri = f"ws://{host}:{port}/_stcore/stream"
        kwargs = {"sock": sock, "additional_headers": headers, "subprotocols": ["streamlit"]}
        with client.connect(uri, open_timeout=10, **kwargs):
            return "open"
    except InvalidStatus as exc:
        return f"refused {exc.response.status_code}"


def test_foreign_host_and_origin_headers_are_refused(server):
    p = server.port
    assert _ws(p, "127.0.0.1", f"http://127.0.0.1:{p}") == "open"
    assert _ws(p, "localhost", f"http://localhost:{p}") == "open"
    assert _ws(p, "rebind.attacker.test", f"http://rebind.attacker.test:{p}") == "refused 403"
    assert _ws(p, "127.0.0.1", "https://evil.example") == "refused 403"
    assert _ws(p, "evil.example", None) == "refused 403"


@pytest.mark.browser
def test_dns_rebinding_in_chromium_never_reaches_the_app(server):
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p, "--host-resolver-rules=MAP rebind.attacker.test 127.0.0.1")
        try:
            page = browser.new_page()
            page.goto(f"http://localhost:{server.port}/")
            page.get_by_text("Memo scorecard", exact=False).first.wait_for(timeout=120_000)
            page.goto(f"http://rebind.attacker.test:{server.port}/")
            page.wait_for_timeout(8000)
            body = page.inner_text("body")
            assert "Citation accuracy" not in body and "MortgageCo" not in body
        finally:
            browser.close()
