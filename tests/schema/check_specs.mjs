#!/usr/bin/env node
// Validates every shipped example spec (data/examples/*.json) against the spec schema
// (data/schema/model-spec.schema.json, JSON Schema 2020-12, ajv). First the known-bad specs of
// tests/schema/bad-specs/ must each be rejected, so a schema that accepts everything fails too.
// One line per failure, a summary, exit 1 on any.
// Usage: node tests/schema/check_specs.mjs [SOURCE_DIR]   (default: this checkout)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020Module from "ajv/dist/2020.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(process.argv[2] ?? path.join(here, "..", ".."));
const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const schema = JSON.parse(fs.readFileSync(path.join(root, "data/schema/model-spec.schema.json"), "utf8"));
const validate = new Ajv2020({ strict: false, allErrors: false }).compile(schema);

let failures = 0;
const jsonFiles = (dir) =>
  fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((f) => path.join(dir, f));

for (const file of jsonFiles(path.join(here, "bad-specs"))) {
  if (validate(JSON.parse(fs.readFileSync(file, "utf8")))) {
    console.log(`FAIL ${path.relative(root, file)}: a known-bad spec passed the schema`);
    ++failures;
  }
}
const examples = jsonFiles(path.join(root, "data/examples"));
for (const file of examples) {
  if (!validate(JSON.parse(fs.readFileSync(file, "utf8")))) {
    const e = validate.errors[0];
    console.log(`FAIL ${path.relative(root, file)}: ${e.instancePath || "/"} ${e.message}`);
    ++failures;
  }
}
console.log(`spec schema: ${examples.length} example specs, ${failures} failure(s)`);
process.exit(failures === 0 ? 0 : 1);
