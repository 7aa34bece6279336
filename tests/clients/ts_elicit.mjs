// Asking the user through the official TypeScript SDK 1.x client's elicitation handler:
// accept once, accept always (written; not asked again), decline, cancel, a denied task is
// never asked about, and the runners' own confirmations in their words.
// Usage: node ts_elicit.mjs AGG_BIN ROOT ALLOWLIST; the SDK comes from $AGG_CLIENTS/npm.
import { readFileSync } from "node:fs";
import { check, finish, sdk } from "./tally.mjs";

const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { ElicitRequestSchema } = await sdk("types.js");

const [agg, root, allowlist] = process.argv.slice(2);
const asked = [];
const answers = [];
const client = new Client({ name: "agg-elicit-ts", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push({ message: req.params.message, props: Object.keys(req.params.requestedSchema?.properties ?? {}) });
  return answers.shift() ?? { action: "cancel" };
});
await client.connect(new StdioClientTransport({ command: agg, args: ["mcp", "--root", root], env: process.env, stderr: "inherit" }));
await client.listTools();
const call = (name) => client.callTool({ name: "task_start", arguments: { unique_name: name } });
const code = (r) => r._meta?.["agg/error"]?.code;

const before = readFileSync(allowlist, "utf8");
answers.push({ action: "accept", content: { decision: "once" } });
let r = await call("hello");
check(!r.isError && r.structuredContent.exit_code === 0, `once runs: ${JSON.stringify(r)}`);
check(asked.length === 1 && asked[0].message.includes("make hello"), "the form names the command");
check(readFileSync(allowlist, "utf8") === before, "once writes nothing");
answers.push({ action: "accept", content: { decision: "always-task" } });
r = await call("again");
check(!r.isError, "always-task runs");
let n = asked.length;
r = await call("again");
check(!r.isError && asked.length === n, "an allowed task is not asked again");
answers.push({ action: "decline" });
r = await call("hello");
check(r.isError && code(r) === -32010 && r.content[0].text.includes("declined by the user"), `decline: ${JSON.stringify(r)}`);
answers.push({ action: "cancel" });
r = await call("hello");
check(r.isError && code(r) === -32010, "cancel");
n = asked.length;
r = await call("deploy");
check(r.isError && code(r) === -32010 && asked.length === n, "a deny rule is never asked about");
for (const [name, words] of [["publish", "Run recipe `publish`?"], ["ship", "Ship it to production?"]]) {
  n = asked.length;
  answers.push({ action: "accept", content: { confirm: true } });
  r = await call(name);
  check(!r.isError && r.structuredContent.exit_code === 0, `${name} confirmed runs: ${JSON.stringify(r)}`);
  check(asked.length === n + 1 && asked[n].message.includes(words), `${name} asked in the runner's words`);
  answers.push({ action: "decline" });
  r = await call(name);
  check(r.isError && code(r) === -32014, `${name} not confirmed`);
}
await client.close();
finish("ts-sdk elicitation");
