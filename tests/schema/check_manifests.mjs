#!/usr/bin/env node
// Validates every artifact the golden CLI cases hold (tests/cli/<case>/stdout) against pinned
// schemas and argument lists (tests/schema/README.md):
//   - Kubernetes YAML: each document by apiVersion + kind — core/apps/autoscaling/... with
//     kubernetes-models, KEDA with @kubernetes-models/keda, LeaderWorkerSet with the vendored CRD
//     (ajv) — unknown fields, the API server's name/label/HPA rules, and an unknown kind all fail;
//   - engine commands (launch scripts, container command/args): every flag in engine-flags.json.
// First it runs the known-bad fixtures of tests/schema/bad/, each of which must be rejected, so a
// validator that accepts everything fails too. One line per failure, a summary, exit 1 on any.
// Usage: node tests/schema/check_manifests.mjs [SOURCE_DIR]   (default: this checkout)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(process.argv[2] ?? path.join(here, "..", ".."));

// node_modules must match package-lock.json: a missing or stale install is a failure, not a skip.
function dependencyProblem() {
  if (!fs.existsSync(path.join(here, "node_modules"))) return "node_modules is missing";
  const lock = JSON.parse(fs.readFileSync(path.join(here, "package-lock.json"), "utf8"));
  for (const [dir, entry] of Object.entries(lock.packages ?? {})) {
    if (!dir) continue;
    const manifest = path.join(here, dir, "package.json");
    if (!fs.existsSync(manifest)) return `${dir} is missing`;
    const version = JSON.parse(fs.readFileSync(manifest, "utf8")).version;
    if (version !== entry.version) return `${dir} is ${version}, package-lock.json pins ${entry.version}`;
  }
  return null;
}

const problem = dependencyProblem();
if (problem) {
  console.log(`FAIL schema: tests/schema/${problem}: run scripts/setup.sh (npm ci --prefix tests/schema)`);
  process.exit(1);
}

const { goldenCases, badFixtures, artifactKind, emitKind, yamlDocuments } = await import("./lib/goldens.mjs");
const { modelRegistry, validateModel } = await import("./lib/models.mjs");
const { loadLeaderWorkerSet } = await import("./lib/lws.mjs");
const { apiserverRules } = await import("./lib/apiserver_rules.mjs");
const { loadEngineFlags, checkScript, checkManifest } = await import("./lib/engine_flags.mjs");

const ctx = {
  registry: modelRegistry(),
  lws: loadLeaderWorkerSet(path.join(here, "lws", "leaderworkerset.x-k8s.io_leaderworkersets.yaml")),
  flags: loadEngineFlags(path.join(here, "engine-flags.json")),
};

function schemaFailures(value) {
  const key = `${value.apiVersion} ${value.kind}`;
  if (value.apiVersion === ctx.lws.apiVersion && value.kind === ctx.lws.kind) return ctx.lws.validate(value);
  const cls = ctx.registry.get(key);
  if (!cls) return [{ pointer: "", message: `no pinned schema for apiVersion ${value.apiVersion} kind ${value.kind}` }];
  return validateModel(cls, value);
}

// One document. -> { kind, lines, engines }
function checkDocument(label, doc) {
  const v = doc.value;
  const kind = typeof v?.kind === "string" ? v.kind : "?";
  const at = `${label} doc ${doc.index} ${kind}`;
  const lines = doc.errors.map((e) => `${at} /: YAML: ${e}`);
  if (!v || typeof v !== "object" || typeof v.apiVersion !== "string" || typeof v.kind !== "string") {
    lines.push(`${at} /: not a Kubernetes object (apiVersion and kind must be strings)`);
    return { kind, lines, engines: [] };
  }
  const failures = [...schemaFailures(v), ...apiserverRules(v)];
  for (const f of failures) lines.push(`${at} ${f.pointer || "/"}: ${f.message}`);
  const flags = checkManifest(v, ctx.flags);
  for (const f of flags.failures) lines.push(`${at} ${f.where}: ${f.message}`);
  return { kind, lines, engines: flags.commands.map((c) => c.engine) };
}

// One case (golden or bad fixture). -> { lines, kinds: [kind], engines: [engine] }
function checkCase(c) {
  const artifact = artifactKind(c.stdout);
  const wanted = emitKind(c.args);
  const out = { lines: [], kinds: [], engines: [] };
  const written = /--out([= \n]|$)/m.test(c.args);
  if (wanted && c.stdout.trim() && !written && artifact !== (wanted === "k8s" ? "yaml" : "script")) {
    out.lines.push(`${c.name}: --emit ${wanted} but stdout holds ${artifact === "none" ? "no artifact" : artifact}`);
  }
  if (artifact === "script") {
    const r = checkScript(c.stdout, ctx.flags);
    out.engines.push(...r.commands.map((x) => x.engine));
    for (const f of r.failures) out.lines.push(`${c.name} ${f.where}: ${f.message}`);
  } else if (artifact === "yaml") {
    for (const doc of yamlDocuments(c.stdout)) {
      const r = checkDocument(c.name, doc);
      out.kinds.push(r.kind);
      out.engines.push(...r.engines);
      out.lines.push(...r.lines);
    }
    if (out.engines.length === 0) out.lines.push(`${c.name}: no engine command in any container`);
  }
  return out;
}

// Every bad fixture must fail, with each of its `# expect:` texts in some failure line.
function selfTest() {
  const lines = [];
  const fixtures = badFixtures(path.join(here, "bad"));
  for (const f of fixtures) {
    const r = checkCase(f);
    if (r.lines.length === 0) lines.push(`self-test ${f.name}: accepted, but it is known to be invalid`);
    for (const e of f.expect) {
      if (!r.lines.some((l) => l.includes(e))) {
        lines.push(`self-test ${f.name}: no failure says '${e}' (got: ${r.lines.join(" | ") || "none"})`);
      }
    }
  }
  if (fixtures.length === 0) lines.push("self-test: no fixtures in tests/schema/bad");
  return { lines, count: fixtures.length };
}

function tally(items) {
  const counts = new Map();
  for (const k of items) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, n]) => `${k} ${n}`).join(", ");
}

function main() {
  const self = selfTest();
  const failures = self.lines.map((l) => `FAIL ${l}`);
  let cases = 0;
  const kinds = [];
  const engines = [];
  for (const c of goldenCases(path.join(root, "tests", "cli"))) {
    const r = checkCase(c);
    if (r.kinds.length || r.engines.length) cases++;
    kinds.push(...r.kinds);
    engines.push(...r.engines);
    failures.push(...r.lines.map((l) => `FAIL ${l}`));
  }
  if (cases === 0) failures.push(`FAIL schema: no golden case under ${path.join(root, "tests", "cli")} holds an artifact`);
  for (const f of failures) console.log(f);
  console.log(`schema: ${cases} golden cases with artifacts; ${kinds.length} documents (${tally(kinds)}); ` +
    `${engines.length} engine commands (${tally(engines)}); self-test: ${self.count} bad fixtures; ` +
    `${failures.length} failure(s)`);
  return failures.length ? 1 : 0;
}

process.exit(main());
