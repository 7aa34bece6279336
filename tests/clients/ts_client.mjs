// The client-matrix scenario through the official TypeScript SDK 1.x client: every tool on
// success and on each error, every resource. callTool validates structuredContent against
// the tool's outputSchema, as TypeScript hosts do; a validator warning fails the run too.
// Usage: node ts_client.mjs SCENARIO_JSON AGG_BIN ROOT [AGG_ARGS...]; env is passed on.
// The SDK is loaded from $AGG_CLIENTS/npm (scripts/clients.sh installs it there).
import { readFileSync } from "node:fs";
import { check, finish, sdk } from "./tally.mjs";

const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const [scenarioPath, agg, root, ...extra] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioPath, "utf8"));
const warnings = [];
for (const level of ["warn", "error"]) {
  const original = console[level];
  console[level] = (...args) => {
    warnings.push(args.map(String).join(" "));
    original(...args);
  };
}


const transport = new StdioClientTransport({
  command: agg,
  args: ["mcp", "--root", root, ...extra],
  env: process.env,
  stderr: "inherit",
});
const client = new Client({ name: "agg-matrix-ts", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
check(tools.length >= 7, `tools/list has the seven tools (${tools.length})`);
check(tools.every((t) => t.inputSchema?.type === "object"), "every inputSchema is type object");

const captured = {};
const fill = (v) =>
  typeof v === "string" && v.startsWith("$") ? captured[v.slice(1)] : Array.isArray(v) ? v.map(fill)
    : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)])) : v;

for (const step of scenario.steps) {
  const what = `${step.tool} ${JSON.stringify(step.args)}`;
  let result;
  try {
    result = await client.callTool({ name: step.tool, arguments: fill(step.args) });
  } catch (e) {
    check(false, `${what}: the SDK threw: ${e.message}`);
    continue;
  }
  const e = step.expect;
  if (e.code !== undefined) {
    const body = result._meta?.["agg/error"];
    check(result.isError === true, `${what}: isError`);
    check(result.structuredContent === undefined, `${what}: no structuredContent on an error`);
    check(body?.code === e.code, `${what}: code ${body?.code}, want ${e.code}`);
    const text = result.content?.[0]?.text ?? "";
    check(text.includes(`error ${e.code}`), `${what}: the text names the code: ${text}`);
  } else {
    const s = result.structuredContent ?? {};
    check(result.isError !== true, `${what}: not an error: ${JSON.stringify(result).slice(0, 300)}`);
    for (const key of ["state", "exit_code", "passed"]) {
      if (e[key] !== undefined) check(s[key] === e[key], `${what}: ${key} ${s[key]}, want ${e[key]}`);
    }
    if (e.min_total !== undefined) check(s.total >= e.min_total, `${what}: total ${s.total}`);
    if (step.capture) captured[step.capture] = s[step.capture];
  }
}

const { resources } = await client.listResources();
check(resources.some((r) => r.uri === "agg://tasks"), "resources/list has agg://tasks");
check(resources.some((r) => r.uri === `agg://runs/${captured.run_id}/log`), "resources/list has the run's log");
const { resourceTemplates } = await client.listResourceTemplates();
check(resourceTemplates.some((t) => t.uriTemplate.startsWith("agg://runs/{run_id}/log")), "the run-log template");
const table = await client.readResource({ uri: "agg://tasks" });
check(JSON.parse(table.contents[0].text).tasks.length >= 4, "agg://tasks is the table");
const log = await client.readResource({ uri: `agg://runs/${captured.run_id}/log` });
check(log.contents[0].text.includes("started"), `the run log has the output: ${log.contents[0].text}`);

check(warnings.length === 0, `no client warnings: ${warnings.join(" | ")}`);
await client.close();
finish("ts-sdk");
