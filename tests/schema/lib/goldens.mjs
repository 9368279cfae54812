// Reads the golden CLI cases (tests/cli/<case>/{args,stdout}) and the known-bad fixtures
// (tests/schema/bad/*), and tells which artifact each stdout holds, by its content: a launch
// script (`#!/bin/sh`), Kubernetes YAML (documents with apiVersion and kind), or neither.
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";

function readIf(file) {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
}

// -> [{ name, args, stdout }] sorted by name.
export function goldenCases(cliDir) {
  return fs.readdirSync(cliDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(cliDir, d.name, "args")))
    .map((d) => d.name)
    .sort()
    .map((name) => ({
      name,
      args: readIf(path.join(cliDir, name, "args")),
      stdout: readIf(path.join(cliDir, name, "stdout")),
    }));
}

// -> [{ name, stdout, expect: [substring] }]: every fixture must fail, with each `# expect:` text
// in one of its failure lines.
export function badFixtures(badDir) {
  return fs.readdirSync(badDir)
    .filter((f) => /\.(ya?ml|sh)$/.test(f))
    .sort()
    .map((f) => {
      const stdout = fs.readFileSync(path.join(badDir, f), "utf8");
      const expect = [...stdout.matchAll(/^# expect: (.+)$/gm)].map((m) => m[1].trim());
      return { name: `bad/${f}`, args: "", stdout, expect };
    });
}

export function artifactKind(stdout) {
  if (stdout.startsWith("#!/bin/sh\n")) return "script";
  if (/^apiVersion:/m.test(stdout) && /^kind:/m.test(stdout)) return "yaml";
  return "none";
}

// Which artifact the case's arguments ask for: "k8s", "script" or null (no --emit).
export function emitKind(args) {
  const m = args.match(/--emit[= \n]+(\S+)/);
  if (!m) return null;
  return m[1] === "k8s" ? "k8s" : "script";
}

// The non-empty documents of a YAML stream, parsed as Kubernetes does (YAML 1.1 scalars,
// duplicate keys an error). -> [{ index, value, errors: [string] }]; index counts from 1.
export function yamlDocuments(stdout) {
  const docs = YAML.parseAllDocuments(stdout, { version: "1.1", uniqueKeys: true });
  const out = [];
  for (const doc of docs) {
    const errors = [...doc.errors, ...doc.warnings].map((e) => e.message.split("\n")[0].replace(/:$/, ""));
    let value = null;
    try {
      value = doc.contents === null ? null : doc.toJS();
    } catch (e) {
      errors.push(e.message);
    }
    if (value === null && errors.length === 0) continue;
    out.push({ index: out.length + 1, value, errors });
  }
  return out;
}
