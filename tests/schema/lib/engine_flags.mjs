// Engine commands in the emitted artifacts, checked against tests/schema/engine-flags.json: every
// word that starts with `-` must be a flag listed for that engine (the list read in the engine's own
// argument parser at a pinned commit), a flag that takes a value must get one, a listed choice must
// be one of its values, and the positionals must be as many as the command takes.
import fs from "node:fs";
import { shellCommands } from "./shell_words.mjs";

export function loadEngineFlags(file) {
  const spec = JSON.parse(fs.readFileSync(file, "utf8"));
  if (spec.schema_version !== 1) throw new Error(`${file}: unknown schema_version`);
  return spec;
}

function wordMatches(pattern, word) {
  if (pattern.startsWith("*/")) return word === pattern.slice(2) || word.endsWith(pattern.slice(1));
  return pattern === word;
}

function startsWith(argv, prefix) {
  return prefix.length <= argv.length && prefix.every((p, i) => wordMatches(p, argv[i]));
}

// -> { engine, rest } for an engine command, { ignored: true } for a known helper, null otherwise.
export function classify(argv, spec) {
  const words = argv[0] === "exec" ? argv.slice(1) : argv;
  // A variable assignment alone (NAME=value) runs nothing.
  if (words.length === 1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) return { ignored: true };
  for (const cmd of spec.commands) {
    const prefix = cmd.match.find((m) => startsWith(words, m));
    if (prefix) return { engine: cmd, rest: words.slice(prefix.length) };
  }
  if (spec.not_engines.some((m) => startsWith(words, m))) return { ignored: true };
  return null;
}

// The failures (strings) of one engine command's arguments.
export function checkArguments(cmd, rest) {
  const failures = [];
  const positionals = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (!word.startsWith("-")) { positionals.push(word); continue; }
    const eq = word.indexOf("=");
    const name = eq > 0 ? word.slice(0, eq) : word;
    const flag = cmd.flags[name];
    if (!flag) {
      failures.push(`${name}: not an argument of ${cmd.engine} at the pinned source (${cmd.pin.sources[0]})`);
      if (eq < 0 && rest[i + 1] !== undefined && !rest[i + 1].startsWith("-")) i++; // its value, presumably
      continue;
    }
    let value = eq > 0 ? word.slice(eq + 1) : undefined;
    if (flag.form === "equals" && value === undefined) {
      failures.push(`${name}: ${cmd.engine} parses only ${name}=VALUE`);
      continue;
    }
    if (!flag.value) {
      if (value !== undefined) failures.push(`${name}: takes no value`);
      continue;
    }
    if (value === undefined) {
      value = rest[i + 1];
      if (value === undefined || value.startsWith("--")) {
        failures.push(`${name}: needs a value`);
        continue;
      }
      i++;
    }
    const values = [value];
    // A list flag (argparse nargs="*" or "+") takes every word up to the next flag.
    while (flag.nargs && rest[i + 1] !== undefined && !rest[i + 1].startsWith("-")) values.push(rest[++i]);
    for (const v of values) {
      if (flag.values && !flag.values.includes(v)) failures.push(`${name} ${v}: not one of ${flag.values.join(", ")}`);
    }
  }
  if (positionals.length !== cmd.positionals) {
    failures.push(`${cmd.positionals} positional argument(s) expected, got ${positionals.length}` +
      (positionals.length ? ` (${positionals.join(" ")})` : ""));
  } else if (cmd.positional_values && !cmd.positional_values.includes(positionals[0])) {
    failures.push(`${positionals[0]}: not one of ${cmd.positional_values.join(", ")}`);
  }
  return failures;
}

// Checks a list of argv arrays. -> { commands: [{engine}], failures: [{where, message}] }.
function checkArgvs(argvs, where, spec) {
  const commands = [];
  const failures = [];
  for (const argv of argvs) {
    const c = classify(argv, spec);
    if (!c) {
      failures.push({ where, message: `unrecognized command '${argv.slice(0, 3).join(" ")}'` });
    } else if (!c.ignored) {
      commands.push({ engine: c.engine.engine });
      for (const m of checkArguments(c.engine, c.rest)) failures.push({ where: `${where} ${c.engine.engine}`, message: m });
    }
  }
  return { commands, failures };
}

export function checkScript(text, spec) {
  const { commands: argvs, errors } = shellCommands(text);
  const out = checkArgvs(argvs, "script", spec);
  for (const e of errors) out.failures.push({ where: "script", message: `cannot read: ${e}` });
  if (out.commands.length === 0) out.failures.push({ where: "script", message: "no engine command found" });
  return out;
}

// The argv arrays a container runs: command + args, or the shell commands of `sh -c SCRIPT`.
function containerArgvs(c) {
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  if (!c.command) return { error: "no command: the image's entrypoint cannot be checked" };
  if ((argv[0] === "sh" || argv[0] === "bash") && argv[1] === "-c") {
    const { commands, errors } = shellCommands(String(argv[2] ?? ""));
    return { argvs: commands, error: errors[0] };
  }
  return { argvs: [argv.map(String)] };
}

// Every container and init container in a Kubernetes document, with its JSON pointer.
function containersOf(node, pointer, out) {
  if (Array.isArray(node)) {
    node.forEach((v, i) => containersOf(v, `${pointer}/${i}`, out));
  } else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if ((k === "containers" || k === "initContainers") && Array.isArray(v)) {
        v.forEach((c, i) => out.push({ container: c, pointer: `${pointer}/${k}/${i}` }));
      } else {
        containersOf(v, `${pointer}/${k}`, out);
      }
    }
  }
  return out;
}

export function checkManifest(doc, spec) {
  const commands = [];
  const failures = [];
  for (const { container, pointer } of containersOf(doc, "", [])) {
    const { argvs, error } = containerArgvs(container);
    if (error) failures.push({ where: pointer, message: `cannot read: ${error}` });
    const r = checkArgvs(argvs ?? [], pointer, spec);
    commands.push(...r.commands);
    failures.push(...r.failures);
  }
  return { commands, failures };
}
