"""Benchmark the live agent path against the real ``mimic host`` stack with a scripted model.

No API key, no network beyond 127.0.0.1. The Messages API is the SDK's mock transport; the
model is scripted: turn 1 asks ``mimic-database__get_customers`` and
``mimic-stripe__list_invoices``, turn 2 answers with the demo's recorded response for the
scenario. The MCP calls are real (Mimic's servers, PostgreSQL behind them).

**Token figures are scripted, not measured from the API.** The mock reports usage the way the
API does: the prompt prefix (system prompt + tool definitions) is counted at about 4
characters a token; with ``cache_control`` on it (and a prefix of at least 1,024 tokens, the
API's minimum for Sonnet) the first request of the run reports the prefix as
``cache_creation_input_tokens`` and every later one as ``cache_read_input_tokens``; without
caching every request pays the prefix as ``input_tokens``. Output tokens are the reply's
characters / 4. Prices: ``pe_eval_core.scenarios.run.costs`` (claude-sonnet-4-5 list prices).

Prints:
1. stack start-up time (``MimicStack.timings``);
2. tokens and cost of the 19-scenario run with and without prompt caching;
3. wall time of the 19-scenario run at concurrency 1, 3 and 8 (median of ``--repeat``).

    python3 benchmarks/bench_agent_stack.py [--repeat 3] [--model-delay-ms 0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import httpx2  # noqa: E402

from pe_eval_core.scenarios.agent.loop import AgentBounds, McpToolbox  # noqa: E402
from pe_eval_core.scenarios.agent.mcp_config import load_mcp_config  # noqa: E402
from pe_eval_core.scenarios.agent.targets import AnthropicTarget  # noqa: E402
from pe_eval_core.scenarios.llm.pricing import call_cost_usd  # noqa: E402
from pe_eval_core.scenarios.loading import load_recorded, load_scenarios  # noqa: E402
from pe_eval_core.scenarios.run.costs import approx_tokens  # noqa: E402
from pe_eval_core.scenarios.run.runner import run_scenarios  # noqa: E402
from pe_eval_core.scenarios.trace import TokenUsage  # noqa: E402

DEMO = REPO / ".mimic" / "exports"
MODEL = "claude-sonnet-4-5"
CACHE_MIN_TOKENS = 1024


class ScriptedModel:
    """The mock Messages API: scripted turns, usage reported the way the API reports it."""

    def __init__(self, answers: dict[str, str], delay_s: float = 0.0):
        self.answers = answers
        self.delay_s = delay_s
        self.cache_written = False
        self.requests = 0

    async def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests += 1
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        system = body["system"]
        tools = body.get("tools", [])
        cached = bool(system and system[0].get("cache_control")) or any(
            "cache_control" in t for t in tools
        )
        prefix = approx_tokens(json.dumps(system) + json.dumps(tools))
        rest = approx_tokens(json.dumps(body["messages"]))
        usage = {"input_tokens": rest, "cache_read_input_tokens": 0,
                 "cache_creation_input_tokens": 0}  # fmt: skip
        if cached and prefix >= CACHE_MIN_TOKENS:
            key = "cache_read_input_tokens" if self.cache_written else "cache_creation_input_tokens"
            usage[key] = prefix
            self.cache_written = True
        else:
            usage["input_tokens"] += prefix
        messages = body["messages"]
        if len(messages) == 1:
            content: list[dict[str, Any]] = [
                {"type": "text", "text": "Checking both sources."},
                {"type": "tool_use", "id": "t1", "name": "mimic-database__get_customers",
                 "input": {"stripe_customer_id": "cus_GL078"}},
                {"type": "tool_use", "id": "t2", "name": "mimic-stripe__list_invoices",
                 "input": {"customer": "cus_GL078"}},
            ]  # fmt: skip
            stop = "tool_use"
        else:
            text = self.answers.get(messages[0]["content"], "No answer scripted.")
            content = [{"type": "text", "text": text}]
            stop = "end_turn"
        usage["output_tokens"] = approx_tokens(json.dumps(content))
        return httpx2.Response(
            200,
            json={"id": "msg", "type": "message", "role": "assistant", "model": MODEL,
                  "content": content, "stop_reason": stop, "stop_sequence": None,
                  "usage": usage},
        )  # fmt: skip


async def one_run(mcp_json: Path, concurrency: int, cache: bool, delay_s: float):
    scenarios = load_scenarios(DEMO / "mimic-scenarios.json")
    recorded = load_recorded(DEMO / "recorded-responses.json")
    answers = {s.input: (recorded[s.name].response or "") for s in scenarios if s.name in recorded}
    model = ScriptedModel(answers, delay_s)
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(model.handler))
    toolbox = McpToolbox(load_mcp_config(mcp_json))
    target = AnthropicTarget(
        REPO / "skills" / "revenue-recovery" / "SKILL.md",
        model=MODEL,
        api_key="scripted",
        http_client=client,
        toolbox=toolbox,
        bounds=AgentBounds(cache=cache),
    )
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        run = await run_scenarios(
            scenarios,
            target,
            concurrency=concurrency,
            save_responses=Path(tmp) / "responses.json",
        )
    wall = time.perf_counter() - t0
    await client.aclose()
    tokens = TokenUsage()
    for r in run.results:
        if r.trace is not None:
            tokens = tokens + r.trace.tokens
    calls = sum(len(r.trace.calls) for r in run.results if r.trace is not None)
    errors = sum(1 for r in run.results for c in (r.trace.calls if r.trace else []) if c.is_error)
    return run, tokens, wall, calls, errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--model-delay-ms", type=float, default=0.0,
                        help="scripted model latency per turn (default 0)")  # fmt: skip
    args = parser.parse_args()
    from mimic_stack import MimicStack, missing_prerequisites

    reason = missing_prerequisites()
    if reason:
        print(f"Mimic stack unavailable: {reason}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        mcp_json = Path(tmp) / ".mcp.json"
        with MimicStack(mcp_json=mcp_json, install=False) as stack:
            detail = ", ".join(f"{k} {v:.2f} s" for k, v in stack.timings.items())
            print(f"Stack start-up: {stack.timings['total']:.2f} s ({detail})\n")
            print("19 scenarios, scripted model (SCRIPTED token counts, see the docstring):")
            print(f"{'caching':<8} {'input':>8} {'cache write':>12} {'cache read':>11} "
                  f"{'output':>7} {'cost USD':>9} {'tool calls':>10} {'passed':>7}")  # fmt: skip
            for cache in (True, False):
                run, t, _, calls, _ = asyncio.run(one_run(mcp_json, 1, cache, 0.0))
                usd = call_cost_usd(MODEL, t)
                print(f"{'on' if cache else 'off':<8} {t.input:>8} {t.cache_write:>12} "
                      f"{t.cache_read:>11} {t.output:>7} {usd:>9.4f} {calls:>10} "
                      f"{run.passed:>4}/{run.total}")  # fmt: skip
            delay = args.model_delay_ms / 1000
            print(f"\nWall time, 19 scenarios against the real stack, scripted model "
                  f"({args.model_delay_ms:g} ms a turn), median of {args.repeat}:")  # fmt: skip
            print(f"{'concurrency':>11} {'wall s':>8} {'per scenario ms':>16} {'tool errors':>12}")
            for concurrency in (1, 3, 8):
                walls, errs = [], 0
                for _ in range(args.repeat):
                    _, _, wall, _, errors = asyncio.run(one_run(mcp_json, concurrency, True, delay))
                    walls.append(wall)
                    errs += errors
                med = statistics.median(walls)
                print(f"{concurrency:>11} {med:>8.2f} {med / 19 * 1000:>16.1f} {errs:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
