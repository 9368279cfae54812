// The LeaderWorkerSet validator: the openAPIV3Schema of the vendored CRD
// (tests/schema/lws/, pinned upstream commit) compiled with ajv, made structural as the API server
// applies it (a field not in `properties` is pruned, so here it fails), plus kubernetes-models for
// the parts the vendored copy elides (`x-rightsize-elided`: the pod specs and the claim templates)
// and for `metadata`, which a CRD schema leaves to the API server's ObjectMeta.
import fs from "node:fs";
import YAML from "yaml";
import AjvModule from "ajv";
import { CORE, ObjectMeta, schemaMessage, validateModel } from "./models.mjs";

const Ajv = AjvModule.default ?? AjvModule;

const FORMATS = {
  int32: { type: "number", validate: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
  int64: { type: "number", validate: (n) => Number.isSafeInteger(n) },
  "date-time": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
};

// Adds `additionalProperties: false` wherever the schema lists properties and does not preserve
// unknown fields; records the elided subtrees as data paths ("*" = every array item).
function structural(node, path, elided) {
  if (!node || typeof node !== "object") return;
  if (node["x-rightsize-elided"]) {
    elided.push({ path, model: node["x-rightsize-elided"] });
    return;
  }
  if (node.properties && !node["x-kubernetes-preserve-unknown-fields"] && node.additionalProperties === undefined) {
    node.additionalProperties = false;
  }
  for (const [k, sub] of Object.entries(node.properties ?? {})) structural(sub, [...path, k], elided);
  if (node.items) structural(node.items, [...path, "*"], elided);
  if (typeof node.additionalProperties === "object") structural(node.additionalProperties, [...path, "*"], elided);
}

// Loads the CRD. -> { apiVersion, kind, validate(doc) -> [{pointer, message}] }.
export function loadLeaderWorkerSet(file) {
  const crd = YAML.parseAllDocuments(fs.readFileSync(file, "utf8")).map((d) => d.toJS()).find(Boolean);
  const version = crd.spec.versions.find((v) => v.storage);
  const schema = structuredClone(version.schema.openAPIV3Schema);
  const elided = [];
  structural(schema, [], elided);
  const models = elided.map((e) => e.model).sort().join(",");
  if (models !== "PersistentVolumeClaim,PodSpec,PodSpec") {
    throw new Error(`${file}: unexpected elided subtrees ${models}`);
  }
  const ajv = new Ajv({ strict: false, allErrors: true, formats: FORMATS });
  const check = ajv.compile(schema);
  return {
    apiVersion: `${crd.spec.group}/${version.name}`,
    kind: crd.spec.names.kind,
    validate: (doc) => validateLws(doc, check, elided),
  };
}

function validateLws(doc, check, elided) {
  if (!check(doc)) {
    return check.errors.map((e) => ({ pointer: e.instancePath, message: schemaMessage(e) }));
  }
  const failures = validateModel(ObjectMeta, doc.metadata ?? {}, "/metadata");
  for (const { path, model } of elided) {
    for (const { pointer, value } of resolve(doc, path, "")) {
      failures.push(...validateModel(CORE[model], withTypeMeta(model, value), pointer));
    }
  }
  return failures;
}

// A claim template may omit apiVersion and kind; the model requires them.
function withTypeMeta(model, value) {
  if (model !== "PersistentVolumeClaim") return value;
  return { apiVersion: "v1", kind: "PersistentVolumeClaim", ...value };
}

function resolve(node, path, pointer) {
  if (node === undefined) return [];
  if (path.length === 0) return [{ pointer, value: node }];
  const [head, ...tail] = path;
  if (head === "*") {
    const entries = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node ?? {});
    return entries.flatMap(([k, v]) => resolve(v, tail, `${pointer}/${k}`));
  }
  return resolve(node?.[head], tail, `${pointer}/${head}`);
}
